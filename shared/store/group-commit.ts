import { isStoreUnreachable } from './store-unreachable';

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit: writes submitted while a batch is being committed wait, and go together in the next batch, so a
 * burst of N writes costs a few transactions instead of N. `commit` writes a batch in one transaction. Each
 * `submit` resolves only once its item's transaction committed, never before. When a batch fails, each of its items
 * is committed alone, so one bad item fails only its own submit; unless the store could not be reached at all, when
 * every item of the batch fails at once with that error instead of each waiting out its own connection attempt.
 */
export class GroupCommit<T> {
  private queue: Waiting<T>[] = [];
  /** Batches being committed, and whether a start is already scheduled for this turn. */
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly concurrency: number;

  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    options: {
      /** Items per transaction at most. */
      maxBatch?: number;
      /**
       * Transactions under way at once (a store with round trips and a connection pool keeps several going while one
       * waits for its commit; SQLite has one connection: 1).
       */
      concurrency?: number;
    } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.concurrency = options.concurrency ?? 1;
  }

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** The writes of this turn of the event loop join the next batch, started once a transaction place is free. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.concurrency || !this.queue.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatch();
    });
  }

  private startBatch(): void {
    if (this.inFlight >= this.concurrency || !this.queue.length) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight += 1;
    void this.commitBatch(batch).finally(() => {
      this.inFlight -= 1;
      this.schedule();
    });
    this.schedule();
  }

  private async commitBatch(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.commit(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1 || isStoreUnreachable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      for (const w of batch) {
        try {
          await this.commit([w.item]);
          w.resolve();
        } catch (alone) {
          w.reject(alone);
        }
      }
      return;
    }
    for (const w of batch) w.resolve();
  }
}
