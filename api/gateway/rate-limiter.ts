/**
 * A budget of requests per client key (an API key or an IP), as a token bucket: `burst` requests at once, refilled
 * at `perSecond`. The middleware sees only this; the buckets live in the process or in Redis.
 */
export interface RateLimiter {
  /** Takes one token; resolves 0 when allowed, else the whole seconds to wait before retrying. */
  take(key: string): Promise<number>;
  /** Like `take` but consumes nothing: whether the key's budget is already spent. */
  exhausted(key: string): Promise<number>;
  /**
   * `take` and `exhausted` answered at once, by a limiter whose buckets are in the process: the gateway then spends
   * no turn of the event loop on them.
   */
  readonly now?: { take(key: string): number; exhausted(key: string): number };
}

export interface TokenBucketRate {
  perSecond: number;
  burst: number;
}

/** Whole seconds until a bucket holding `tokens` has one token again (at least 1). */
export function retryAfterSeconds(tokens: number, perSecond: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perSecond));
}
