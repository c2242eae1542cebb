import type { Redis } from 'ioredis';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RedisBatch } from './redis-batch';
import type { RateLimiter, TokenBucketRate } from './rate-limiter';

/**
 * The same token bucket as MemoryRateLimiter, kept in Redis and updated atomically, so every api process draws from
 * one budget. Redis's own clock refills it: api hosts whose clocks disagree still agree on the bucket.
 * A bucket is one number, the time (ms, Redis's clock) at which it is full again (absent: full): at `now` it holds
 * `burst - (fullAt - now) * rate` tokens, and taking one moves `fullAt` on by one token's time (the generic cell
 * rate algorithm, exactly a token bucket refilled continuously). One GET and one SET with its expiry instead of a
 * hash's read, write and expiry: Redis spends its time on commands, not arithmetic. The key expires when the bucket
 * is full again, so idle clients leave nothing behind.
 * `level(fullAt, rate, burst, now)` is the tokens held, `refusal(tokens, rate)` the seconds to wait for one,
 * `take(key, fullAt, rate, now)` stores the bucket less one token.
 */
export const BUCKET_FUNCTIONS = `
local function level(fullAt, rate, burst, now)
  if fullAt == nil or fullAt <= now then return burst end
  return burst - (fullAt - now) / 1000 * rate
end
local function refusal(tokens, rate)
  return math.max(1, math.ceil((1 - tokens) / rate))
end
local function take(key, fullAt, rate, now)
  if fullAt == nil or fullAt < now then fullAt = now end
  fullAt = fullAt + 1000 / rate
  redis.call('SET', key, tostring(fullAt), 'PX', math.min(math.ceil(fullAt - now) + 1000, 1e12))
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS[1] bucket; ARGV perSecond, burst, cost. */
const TOKEN_BUCKET = `${BUCKET_FUNCTIONS}
local rate = tonumber(ARGV[1])
local fullAt = tonumber(redis.call('GET', KEYS[1]))
local tokens = level(fullAt, rate, tonumber(ARGV[2]), now)
if tokens < 1 then return refusal(tokens, rate) end
if tonumber(ARGV[3]) > 0 then take(KEYS[1], fullAt, rate, now) end
return 0
`;

/**
 * The Redis key of a budget's bucket for a client key. Named apart from the hashes earlier versions kept under
 * `rl:`, so that processes of both versions running side by side never read each other's records.
 */
export const bucketKey = (budget: string, key: string): string => `tb:${budget}:${key}`;

interface TokenBucketCommand {
  tokenBucket(key: string, perSecond: number, burst: number, cost: number): Promise<unknown>;
}

/**
 * Shared buckets in Redis. While Redis does not answer, each process falls back to its own in-memory buckets with
 * the same rate (limits then hold per process, as without Redis): an outage neither opens the api to floods nor
 * refuses everyone.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly insurance: MemoryRateLimiter;

  constructor(
    private readonly batch: RedisBatch,
    /** Separates this budget's buckets from other budgets' in the same Redis. */
    private readonly name: string,
    private readonly rate: TokenBucketRate,
    private readonly onFallback: (err: unknown) => void = () => undefined,
  ) {
    if (!('tokenBucket' in batch.redis)) {
      batch.redis.defineCommand('tokenBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET });
    }
    this.insurance = new MemoryRateLimiter(rate);
  }

  take(key: string): Promise<number> {
    return this.run(key, 1);
  }

  exhausted(key: string): Promise<number> {
    return this.run(key, 0);
  }

  private async run(key: string, cost: 0 | 1): Promise<number> {
    try {
      const bucket = bucketKey(this.name, key);
      const { perSecond, burst } = this.rate;
      return Number(
        await this.batch.run((p) =>
          (p as Redis & TokenBucketCommand).tokenBucket(bucket, perSecond, burst, cost),
        ),
      );
    } catch (err) {
      this.onFallback(err);
      return cost === 1 ? this.insurance.take(key) : this.insurance.exhausted(key);
    }
  }
}
