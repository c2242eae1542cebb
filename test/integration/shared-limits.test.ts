import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as passphraseHash from '../../api/gateway/passphrase-hash';
import { decodeValueInfo, signRequest, type Credentials } from '../../shared/signing/request-signature';
import { newAccountClient, rawRequest } from '../helpers/api-client';
import { startApi, type RunningApi } from '../helpers/api-harness';
import { describeWithRedis, freshRedisPrefix } from '../helpers/redis-probe';
import { requestFrom } from '../helpers/request-from';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const FORBIDDEN = '{"message":"Forbidden"}';
const TOO_MANY = '{"message":"Too Many Requests"}';
/** Verification could not run (Redis did not answer): the gateway's 503, with a hint when to retry. */
const UNAVAILABLE = '{"message":"Service Unavailable"}';
const BURST = 10;
/** One token per 100 s: nothing refills during a test. */
const SLOW_REFILL = '0.01';

const signedChains = (credentials: Credentials) =>
  signRequest(credentials, { method: 'GET', url: '/api/v1/chains' }).headers;

let block = 10;
function addresses(count: number): string[] {
  block += 1;
  return Array.from({ length: count }, (_, i) => `127.1.${block}.${i + 1}`);
}

const counterValue = async (metric: { get(): Promise<{ values: Array<{ value: number }> }> }) =>
  (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);

describeWithRedis('limits and nonces shared through Redis', (redisUrl) => {
  describeEachStore('two api processes on one store and one Redis', (kind) => {
    let target: StoreTarget;
    /** Without Redis and with generous limits: creates the accounts the tests sign with. */
    let open: RunningApi;
    let redis: Redis;
    const started: RunningApi[] = [];

    /** Two api instances (each its own store connection, Redis client and caches) sharing one key prefix. */
    const startPair = async (env: Record<string, string> = {}): Promise<[RunningApi, RunningApi, string]> => {
      const prefix = freshRedisPrefix();
      const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, ...env };
      const pair: [RunningApi, RunningApi] = [await startApi(target, shared), await startApi(target, shared)];
      started.push(...pair);
      return [...pair, prefix];
    };

    beforeAll(async () => {
      target = await createStoreTarget(kind);
      open = await startApi(target);
      redis = new Redis(redisUrl);
    });
    afterAll(async () => {
      for (const api of started) await api.close();
      await open?.close();
      redis?.disconnect();
      await target?.cleanup();
    });

    it("holds a key's budget in total: 20 requests spread over both processes, exactly 10 pass", async () => {
      const [a, b] = await startPair({ RATE_LIMIT_PER_SECOND: SLOW_REFILL, RATE_LIMIT_BURST: String(BURST) });
      const client = await newAccountClient(open.baseUrl, 'shared-key-budget');
      // Each request from its own IP: only the key's budget can refuse them.
      const answers = await Promise.all(
        addresses(2 * BURST).map((from, i) =>
          requestFrom(from, (i % 2 ? a : b).baseUrl, 'GET', '/chains', signedChains(client.credentials)),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(BURST);
      expect(answers.filter((r) => r.status === 429 && r.text === TOO_MANY)).toHaveLength(BURST);
    });

    it("holds an IP's budget in total across both processes", async () => {
      const [a, b] = await startPair({ RATE_LIMIT_PER_SECOND: SLOW_REFILL, RATE_LIMIT_BURST: String(BURST) });
      const [from] = addresses(1);
      const statuses = [];
      for (let i = 0; i < BURST + 4; i++) {
        const res = await requestFrom(
          from!,
          (i % 2 ? a : b).baseUrl,
          'POST',
          '/accounts',
          { 'content-type': 'application/json' },
          '{"name":"x","password":"y"}',
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(BURST).fill(400), ...Array(4).fill(429)]);
    });

    it('holds the budget of refused authentications per IP across both processes', async () => {
      const [a, b] = await startPair({
        AUTH_FAILURE_LIMIT_PER_SECOND: SLOW_REFILL,
        AUTH_FAILURE_LIMIT_BURST: '4',
      });
      const client = await newAccountClient(open.baseUrl, 'shared-failure-budget');
      const wrong = { ...client.credentials, passphrase: 'not-the-passphrase' };
      const [from] = addresses(1);
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await requestFrom(from!, (i % 2 ? a : b).baseUrl, 'GET', '/chains', signedChains(wrong))).status,
        );
      }
      expect(statuses).toEqual([403, 403, 403, 403]);
      for (const api of [a, b]) {
        const res = await requestFrom(from!, api.baseUrl, 'GET', '/chains', signedChains(client.credentials));
        expect(`${res.status} ${res.text}`).toBe(`429 ${TOO_MANY}`);
      }
    });

    it('refuses on one process a request replayed from the other; the nonce lives in Redis with its window', async () => {
      const [a, b, prefix] = await startPair();
      const client = await newAccountClient(open.baseUrl, 'shared-replay');
      const signed = signRequest(client.credentials, {
        method: 'POST',
        url: '/api/v1/support-chain',
        body: { chainId: 137 },
      });
      const first = await rawRequest(a.baseUrl, 'POST', '/support-chain', {
        headers: signed.headers,
        body: signed.bodyString,
      });
      expect(first.status).toBe(200);
      const replay = await rawRequest(b.baseUrl, 'POST', '/support-chain', {
        headers: signed.headers,
        body: signed.bodyString,
      });
      expect(`${replay.status} ${replay.text}`).toBe(`403 ${FORBIDDEN}`);

      const nonce = decodeValueInfo(signed.headers['x-value-info']!)!.nonce;
      const ttl = await redis.pttl(`${prefix}nonce:${client.credentials.apiKey}:${nonce}`);
      // Remembered until the timestamp leaves the window: at least 300 s, at most 301 s from now.
      expect(ttl).toBeGreaterThan(295_000);
      expect(ttl).toBeLessThanOrEqual(301_000);
      expect(await open.store.nonces.records(nonce)).toBe(0);

      for (let i = 0; i < 5; i++) {
        const headers = signedChains(client.credentials);
        const copies = await Promise.all([
          rawRequest(a.baseUrl, 'GET', '/chains', { headers }),
          rawRequest(b.baseUrl, 'GET', '/chains', { headers }),
        ]);
        expect(copies.map((r) => r.status).sort()).toEqual([200, 403]);
      }
    });

    it('verifies a burst of 100 requests on a new key once per process, and passes exactly the burst in total', async () => {
      const [a, b] = await startPair({ RATE_LIMIT_PER_SECOND: SLOW_REFILL, RATE_LIMIT_BURST: String(BURST) });
      const client = await newAccountClient(open.baseUrl, 'shared-burst');
      const verify = jest.spyOn(passphraseHash, 'verifyPassphrase');
      try {
        const answers = await Promise.all(
          addresses(100).map((from, i) =>
            requestFrom(from, (i % 2 ? a : b).baseUrl, 'GET', '/chains', signedChains(client.credentials)),
          ),
        );
        expect(verify).toHaveBeenCalledTimes(2);
        expect(answers.filter((r) => r.status === 200)).toHaveLength(BURST);
        expect(answers.filter((r) => r.status === 429)).toHaveLength(100 - BURST);
      } finally {
        verify.mockRestore();
      }
    });
  });

  describeEachStore('an api whose Redis stops answering', (kind) => {
    let target: StoreTarget;
    let proxy: TcpProxy;
    let api: RunningApi;
    let credentials: Credentials;

    beforeAll(async () => {
      target = await createStoreTarget(kind);
      const url = new URL(redisUrl);
      proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
      url.port = String(proxy.port);
      api = await startApi(target, {
        REDIS_URL: url.toString(),
        REDIS_KEY_PREFIX: freshRedisPrefix(),
        RATE_LIMIT_PER_SECOND: SLOW_REFILL,
        RATE_LIMIT_BURST: '3',
      });
      const [creator] = addresses(1);
      const res = await requestFrom(
        creator!,
        api.baseUrl,
        'POST',
        '/accounts',
        { 'content-type': 'application/json' },
        '{"name":"redis-outage","password":"outage-password"}',
      );
      const data = (JSON.parse(res.text) as { data: { apiKey: string; secretKey: string } }).data;
      credentials = { apiKey: data.apiKey, secretKey: data.secretKey, passphrase: 'outage-password' };
    });
    afterAll(async () => {
      await api?.close();
      await proxy?.close();
      await target?.cleanup();
    });

    const get = (from: string) => requestFrom(from, api.baseUrl, 'GET', '/chains', signedChains(credentials));
    /** Signs anew until Redis answers again (it reconnects within a second or so), at most 10 s. */
    const statusOnceRecovered = async (from: string) => {
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        await sleep(200);
        status = (await get(from)).status;
      }
      return status;
    };

    it('answers signed requests 503 with Retry-After (verification could not run), keeps limits per process, and recovers', async () => {
      const [before, during, publicIp, after] = addresses(4);
      expect((await get(before!)).status).toBe(200);

      await proxy.cut();
      const refused = await get(during!);
      expect(`${refused.status} ${refused.text}`).toBe(`503 ${UNAVAILABLE}`);
      expect(refused.headers['retry-after']).toBe('5');
      // Public routes still answer, under the in-process insurance buckets with the same budget.
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const res = await requestFrom(
          publicIp!,
          api.baseUrl,
          'POST',
          '/accounts',
          { 'content-type': 'application/json' },
          '{"name":"x","password":"y"}',
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual([400, 400, 400, 429]);
      expect(await counterValue(api.api.metrics.rateLimitFallbacks)).toBeGreaterThan(0);

      await proxy.restore();
      expect(await statusOnceRecovered(after!)).toBe(200);
    });

    it('answers signed requests 503 within about a second when Redis hangs, and serves them again after', async () => {
      const [during, after] = addresses(2);
      proxy.freeze();
      try {
        const started = Date.now();
        const res = await get(during!);
        expect(`${res.status} ${res.text}`).toBe(`503 ${UNAVAILABLE}`);
        expect(res.headers['retry-after']).toBe('5');
        // One command waits out its 1 s timeout; the request's others then fail at once.
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        proxy.thaw();
      }
      expect(await statusOnceRecovered(after!)).toBe(200);
    });
  });

  describeEachStore('an api started while Redis is unreachable', (kind) => {
    let target: StoreTarget;
    let api: RunningApi;
    beforeAll(async () => {
      target = await createStoreTarget(kind);
      // Port 1: nothing listens there, connections are refused at once.
      api = await startApi(target, {
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_KEY_PREFIX: freshRedisPrefix(),
      });
    });
    afterAll(async () => {
      await api?.close();
      await target?.cleanup();
    });

    it('starts, serves public routes, and answers signed ones with the bare 503 and Retry-After', async () => {
      const client = await newAccountClient(api.baseUrl, 'started-without-redis');
      const res = await rawRequest(api.baseUrl, 'GET', '/chains', {
        headers: signedChains(client.credentials),
      });
      expect(`${res.status} ${res.text}`).toBe(`503 ${UNAVAILABLE}`);
      expect(res.headers.get('retry-after')).toBe('5');
    });
  });
});
