import { RateLimitError, ServerError, type TasError } from './errors';

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retries off. */
  maxAttempts: number;
  /** The first backoff delay; it doubles on every attempt. */
  baseDelayMs: number;
  /** The largest backoff delay (a server's Retry-After is honoured as sent). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8000,
};

/** Every success of these creates a new resource: never sent twice by the SDK (spec, "Retry rules"); list first. */
const NEVER_RETRIED = new Set([
  'POST /accounts',
  'POST /limit-order',
  'POST /dca-order/strategies',
  'POST /webhooks',
]);

/** Whether the SDK may send this operation again; `path` is relative to the base URL (a query is ignored). */
export function isRetriable(method: string, path: string): boolean {
  const bare = path.split(/[?#]/)[0]!.replace(/\/+$/, '');
  return !NEVER_RETRIED.has(`${method.toUpperCase()} ${bare.startsWith('/') ? bare : `/${bare}`}`);
}

/** How the spec's retry table treats one failure. */
export type RetryKind = 'never' | 'once-resigned' | 'once' | 'retry-after' | 'backoff';

export function retryKind(error: TasError): RetryKind {
  if (error.status === 0) return error.code === 'NETWORK_ERROR' ? 'backoff' : 'never';
  // A gateway refusal may be a clock or nonce accident: once more with a new timestamp and nonce, then stop.
  if (error.gateway && (error.status === 401 || error.status === 403)) return 'once-resigned';
  if (error.status === 429) return 'retry-after';
  if (error.status === 422) return error.code === 'NO_ROUTE' ? 'backoff' : 'never';
  if (error.status >= 500) {
    // The next aggregatorOrder entry (or a fresh quote) is the caller's move, not the SDK's.
    if (error.code === 'SWAP_ERROR') return 'once';
    if (error.code === 'CROSS_CHAIN_SWAP_ERROR') return 'never';
    // "Keep polling": right after a broadcast it is expected, so it is the polling helpers' business.
    if (error.code === 'TX_STATUS_ERROR') return 'never';
    return 'backoff';
  }
  return 'never';
}

/** Exponential backoff with jitter: between half and all of base·2^(attempt−1), capped at maxDelayMs. */
export function backoffDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** What a request has used up so far, for the rules that allow one retry only. */
export interface RetryBudget {
  /** Attempts made so far (1 after the first). */
  attempts: number;
  /** Retries already made of each once-only kind. */
  onceUsed: Set<RetryKind>;
}

/** The delay before the next attempt, or undefined when the error is final for this request. */
export function nextRetryDelay(
  error: TasError,
  budget: RetryBudget,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (budget.attempts >= policy.maxAttempts) return undefined;
  const kind = retryKind(error);
  switch (kind) {
    case 'never':
      return undefined;
    case 'once-resigned':
    case 'once':
      if (budget.onceUsed.has(kind)) return undefined;
      budget.onceUsed.add(kind);
      return kind === 'once' ? backoffDelayMs(policy, budget.attempts, random) : 0;
    case 'retry-after':
      if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
        return error.retryAfterSeconds * 1000;
      }
      return backoffDelayMs(policy, budget.attempts, random);
    case 'backoff':
      // A server that says when to come back is waited for at least that long.
      return Math.max(
        backoffDelayMs(policy, budget.attempts, random),
        error instanceof ServerError && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : 0,
      );
  }
}
