/**
 * Why a pending order has not filled yet, as the keeper last judged it. Written only by the keeper (and once by
 * the api at creation); shown on the order while it is `pending`, and sent as an event whenever its code changes.
 */
export const DIAGNOSIS_CODES = [
  'PRICE_NOT_REACHED',
  'ALLOWANCE_SHORT',
  'BALANCE_SHORT',
  'FEE_ABOVE_CAP',
  'NO_ROUTE',
  'CHAIN_STALE',
  'WAITING_FOR_BLOCK',
  'BACKING_OFF',
] as const;
export type DiagnosisCode = (typeof DIAGNOSIS_CODES)[number];

/** What the keeper saw when it judged; each field appears only with the codes that name it. */
export interface DiagnosisDetail {
  /**
   * PRICE_NOT_REACHED: the market price of the pair (units of the bought token per 1 sold, as `priceTrigger`) when
   * the code was written or last moved materially.
   */
  marketPrice?: number;
  /** PRICE_NOT_REACHED (limit orders): the order's trigger, beside the market price. */
  priceTrigger?: number;
  /** PRICE_NOT_REACHED (DCA orders): the strategy's bounds the market price is outside of. */
  minPrice?: number;
  maxPrice?: number;
  /** ALLOWANCE_SHORT / BALANCE_SHORT: what the order needs and what the maker has, in base units. */
  required?: string;
  available?: string;
  /** FEE_ABOVE_CAP: the fee the order would pay and the cap it signed, in basis points, when known. */
  feeBps?: number;
  maxFeeBps?: number;
  /**
   * BACKING_OFF, and FEE_ABOVE_CAP / NO_ROUTE / CHAIN_STALE / WAITING_FOR_BLOCK when written after a failed attempt:
   * Unix ms of the next attempt; `reason` names the failure (a reason of the keeper's failure table).
   */
  nextAttemptAt?: number;
  reason?: string;
}

/** A diagnosis as the keeper judges it: `since` is the store's to keep. */
export type DiagnosisInput = DiagnosisDetail & { code: DiagnosisCode };

export interface Diagnosis extends DiagnosisDetail {
  code: DiagnosisCode;
  /** Unix ms since which the code has held. */
  since: number;
}

/** The diagnosis as GET answers it: `since` and `nextAttemptAt` in ISO 8601, a sentence in `message`. */
export interface DiagnosisJson {
  code: DiagnosisCode;
  message: string;
  since: string;
  marketPrice?: number;
  priceTrigger?: number;
  minPrice?: number;
  maxPrice?: number;
  required?: string;
  available?: string;
  feeBps?: number;
  maxFeeBps?: number;
  nextAttemptAt?: string;
  reason?: string;
}

function isCode(value: unknown): value is DiagnosisCode {
  return typeof value === 'string' && (DIAGNOSIS_CODES as readonly string[]).includes(value);
}

/** The stored column (JSON text); anything unreadable reads as no diagnosis. */
export function parseDiagnosis(text: string | null | undefined): Diagnosis | null {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const value = parsed as Record<string, unknown>;
    if (!isCode(value.code) || typeof value.since !== 'number') return null;
    return value as unknown as Diagnosis;
  } catch {
    return null;
  }
}

export function serializeDiagnosis(diagnosis: Diagnosis): string {
  return JSON.stringify(diagnosis);
}

const iso = (ms: number): string => new Date(ms).toISOString();

function messageOf(d: Diagnosis): string {
  switch (d.code) {
    case 'PRICE_NOT_REACHED':
      if (d.priceTrigger === undefined && (d.minPrice !== undefined || d.maxPrice !== undefined)) {
        const bounds = `[${d.minPrice ?? '0'}, ${d.maxPrice ?? '∞'}]`;
        return d.marketPrice !== undefined
          ? `The market price ${d.marketPrice} is outside the strategy's bounds ${bounds}; the order waits until its next slot`
          : `The market price is outside the strategy's bounds ${bounds}; the order waits until its next slot`;
      }
      return d.marketPrice !== undefined && d.priceTrigger !== undefined
        ? `The market price ${d.marketPrice} has not reached the trigger ${d.priceTrigger}`
        : 'The market price has not reached the trigger';
    case 'ALLOWANCE_SHORT':
      return `The maker's allowance to the order contract${d.available !== undefined ? ` (${d.available})` : ''} is below the order's amount${d.required !== undefined ? ` (${d.required})` : ''}; the order waits for a larger approval`;
    case 'BALANCE_SHORT':
      return `The maker's balance${d.available !== undefined ? ` (${d.available})` : ''} is below the order's amount${d.required !== undefined ? ` (${d.required})` : ''}; the order waits for funds`;
    case 'FEE_ABOVE_CAP':
      return `The fee${d.feeBps !== undefined ? ` (${d.feeBps} bps)` : ''} is above its cap${d.maxFeeBps !== undefined ? ` (${d.maxFeeBps} bps)` : ''}${d.reason ? ` (${d.reason})` : ''}; the order waits until the fee fits${d.nextAttemptAt !== undefined ? `, next attempt at ${iso(d.nextAttemptAt)}` : ''}`;
    case 'NO_ROUTE':
      return `No route for the pair and amount${d.nextAttemptAt !== undefined ? `; the next attempt is at ${iso(d.nextAttemptAt)}` : '; the order is retried'}`;
    case 'CHAIN_STALE':
      return 'The chain has not produced a block or answered recently; the order waits for it';
    case 'WAITING_FOR_BLOCK':
      return `The price reached the trigger; the order waits for the keeper to execute it in a coming block${d.reason ? ` (last attempt: ${d.reason})` : ''}`;
    case 'BACKING_OFF':
      return `The last attempt failed${d.reason ? ` (${d.reason})` : ''}; the next attempt is${d.nextAttemptAt !== undefined ? ` at ${iso(d.nextAttemptAt)}` : ' later'}`;
  }
}

export function diagnosisJson(d: Diagnosis): DiagnosisJson {
  const { code, since, nextAttemptAt, ...detail } = d;
  return {
    code,
    message: messageOf(d),
    since: iso(since),
    ...detail,
    ...(nextAttemptAt !== undefined ? { nextAttemptAt: iso(nextAttemptAt) } : {}),
  };
}

/** A market price that moved less than this (relative) since it was written is not written again. */
export const MATERIAL_PRICE_MOVE = 0.01;

const DETAIL_FIELDS = [
  'priceTrigger',
  'minPrice',
  'maxPrice',
  'required',
  'available',
  'feeBps',
  'maxFeeBps',
  'nextAttemptAt',
  'reason',
] as const satisfies readonly (keyof DiagnosisDetail)[];

function materiallyMoved(before: number | undefined, after: number | undefined): boolean {
  if (before === undefined || after === undefined) return before !== after;
  if (before === after) return false;
  const scale = Math.max(Math.abs(before), Math.abs(after));
  return !(Math.abs(after - before) / scale < MATERIAL_PRICE_MOVE);
}

/** The input's own fields, without the ones it leaves undefined (so equal inputs serialize equally). */
function definedFields(input: DiagnosisInput): DiagnosisInput {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined) out[key] = value;
  return out as unknown as DiagnosisInput;
}

/**
 * What to store when the keeper judges `input` of an order whose stored diagnosis is `stored`, or undefined when
 * nothing is to be written: the same code with the same detail (a market price that moved less than
 * MATERIAL_PRICE_MOVE counts as the same). A new code holds `since` now; the same code with another detail keeps
 * its `since`.
 */
export function nextDiagnosis(
  stored: Diagnosis | null | undefined,
  input: DiagnosisInput,
  nowMs: number,
): Diagnosis | undefined {
  const detail = definedFields(input);
  if (!stored || stored.code !== input.code) return { ...detail, since: nowMs };
  const changed =
    DETAIL_FIELDS.some((field) => stored[field] !== detail[field]) ||
    materiallyMoved(stored.marketPrice, detail.marketPrice);
  return changed ? { ...detail, since: stored.since } : undefined;
}
