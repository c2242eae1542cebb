interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per client key (an API key or an IP): `burst` requests at once, refilled at `perSecond`.
 * Kept per process; an operator running several api instances divides the budget by their count.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait before retrying. */
  take(key: string): number {
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.retryAfter(bucket);
  }

  /** Like `take` but consumes nothing: whether the key's budget is already spent. */
  exhausted(key: string): number {
    const bucket = this.refilled(key);
    return bucket.tokens >= 1 ? 0 : this.retryAfter(bucket);
  }

  private refilled(key: string): Bucket {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    return bucket;
  }

  private retryAfter(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  prune(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond >= this.burst)
        this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
