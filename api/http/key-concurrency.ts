import PQueue from 'p-queue';

/**
 * At most `concurrency` holders per key at once; the rest wait their turn in arrival order. An unpaginated list
 * of thousands of rows costs the event loop tens of milliseconds: one key running many at once would make every
 * other key's requests wait behind them. Queues exist only while a key has work, so idle keys cost nothing.
 */
export class KeyConcurrency {
  private readonly queues = new Map<string, PQueue>();

  constructor(private readonly concurrency: number) {
    if (!(concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${concurrency}`);
  }

  /**
   * Resolves once the key has a free place, with the function that gives it back (safe to call more than once).
   * The place is held across awaits and callbacks, e.g. until a streamed response has been written.
   */
  acquire(key: string): Promise<() => void> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new PQueue({ concurrency: this.concurrency });
      this.queues.set(key, queue);
    }
    const owner = queue;
    return new Promise((granted) => {
      void owner.add(
        () =>
          new Promise<void>((released) => {
            let done = false;
            granted(() => {
              if (done) return;
              done = true;
              released();
              // Checked once p-queue has counted the place as free.
              queueMicrotask(() => {
                if (owner.size === 0 && owner.pending === 0 && this.queues.get(key) === owner) {
                  this.queues.delete(key);
                }
              });
            });
          }),
      );
    });
  }

  /** Keys with places held or awaited. */
  get activeKeys(): number {
    return this.queues.size;
  }
}
