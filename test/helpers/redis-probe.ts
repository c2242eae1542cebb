import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis server the tests use: REDIS_URL when set, else the local default. */
export function redisServerUrl(env = process.env): string {
  return env.REDIS_URL || 'redis://127.0.0.1:6379';
}

/** Redis is expected on CI and whenever REDIS_URL names it; then its absence fails the run. */
export function redisExpected(env = process.env): boolean {
  return env.CI === 'true' || Boolean(env.REDIS_URL);
}

export async function redisReachable(url: string): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    redis.disconnect();
  }
}

/** The Redis decided by the global setup for this run, or undefined when the Redis side is skipped. */
export function redisForTests(): string | undefined {
  return process.env.TAS_TEST_REDIS_URL || undefined;
}

/** A key prefix of its own for one group of api instances, so test files and runs never share a counter. */
export function freshRedisPrefix(): string {
  return `tas-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/**
 * A suite that needs Redis: reported by jest as skipped when the run has none (never silently absent); on CI, or
 * with REDIS_URL set, its absence already failed the global setup.
 */
export function describeWithRedis(name: string, suite: (redisUrl: string) => void): void {
  const url = redisForTests();
  // As the MySQL side of the store suites (store-targets.ts): jest lists the suite as skipped, never drops it.
  const run = url ? describe : describe.skip;
  run(name, () => suite(url ?? ''));
}
