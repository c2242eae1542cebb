import { Redis } from 'ioredis';
import { RedisBatch } from '../../api/gateway/redis-batch';
import { describeWithRedis, freshRedisPrefix } from '../helpers/redis-probe';

/**
 * The gateway's Redis batching: the commands of one turn of the event loop leave in one socket write, and each
 * gets its own reply or error.
 */
describeWithRedis('RedisBatch: one write per turn, one answer per command', (redisUrl) => {
  let redis: Redis;
  let batch: RedisBatch;

  beforeEach(async () => {
    // As the api's client: no offline queue, so a command is written (or refused) as it is issued.
    redis = new Redis(redisUrl, {
      keyPrefix: freshRedisPrefix(),
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    await redis.connect();
    batch = new RedisBatch(redis);
  });
  afterEach(() => redis.disconnect());

  it('sends the commands of one turn in one write, each answered with its own reply', async () => {
    const stream = redis.stream;
    const single = jest.spyOn(stream, '_write');
    const several = jest.spyOn(stream, '_writev');
    const replies = await Promise.all([
      batch.run((r) => r.set('a', '1')),
      batch.run((r) => r.incrby('counter', 5)),
      batch.run((r) => r.get('a')),
      batch.run((r) => r.get('missing')),
    ]);
    expect(replies).toEqual(['OK', 5, '1', null]);
    expect(single).not.toHaveBeenCalled();
    expect(several).toHaveBeenCalledTimes(1);
  });

  it('fails only the command Redis refused; the others of its turn are answered', async () => {
    await redis.set('text', 'not a number');
    const [bad, good] = await Promise.allSettled([
      batch.run((r) => r.incr('text')),
      batch.run((r) => r.incr('number')),
    ]);
    expect(bad.status).toBe('rejected');
    expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(String((bad as PromiseRejectedResult).reason.message)).toMatch(/not an integer/);
    expect(good).toEqual({ status: 'fulfilled', value: 1 });
    // An answer Redis gave says nothing of its health: the next turn is sent as usual.
    expect(await batch.run((r) => r.incr('number'))).toBe(2);
  });

  it('refuses every command at once, for a second, once Redis could not be reached', async () => {
    redis.disconnect();
    await expect(batch.run((r) => r.get('a'))).rejects.toThrow();
    await expect(batch.run((r) => r.get('a'))).rejects.toThrow('redis did not answer a moment ago');
  });
});
