import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { Registry } from 'prom-client';
import { keeperHealth, type KeeperHealthParts } from '../../keeper/keeper-health';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { BlockFeedWatch } from '../../keeper/watch/block-feed-watch';
import { createLogger } from '../../shared/log/create-logger';
import { createAdminServer } from '../../shared/metrics/admin-server';
import type { MarketFeed } from '../../shared/metrics/chain-readiness';

const STALL_MS = 30_000;
const CHAINS = [1, 10];

/** Pool state per chain: fresh, stale (for a reason) or not loaded. */
function marketOf(states: Record<number, 'fresh' | 'stale' | 'loading'>): MarketFeed {
  return {
    isQuotable: (chainId) => chainId in states,
    blockNumber: (chainId) => (states[chainId] === 'loading' ? undefined : 100),
    freshness: (chainId) =>
      states[chainId] === 'fresh'
        ? { stale: false, ageMs: 500, blocksBehind: 0 }
        : states[chainId] === 'stale'
          ? { stale: true, reason: 'age', ageMs: 45_000, blocksBehind: 0 }
          : { stale: true, reason: 'no-state', ageMs: Infinity, blocksBehind: 0 },
  };
}

/** The keeper's parts: a feed watch per chain (instant mining unless given a block time), a store, a market. */
function keeperParts(over: Partial<KeeperHealthParts> = {}) {
  let clock = 1_000_000;
  const metrics = new KeeperMetrics();
  const watches = CHAINS.map(
    (chainId) =>
      new BlockFeedWatch(chainId, metrics, createLogger('silent', 'test'), {
        stallMs: STALL_MS,
        expectedBlockTimeMs: chainId === 10 ? 2_000 : undefined,
      }),
  );
  let stopping = false;
  const parts: KeeperHealthParts = {
    storeAnswers: () => Promise.resolve(true),
    feeds: () => watches,
    market: marketOf({ 1: 'fresh', 10: 'fresh' }),
    chainIds: CHAINS,
    stopping: () => stopping,
    stalledAtMostMs: STALL_MS,
    now: () => clock,
    ...over,
  };
  return {
    parts,
    watches,
    /** Every chain's tick at the current time, each on its own head. */
    tick(heads: Record<number, number>, pending = 0) {
      watches.forEach((w) => w.observe(clock, heads[w.chainId]!, pending));
    },
    advance(ms: number) {
      clock += ms;
    },
    stop() {
      stopping = true;
    },
  };
}

describe('keeperHealth', () => {
  it('is healthy and ready on an idle instant-mining chain and a chain that makes its blocks', async () => {
    const k = keeperParts();
    const health = keeperHealth(k.parts);
    for (let i = 0; i < 120; i++) {
      // Chain 1 idle (instant mining, no transaction), chain 10 a block every 2 s: ten minutes.
      k.tick({ 1: 7, 10: 100 + i });
      k.advance(5_000);
    }
    expect(await health.healthy()).toBe(true);
    expect(health.ready(undefined)).toEqual({
      ready: true,
      chains: [
        { chainId: 1, status: 'fresh', blockNumber: 100, ageSeconds: 0, blocksBehind: 0 },
        { chainId: 10, status: 'fresh', blockNumber: 100, ageSeconds: 0, blocksBehind: 0 },
      ],
    });
  });

  it('turns unhealthy only when a stalled feed stays stalled beyond the bound, and healthy again with blocks', async () => {
    const k = keeperParts();
    const health = keeperHealth(k.parts);
    k.tick({ 1: 7, 10: 100 });
    // Chain 10's blocks stop: stalled after 30 s of silence (the alert), unhealthy 30 s later still.
    k.advance(31_000);
    k.tick({ 1: 7, 10: 100 });
    expect(k.watches[1]!.stalled).toBe(true);
    expect(await health.healthy()).toBe(true);
    k.advance(STALL_MS);
    k.tick({ 1: 7, 10: 100 });
    expect(await health.healthy()).toBe(true);
    k.advance(1);
    expect(await health.healthy()).toBe(false);
    k.tick({ 1: 7, 10: 101 });
    expect(await health.healthy()).toBe(true);
  });

  it('is unhealthy when its transactions wait on an instant-mining chain whose blocks stopped', async () => {
    const k = keeperParts();
    const health = keeperHealth(k.parts);
    k.tick({ 1: 7, 10: 100 }, 1);
    for (let i = 1; i <= 61; i++) {
      k.advance(1_000);
      k.tick({ 1: 7, 10: 100 + i }, 1);
    }
    expect(k.watches[0]!.stalled).toBe(true);
    expect(await health.healthy()).toBe(true);
    k.advance(1_000);
    k.tick({ 1: 7, 10: 200 }, 1);
    expect(await health.healthy()).toBe(false);
  });

  it('is unhealthy when the store does not answer (shared/store/store-watch.ts times it), or the keeper is stopping', async () => {
    const refusing = keeperParts({ storeAnswers: () => Promise.resolve(false) });
    expect(await keeperHealth(refusing.parts).healthy()).toBe(false);
    const stopping = keeperParts();
    stopping.stop();
    expect(await keeperHealth(stopping.parts).healthy()).toBe(false);
  });

  it('is not ready while a chain is stale or loading, and answers for one chain', () => {
    const k = keeperParts({ market: marketOf({ 1: 'fresh', 10: 'stale' }) });
    const health = keeperHealth(k.parts);
    expect(health.ready(undefined)).toMatchObject({
      ready: false,
      chains: [
        { chainId: 1, status: 'fresh' },
        { chainId: 10, status: 'stale', ageSeconds: 45 },
      ],
    });
    expect(health.ready(1)).toMatchObject({ ready: true, chains: [{ chainId: 1, status: 'fresh' }] });
    const loading = keeperHealth(keeperParts({ market: marketOf({ 1: 'fresh', 10: 'loading' }) }).parts);
    expect(loading.ready(10)).toMatchObject({ ready: false, chains: [{ chainId: 10, status: 'loading' }] });
  });

  describe('served by the admin server', () => {
    let server: http.Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    });

    async function serve(parts: KeeperHealthParts): Promise<string> {
      const health = keeperHealth(parts);
      server = createAdminServer(new Registry(), health);
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }

    it('answers /healthz 200 and /readyz 200 when all is well, 503 on both when the store is down', async () => {
      const up = await serve(keeperParts().parts);
      expect((await fetch(`${up}/healthz`)).status).toBe(200);
      const ready = await fetch(`${up}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', store: 'ok', ready: true });
      await new Promise<void>((resolve) => server!.close(() => resolve()));

      const down = await serve(keeperParts({ storeAnswers: () => Promise.resolve(false) }).parts);
      const health = await fetch(`${down}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'unavailable' });
      const notReady = await fetch(`${down}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ status: 'not ready', store: 'unavailable' });
    });

    it('names the store, not the chains, when only the store is down, and a stalled feed without blaming the store', async () => {
      const storeDown = await serve(keeperParts({ storeAnswers: () => Promise.resolve(false) }).parts);
      expect(await (await fetch(`${storeDown}/readyz`)).json()).toMatchObject({
        status: 'not ready',
        store: 'unavailable',
        chains: [
          { chainId: 1, status: 'fresh' },
          { chainId: 10, status: 'fresh' },
        ],
      });
      await new Promise<void>((resolve) => server!.close(() => resolve()));

      const k = keeperParts();
      // Chain 10's blocks stop: stalled after 31 s, past the bound a stall later.
      k.tick({ 1: 7, 10: 100 });
      k.advance(31_000);
      k.tick({ 1: 7, 10: 100 });
      k.advance(STALL_MS + 1);
      const stalled = await serve(k.parts);
      const res = await fetch(`${stalled}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'not ready', store: 'ok' });
    });
  });
});
