interface Waiting<V> {
  key: string;
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

/**
 * Reads by key gathered over one turn of the event loop and sent as one query per batch (`where id in (…)`): under
 * load a store with round trips (MySQL) answers a batch in about the time of one read. `fetch` returns the found
 * values by key; a key it leaves out resolves undefined. Batch sizes are rounded up to a power of two (the last key
 * repeated), so a prepared-statement cache sees a handful of statements, not one per size.
 */
export class BatchedLookup<V> {
  private queue: Waiting<V>[] = [];
  private scheduled = false;

  constructor(
    private readonly fetch: (keys: string[]) => Promise<Map<string, V>>,
    private readonly maxBatch: number = 64,
  ) {}

  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const waiting = this.queue;
    this.queue = [];
    this.scheduled = false;
    for (let start = 0; start < waiting.length; start += this.maxBatch) {
      const batch = waiting.slice(start, start + this.maxBatch);
      const keys = [...new Set(batch.map((w) => w.key))];
      let size = 1;
      while (size < keys.length) size *= 2;
      while (keys.length < size) keys.push(keys[keys.length - 1]!);
      this.fetch(keys).then(
        (found) => {
          for (const w of batch) w.resolve(found.get(w.key));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      );
    }
  }
}
