import type { Redis } from 'ioredis';
import type { AppConfig } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import type { Store } from '../../shared/store/store';
import type { ApiMetrics } from '../metrics';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { StoreNonceLedger, type NonceLedger } from './nonce-ledger';
import { RedisBatch } from './redis-batch';
import { connectRedis, openRedis } from './redis-connection';
import { RedisNonceLedger } from './redis-nonce-ledger';
import { RedisRateLimiter } from './redis-rate-limiter';
import { RedisSignedGate } from './redis-signed-gate';
import type { RateLimiter } from './rate-limiter';

/** What the gateway counts per client: request budgets and spent nonces. */
export interface GatewayLimits {
  /** Requests per IP (every route) and per API key (signed routes). */
  rateLimiter: RateLimiter;
  /** Refused authentication attempts per IP. */
  authFailureLimiter: RateLimiter;
  nonces: NonceLedger;
  /** With Redis: the IP's, the failure budget's, the nonce's and the key's Redis work in one round trip. */
  oneTrip?: RedisSignedGate;
  /** Forgets in-process buckets that have refilled. */
  prune(): void;
  close(): void;
}

/**
 * With REDIS_URL, budgets and nonces live in Redis and hold in total across api processes; without it, budgets are
 * per process and nonces go to the store of record (shared by every process on it).
 */
export async function openGatewayLimits(
  config: Pick<AppConfig, 'redisUrl' | 'redisKeyPrefix' | 'rateLimit' | 'authFailureLimit'>,
  store: Store,
  log: Logger,
  metrics: ApiMetrics,
): Promise<GatewayLimits> {
  if (!config.redisUrl) {
    const rateLimiter = new MemoryRateLimiter(config.rateLimit);
    const authFailureLimiter = new MemoryRateLimiter(config.authFailureLimit);
    return {
      rateLimiter,
      authFailureLimiter,
      nonces: new StoreNonceLedger(store.nonces),
      prune() {
        rateLimiter.prune();
        authFailureLimiter.prune();
      },
      close: () => undefined,
    };
  }
  const redis: Redis = openRedis(config.redisUrl, config.redisKeyPrefix, log);
  await connectRedis(redis, log);
  const fallback = () => metrics.rateLimitFallbacks.inc();
  const batch = new RedisBatch(redis);
  const rateLimiter = new RedisRateLimiter(batch, 'requests', config.rateLimit, fallback);
  const authFailureLimiter = new RedisRateLimiter(batch, 'auth-failures', config.authFailureLimit, fallback);
  const oneTrip = new RedisSignedGate(batch, config.rateLimit, config.authFailureLimit);
  await oneTrip.start();
  return {
    rateLimiter,
    authFailureLimiter,
    nonces: new RedisNonceLedger(batch),
    oneTrip,
    prune() {
      rateLimiter.insurance.prune();
      authFailureLimiter.insurance.prune();
    },
    close: () => redis.disconnect(),
  };
}
