import type { NonceUse, NoncesRepository } from '../../shared/store/repositories/nonces-repository';

interface Waiting {
  use: NonceUse;
  resolve(accepted: boolean): void;
  reject(err: unknown): void;
}

/** Where a request's nonce is spent: true when it was unused within its window, false for a replay. */
export interface NonceLedger {
  use(use: NonceUse): Promise<boolean>;
}

/**
 * Nonces in the store of record (no Redis). Gathers the nonces of the requests that arrive in one turn of the
 * event loop and records them in one batch: under load the store sees one write per batch instead of one per
 * request. A request is still answered only
 * after its nonce is durably recorded, so a replay to any api process on the same store is refused.
 */
export class StoreNonceLedger implements NonceLedger {
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly nonces: NoncesRepository,
    private readonly now: () => number = Date.now,
  ) {}

  use(use: NonceUse): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ use, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    try {
      const accepted = await this.nonces.useMany(
        batch.map((w) => w.use),
        this.now(),
      );
      batch.forEach((w, i) => w.resolve(accepted[i]));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
