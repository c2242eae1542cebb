import { Redis } from 'ioredis';
import type { Logger } from '../../shared/log/create-logger';

/** A command Redis has not answered by then fails: a hung Redis must not hold requests up to the gateway timeout. */
export const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * The api's Redis client for rate-limit counters and nonce records. Commands fail at once while the connection is
 * down (no offline queue, no retries): callers decide what an outage means, and nothing piles up meanwhile.
 */
export function openRedis(url: string, keyPrefix: string, log: Logger): Redis {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    // Its timer is left running when the socket was already gone (Redis down at close) and holds the process.
    disconnectTimeout: 200,
  });
  // One line per outage, not one per reconnect attempt. The URL may hold a password: never logged.
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.error({ reason: err.message }, 'redis unreachable');
  });
  redis.on('ready', () => {
    if (down) log.warn('redis reachable again');
    down = false;
  });
  return redis;
}

/**
 * Connects, waiting at most the connect timeout. An api that starts while Redis is down still starts (public routes
 * work, signed ones answer 403 until Redis answers), and keeps reconnecting in the background.
 */
export async function connectRedis(redis: Redis, log: Logger): Promise<void> {
  try {
    await redis.connect();
  } catch {
    // Already logged by the error listener; the client keeps reconnecting on its own.
    log.warn('api starting without redis: signed requests are refused until it answers');
  }
}
