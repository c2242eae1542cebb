import {
  nextDiagnosis,
  type Diagnosis,
  type DiagnosisCode,
  type DiagnosisInput,
} from '../../shared/domain/diagnosis';
import type { KeeperOrderKind } from '../../shared/store/repositories/keeper-order-repository';
import type { DiagnosisWriter } from './diagnosis-writer';

interface Known {
  diagnosis: Diagnosis;
  /**
   * Judged on the order itself (its funding, its route): holds until the order is claimed again, against the
   * cheaper judgments of the index and the scheduler (queued, chain held), which only see its price.
   */
  sticky: boolean;
  at: number;
}

/** What the keeper last wrote of an order is forgotten after this long without a judgment (the store has it). */
const FORGET_AFTER_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60_000;
/** Market prices in diagnoses keep this many significant digits. */
const PRICE_DIGITS = 8;

export const diagnosisPrice = (price: number): number => Number(price.toPrecision(PRICE_DIGITS));

/**
 * What a retryable failure leaves a pending order waiting for: a chain that could not be reached (CHAIN_STALE), a
 * missing route (NO_ROUTE), a fee above a cap (FEE_ABOVE_CAP), the next block (a market failure), else a back-off.
 */
export function diagnosisOfRetry(reason: string, nextAttemptAt: number, nowMs: number): DiagnosisInput {
  switch (reason) {
    case 'RPC_ERROR':
      return { code: 'CHAIN_STALE', reason, nextAttemptAt };
    case 'NO_ROUTE':
      return { code: 'NO_ROUTE', reason, nextAttemptAt };
    case 'FEE_TOO_HIGH':
    case 'GAS_TOO_EXPENSIVE':
      return { code: 'FEE_ABOVE_CAP', reason, nextAttemptAt };
  }
  if (nextAttemptAt <= nowMs) return { code: 'WAITING_FOR_BLOCK', reason };
  return { code: 'BACKING_OFF', reason, nextAttemptAt };
}

/**
 * One chain keeper's judgments of why its pending orders have not filled, and its memory of what it wrote: a
 * judgment equal to the last one (same code and detail; a market price within MATERIAL_PRICE_MOVE) is dropped here,
 * so judging on every tick writes only what changed. The rest goes to the writer, which stores it off the hot path.
 * The memory is this keeper's only (another keeper may have written since): it is forgotten after FORGET_AFTER_MS,
 * and the store compares again on its own.
 */
export class OrderDiagnoses {
  private readonly known = new Map<string, Known>();
  private sweptAt = 0;

  constructor(
    private readonly writer: Pick<DiagnosisWriter, 'submit'>,
    private readonly now: () => number,
  ) {}

  /** The diagnosis this keeper last wrote for the order, if it remembers one. */
  of(kind: KeeperOrderKind, id: string): Diagnosis | undefined {
    return this.known.get(`${kind}:${id}`)?.diagnosis;
  }

  codeOf(kind: KeeperOrderKind, id: string): DiagnosisCode | undefined {
    return this.of(kind, id)?.code;
  }

  /**
   * A judgment of the order itself (`sticky`: its funding or route, which holds until it is claimed again) or of a
   * retry; resolves whether it goes to the store.
   */
  note(kind: KeeperOrderKind, id: string, input: DiagnosisInput, sticky = false): boolean {
    const now = this.now();
    this.sweep(now);
    const key = `${kind}:${id}`;
    const known = this.known.get(key);
    const next = nextDiagnosis(known?.diagnosis, input, now);
    if (!next) {
      known!.sticky = sticky;
      known!.at = now;
      return false;
    }
    this.known.set(key, { diagnosis: next, sticky, at: now });
    this.writer.submit(kind, id, input);
    return true;
  }

  /** A judgment from the order's price alone (queued, chain held): written unless a sticky judgment holds. */
  noteUnlessHeld(kind: KeeperOrderKind, id: string, input: DiagnosisInput): boolean {
    if (this.known.get(`${kind}:${id}`)?.sticky) return false;
    return this.note(kind, id, input);
  }

  /** Claimed orders are judged anew: what was judged of them before no longer holds against the index. */
  claimed(kind: KeeperOrderKind, ids: Iterable<string>): void {
    for (const id of ids) {
      const known = this.known.get(`${kind}:${id}`);
      if (known) known.sticky = false;
    }
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [key, known] of this.known) if (now - known.at > FORGET_AFTER_MS) this.known.delete(key);
  }
}
