import type { ChainableCommander } from 'ioredis';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RedisBatch } from './redis-batch';
import type { RateLimiter, TokenBucketRate } from './rate-limiter';

/**
 * The same token bucket as MemoryRateLimiter, kept in one Redis hash per client key and updated atomically, so
 * every api process draws from one budget. Redis's own clock refills it: api hosts whose clocks disagree still agree
 * on the bucket. A bucket that would be full again expires, so idle clients leave nothing behind.
 * `bucket(key, rate, burst, cost, now)`: cost 1 takes a token, 0 only looks; returns 0 or the seconds to wait.
 */
export const BUCKET_FUNCTION = `
local function bucket(key, rate, burst, cost, now)
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1])
  local at = tonumber(state[2])
  if tokens == nil or at == nil then
    tokens = burst
    at = now
  end
  tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
  if tokens < 1 then
    return math.max(1, math.ceil((1 - tokens) / rate))
  end
  if cost > 0 then
    tokens = tokens - cost
    redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
    redis.call('PEXPIRE', key, math.min(math.ceil((burst - tokens) / rate * 1000) + 1000, 1e12))
  end
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS[1] bucket; ARGV perSecond, burst, cost. */
const TOKEN_BUCKET = `${BUCKET_FUNCTION}
return bucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), now)
`;

/** The Redis key of a budget's bucket for a client key. */
export const bucketKey = (budget: string, key: string): string => `rl:${budget}:${key}`;

interface TokenBucketCommand {
  tokenBucket(key: string, perSecond: number, burst: number, cost: number): ChainableCommander;
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
          (p as ChainableCommander & TokenBucketCommand).tokenBucket(bucket, perSecond, burst, cost),
        ),
      );
    } catch (err) {
      this.onFallback(err);
      return cost === 1 ? this.insurance.take(key) : this.insurance.exhausted(key);
    }
  }
}
