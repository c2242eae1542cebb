import type { DiagnosisInput } from '../../shared/domain/diagnosis';
import type { Logger } from '../../shared/log/create-logger';
import type { DiagnosisEntry } from '../../shared/store/repositories/diagnoses-repository';
import type { KeeperOrderKind } from '../../shared/store/repositories/keeper-order-repository';

/** The store's side: one transaction per call, resolving the ids written. */
export interface DiagnosisStore {
  setLimitOrderDiagnoses(entries: readonly DiagnosisEntry[], nowMs: number): Promise<string[]>;
  setDcaOrderDiagnoses(entries: readonly DiagnosisEntry[], nowMs: number): Promise<string[]>;
}

export interface DiagnosisWriterDeps {
  store: DiagnosisStore;
  log: Logger;
  now: () => number;
  /** A write that failed: told first (a store that went away is the store watch's to report). */
  onError?: (err: unknown) => void;
  /** Judgments written per flush (the rest wait for the next one). */
  maxPerFlush?: number;
}

interface Queued {
  kind: KeeperOrderKind;
  id: string;
  diagnosis: DiagnosisInput;
}

const DEFAULT_MAX_PER_FLUSH = 1000;

/**
 * The keeper's diagnoses on their way to the store, off the hot path: stages hand judgments in (`submit`, no I/O),
 * and `flush` writes them in the background loop, a bounded batch per kind and call. An order judged again before
 * its flush keeps only its last judgment. A write that fails is logged and its judgments queued again (unless a
 * newer one took their place): a diagnosis never slows or breaks execution.
 */
export class DiagnosisWriter {
  private readonly queued = new Map<string, Queued>();
  private flushing: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly deps: DiagnosisWriterDeps) {}

  get size(): number {
    return this.queued.size;
  }

  submit(kind: KeeperOrderKind, id: string, diagnosis: DiagnosisInput): void {
    const key = `${kind}:${id}`;
    // Re-inserted: the newest judgment goes last, and the oldest are written first.
    this.queued.delete(key);
    this.queued.set(key, { kind, id, diagnosis });
  }

  /** Writes what is queued (at most `maxPerFlush`); never rejects. Calls during a flush share it. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.queued.size) return;
    const { deps } = this;
    const max = deps.maxPerFlush ?? DEFAULT_MAX_PER_FLUSH;
    const taken: Array<[string, Queued]> = [];
    for (const entry of this.queued) {
      if (taken.length >= max) break;
      taken.push(entry);
    }
    for (const [key] of taken) this.queued.delete(key);
    const byKind = (kind: KeeperOrderKind): DiagnosisEntry[] =>
      taken.filter(([, q]) => q.kind === kind).map(([, q]) => ({ id: q.id, diagnosis: q.diagnosis }));
    try {
      const now = deps.now();
      const limit = byKind('limit');
      const dca = byKind('dca');
      if (limit.length) await deps.store.setLimitOrderDiagnoses(limit, now);
      if (dca.length) await deps.store.setDcaOrderDiagnoses(dca, now);
      if (this.failing) deps.log.info('order diagnoses written again');
      this.failing = false;
    } catch (err) {
      // Queued again for the next flush, behind nothing newer of the same order.
      for (const [key, q] of taken) if (!this.queued.has(key)) this.queued.set(key, q);
      deps.onError?.(err);
      if (!this.failing) deps.log.warn({ err }, 'writing order diagnoses failed; retried on the next flush');
      this.failing = true;
    }
  }
}
