import { retryAfterSeconds, type RateLimiter, type TokenBucketRate } from './rate-limiter';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets in this process: without Redis every api process keeps its own, so an operator running several
 * instances divides the budget by their count. Also the Redis limiter's insurance while Redis is unreachable.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly rate: TokenBucketRate,
    private readonly clock: () => number = Date.now,
  ) {}

  readonly now = {
    take: (key: string): number => {
      const bucket = this.refilled(key);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return retryAfterSeconds(bucket.tokens, this.rate.perSecond);
    },
    exhausted: (key: string): number => {
      const bucket = this.refilled(key);
      return bucket.tokens >= 1 ? 0 : retryAfterSeconds(bucket.tokens, this.rate.perSecond);
    },
  };

  take(key: string): Promise<number> {
    return Promise.resolve(this.now.take(key));
  }

  exhausted(key: string): Promise<number> {
    return Promise.resolve(this.now.exhausted(key));
  }

  private refilled(key: string): Bucket {
    const now = this.clock();
    const { perSecond, burst } = this.rate;
    const bucket = this.buckets.get(key) ?? { tokens: burst, updatedAt: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    return bucket;
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  prune(): void {
    const now = this.clock();
    const { perSecond, burst } = this.rate;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond >= burst) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
