import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisBatch } from '../../api/gateway/redis-batch';
import { RedisNonceLedger } from '../../api/gateway/redis-nonce-ledger';
import { bucketKey, RedisRateLimiter } from '../../api/gateway/redis-rate-limiter';
import { RedisSignedGate, type GateOutcome } from '../../api/gateway/redis-signed-gate';
import type { TokenBucketRate } from '../../api/gateway/rate-limiter';
import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
import { describeWithRedis, freshRedisPrefix } from '../helpers/redis-probe';

/** One token per 100 s: nothing refills during a test. */
const RATE: TokenBucketRate = { perSecond: 0.01, burst: 3 };
const FAILURE_RATE: TokenBucketRate = { perSecond: 0.01, burst: 2 };

/**
 * The gateway's one-trip script against the separate calls it stands for (RedisRateLimiter 'requests' and
 * 'auth-failures', RedisNonceLedger), on the same Redis records: each outcome and each record it leaves must be
 * the separate calls' own.
 */
describeWithRedis('RedisSignedGate: one round trip, the separate calls’ outcomes', (redisUrl) => {
  let redis: Redis;
  let gate: RedisSignedGate;
  let requests: RedisRateLimiter;
  let failures: RedisRateLimiter;
  let nonces: RedisNonceLedger;
  let ip: string;
  let apiKey: string;

  const use = (nonce = randomUUID().replace(/-/g, '').slice(0, 24)): NonceUse => ({
    apiKey,
    nonce,
    expiresAt: Date.now() + 600_000,
  });

  beforeEach(async () => {
    redis = new Redis(redisUrl, { keyPrefix: freshRedisPrefix() });
    const batch = new RedisBatch(redis);
    gate = new RedisSignedGate(batch, RATE, FAILURE_RATE);
    await gate.start();
    requests = new RedisRateLimiter(batch, 'requests', RATE);
    failures = new RedisRateLimiter(batch, 'auth-failures', FAILURE_RATE);
    nonces = new RedisNonceLedger(batch);
    ip = `10.0.0.${Math.floor(Math.random() * 250) + 1}`;
    apiKey = randomUUID();
  });
  afterEach(() => redis.disconnect());

  it('passes a request: spends one IP token, the nonce (for its window) and one key token, as the separate calls', async () => {
    const first = use();
    expect(await gate.run(ip, first)).toEqual<GateOutcome>({ kind: 'passed' });
    // The nonce is spent for the separate ledger too, with a TTL close to its window.
    expect(await nonces.use(first)).toBe(false);
    const ttl = await redis.pttl(`nonce:${apiKey}:${first.nonce}`);
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    // Burst 3: the gate's token and two more by the separate calls, then both ways are refused alike.
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    const wait = await requests.exhausted(`ip:${ip}`);
    expect(wait).toBeGreaterThan(0);
    expect(await gate.run(ip, use())).toEqual<GateOutcome>({ kind: 'ip-limited', retryAfter: wait });
    // The key's bucket holds two tokens still: only the passed request spent one.
    expect(await requests.take(`key:${apiKey}`)).toBe(0);
    expect(await requests.take(`key:${apiKey}`)).toBe(0);
    expect(await requests.exhausted(`key:${apiKey}`)).toBeGreaterThan(0);
  });

  it('refuses with the IP budget spent before anything else: no nonce, no key token', async () => {
    for (let i = 0; i < RATE.burst; i++) expect(await requests.take(`ip:${ip}`)).toBe(0);
    const refused = use();
    const outcome = await gate.run(ip, refused);
    expect(outcome.kind).toBe('ip-limited');
    expect(await redis.exists(`nonce:${apiKey}:${refused.nonce}`)).toBe(0);
    expect(await requests.exhausted(`key:${apiKey}`)).toBe(0);
    expect(await redis.exists(bucketKey('requests', `key:${apiKey}`))).toBe(0);
  });

  it('refuses an IP whose refused-attempt budget is spent (after its IP token), leaving the nonce unspent', async () => {
    for (let i = 0; i < FAILURE_RATE.burst; i++) expect(await failures.take(`auth-failures:${ip}`)).toBe(0);
    const wait = await failures.exhausted(`auth-failures:${ip}`);
    const refused = use();
    expect(await gate.run(ip, refused)).toEqual<GateOutcome>({ kind: 'failures-limited', retryAfter: wait });
    expect(await redis.exists(`nonce:${apiKey}:${refused.nonce}`)).toBe(0);
    // The IP token was spent (the IP's limit runs first), the failure budget only looked at.
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    expect(await requests.exhausted(`ip:${ip}`)).toBeGreaterThan(0);
    expect(await failures.exhausted(`auth-failures:${ip}`)).toBe(wait);
  });

  it('answers a replay, whichever path spent the nonce, without spending a key token', async () => {
    const spent = use();
    expect(await nonces.use(spent)).toBe(true);
    expect(await gate.run(ip, spent)).toEqual<GateOutcome>({ kind: 'replay' });
    const again = use();
    expect(await gate.run(ip, again)).toEqual<GateOutcome>({ kind: 'passed' });
    expect(await gate.run(ip, again)).toEqual<GateOutcome>({ kind: 'replay' });
    // One key token spent (the passed request): two left of the burst of 3.
    expect(await requests.take(`key:${apiKey}`)).toBe(0);
    expect(await requests.take(`key:${apiKey}`)).toBe(0);
    expect(await requests.exhausted(`key:${apiKey}`)).toBeGreaterThan(0);
  });

  it('refuses with the key budget spent after spending the nonce, as the per-key limit after authentication', async () => {
    for (let i = 0; i < RATE.burst; i++) expect(await requests.take(`key:${apiKey}`)).toBe(0);
    const wait = await requests.exhausted(`key:${apiKey}`);
    const refused = use();
    expect(await gate.run(ip, refused)).toEqual<GateOutcome>({ kind: 'key-limited', retryAfter: wait });
    expect(await nonces.use(refused)).toBe(false);
  });

  it('gathers the requests of one turn into one script, each seeing the buckets as the requests before it left them', async () => {
    const evalsha = jest.spyOn(redis, 'evalsha');
    const uses = [use(), use(), use(), use(), use()];
    const outcomes = await Promise.all(uses.map((u) => gate.run(ip, u)));
    expect(evalsha).toHaveBeenCalledTimes(1);
    // Burst 3: three pass, spending the IP's three tokens; the last two meet the IP's limit, as separate scripts would.
    const wait = await requests.exhausted(`ip:${ip}`);
    expect(wait).toBeGreaterThan(0);
    expect(outcomes).toEqual<GateOutcome[]>([
      { kind: 'passed' },
      { kind: 'passed' },
      { kind: 'passed' },
      { kind: 'ip-limited', retryAfter: wait },
      { kind: 'ip-limited', retryAfter: wait },
    ]);
    // The passed requests' nonces are spent, the refused ones' are not; the key's three tokens are spent.
    for (const [i, u] of uses.entries()) expect(await nonces.use(u)).toBe(i >= 3);
    // Written once, as three separate takes leave it: full 3 × 100 s from now, kept a second longer.
    const ttl = await redis.pttl(bucketKey('requests', `ip:${ip}`));
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(301_000);
    expect(await requests.exhausted(`key:${apiKey}`)).toBeGreaterThan(0);
  });

  it('answers the second of two requests with one nonce in one turn as a replay, spending one key token', async () => {
    const twice = use();
    const other = use();
    expect(await Promise.all([gate.run(ip, twice), gate.run(ip, twice), gate.run(ip, other)])).toEqual<
      GateOutcome[]
    >([{ kind: 'passed' }, { kind: 'replay' }, { kind: 'passed' }]);
    // Two key tokens spent (the two passed requests): one left of the burst of 3. The replay spent an IP token.
    expect(await requests.take(`key:${apiKey}`)).toBe(0);
    expect(await requests.exhausted(`key:${apiKey}`)).toBeGreaterThan(0);
    expect(await requests.exhausted(`ip:${ip}`)).toBeGreaterThan(0);
  });

  it('keeps the budgets of different IPs and keys in one turn apart', async () => {
    const otherIp = `10.1.0.${Math.floor(Math.random() * 250) + 1}`;
    const otherKey = randomUUID();
    for (let i = 0; i < RATE.burst; i++) expect(await requests.take(`key:${apiKey}`)).toBe(0);
    const theirs = { ...use(), apiKey: otherKey };
    const outcomes = await Promise.all([gate.run(ip, use()), gate.run(otherIp, theirs), gate.run(ip, use())]);
    expect(outcomes.map((o) => o.kind)).toEqual(['key-limited', 'passed', 'key-limited']);
    // The other key and IP spent one token each: two left.
    expect(await requests.take(`key:${otherKey}`)).toBe(0);
    expect(await requests.take(`key:${otherKey}`)).toBe(0);
    expect(await requests.exhausted(`key:${otherKey}`)).toBeGreaterThan(0);
    expect(await requests.take(`ip:${otherIp}`)).toBe(0);
    expect(await requests.take(`ip:${otherIp}`)).toBe(0);
    expect(await requests.exhausted(`ip:${otherIp}`)).toBeGreaterThan(0);
    // Our IP spent two tokens (both key-limited requests passed its limit first): one left.
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    expect(await requests.exhausted(`ip:${ip}`)).toBeGreaterThan(0);
  });

  it('keeps a bucket as one number that refills at the rate and expires once full again, as the in-process bucket', async () => {
    const fast = new RedisRateLimiter(new RedisBatch(redis), 'requests', { perSecond: 20, burst: 2 });
    const key = `key:${apiKey}`;
    expect(await fast.take(key)).toBe(0);
    expect(await fast.take(key)).toBe(0);
    expect(await fast.take(key)).toBe(1);
    expect(await redis.type(bucketKey('requests', key))).toBe('string');
    // Full again 100 ms after the two tokens were taken (50 ms each); the record lasts until then plus a second.
    const ttl = await redis.pttl(bucketKey('requests', key));
    expect(ttl).toBeGreaterThan(1_000);
    expect(ttl).toBeLessThanOrEqual(1_100);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await fast.take(key)).toBe(0);
    expect(await fast.exhausted(key)).toBe(1);
  });

  it('changes nothing when it runs past its deadline (a hung Redis woken up), then learns the clock again', async () => {
    // The offset to Redis's clock is learnt, then our clock steps back a minute: on Redis's clock the script's
    // deadline is a minute gone when it runs, as it would be for a script Redis ran after the client gave up.
    let stepBack = 0;
    const late = new RedisSignedGate(new RedisBatch(redis), RATE, FAILURE_RATE, () => Date.now() - stepBack);
    await late.start();
    stepBack = 60_000;
    const refused = use();
    expect(await late.run(ip, refused)).toEqual<GateOutcome>({ kind: 'too-late' });
    expect(await redis.exists(`nonce:${apiKey}:${refused.nonce}`)).toBe(0);
    expect(await redis.exists(`rl:requests:ip:${ip}`)).toBe(0);
    expect(await redis.exists(bucketKey('requests', `key:${apiKey}`))).toBe(0);
    // The reply carried Redis's clock: the next request counts again.
    expect(await late.run(ip, use())).toEqual<GateOutcome>({ kind: 'passed' });
  });

  it('loads its script again when Redis lost it (restarted, flushed): the request is answered, once', async () => {
    await redis.script('FLUSH');
    const first = use();
    expect(await gate.run(ip, first)).toEqual<GateOutcome>({ kind: 'passed' });
    expect(await gate.run(ip, first)).toEqual<GateOutcome>({ kind: 'replay' });
    // One IP token per request that ran: NOSCRIPT ran nothing.
    expect(await requests.take(`ip:${ip}`)).toBe(0);
    expect(await requests.exhausted(`ip:${ip}`)).toBeGreaterThan(0);
  });

  it('sends requests the separate way until it knows Redis’s clock', async () => {
    const fresh = new RedisSignedGate(new RedisBatch(redis), RATE, FAILURE_RATE);
    const first = use();
    expect(await fresh.run(ip, first)).toEqual<GateOutcome>({ kind: 'too-late' });
    expect(await redis.exists(`nonce:${apiKey}:${first.nonce}`)).toBe(0);
    await fresh.start();
    expect(await fresh.run(ip, first)).toEqual<GateOutcome>({ kind: 'passed' });
  });
});
