import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as nonceLog from '../../migrations/20261201000001_nonce_log';
import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
import { openStore, type Store } from '../../shared/store/store';

const WINDOW_MS = 300_000;

/**
 * A SQLite store's nonces: an append-only log, known in memory by each process. What must hold: a nonce spent
 * through one process is refused through any other on the same store, in its next batch and after a restart; one
 * whose time ran out is accepted again; an upgrade keeps the window's nonces from the earlier table.
 */
describe('SQLite nonce log', () => {
  let dataDir: string;
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const store = await openStore({ databaseUrl: '', dataDir });
    opened.push(store);
    return store;
  };
  const nonce = (): string => randomBytes(12).toString('hex');
  const use = (apiKey: string, n = nonce(), expiresAt = Date.now() + WINDOW_MS): NonceUse => ({
    apiKey,
    nonce: n,
    expiresAt,
  });

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-nonce-log-'));
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses through another process what one spent, both ways, and after a restart', async () => {
    const key = randomUUID();
    const [a, b] = [await open(), await open()];
    const [first, second, third] = [use(key), use(key), use(key)];
    expect(await a.nonces.useMany([first], Date.now())).toEqual([true]);
    expect(await b.nonces.useMany([first, second, second], Date.now())).toEqual([false, true, false]);
    expect(await a.nonces.useMany([second, third], Date.now())).toEqual([false, true]);
    // Another key may use the same nonce.
    expect(await b.nonces.useMany([use(randomUUID(), third.nonce)], Date.now())).toEqual([true]);
    await a.close();
    await b.close();
    opened.splice(0);
    const restarted = await open();
    expect(await restarted.nonces.useMany([first, second, third, use(key)], Date.now())).toEqual([
      false,
      false,
      false,
      true,
    ]);
  });

  it('accepts a nonce again once its time ran out, purged or not, and purges only what ran out', async () => {
    const [a, b] = [await open(), await open()];
    const key = randomUUID();
    const now = Date.now();
    const short = use(key, nonce(), now + 1_000);
    const long = use(key);
    expect(await a.nonces.useMany([short, long], now)).toEqual([true, true]);
    expect(await b.nonces.useMany([short], now + 999)).toEqual([false]);
    // Past its time: accepted again (spent anew), on either process.
    const again = use(key, short.nonce, now + 1_000 + WINDOW_MS);
    expect(await b.nonces.useMany([again], now + 1_000)).toEqual([true]);
    expect(await a.nonces.useMany([again], now + 1_001)).toEqual([false]);
    expect(await a.nonces.records(short.nonce)).toBe(2);
    expect(await a.nonces.purgeExpired(now + 1_000)).toBe(1);
    expect(await a.nonces.records(short.nonce)).toBe(1);
    expect(await a.nonces.records(long.nonce)).toBe(1);
    expect(await b.nonces.useMany([long], now + 2_000)).toEqual([false]);
  });

  it('never hands out a log id again after a purge emptied the log: another process still sees every nonce', async () => {
    const [a, b] = [await open(), await open()];
    const key = randomUUID();
    const now = Date.now();
    expect(await a.nonces.useMany([use(key, nonce(), now + 10), use(key, nonce(), now + 10)], now)).toEqual([
      true,
      true,
    ]);
    expect(await b.nonces.useMany([use(key)], now)).toEqual([true]);
    // Every record purged (a clock far ahead): the log is empty, and b appends next.
    expect(await a.nonces.purgeExpired(now + 10 * WINDOW_MS)).toBe(3);
    const later = use(key);
    expect(await b.nonces.useMany([later], now)).toEqual([true]);
    expect(await a.nonces.useMany([later], now)).toEqual([false]);
  });

  it('forgets what ran out while it keeps learning (memory stays bounded), deciding as before', async () => {
    const store = await open();
    const key = randomUUID();
    const start = Date.now();
    // 10,000 nonces, each used for 1 s, one batch of 100 every simulated 100 ms.
    for (let i = 0; i < 100; i++) {
      const now = start + i * 100;
      const batch = Array.from({ length: 100 }, () => use(key, nonce(), now + 1_000));
      expect(await store.nonces.useMany(batch, now)).toEqual(batch.map(() => true));
      if (i === 99)
        expect(await store.nonces.useMany(batch.slice(0, 3), now + 999)).toEqual([false, false, false]);
    }
    const kept = (store.nonces as unknown as { log: { usedUntil: Map<string, number> } }).log.usedUntil;
    // Last asked 999 ms after the last batch: only that batch's nonces are still in their time, and all that is kept.
    expect(kept.size).toBe(100);
  });

  it('carries over, on upgrade, the nonces the earlier table held inside their window', async () => {
    const store = await open();
    const key = randomUUID();
    const [kept, ranOut] = [nonce(), nonce()];
    await nonceLog.down(store.knex);
    await store.knex('request_nonces').insert([
      { api_key: key, nonce: kept, expires_at: Date.now() + WINDOW_MS, claim: 'earlier' },
      { api_key: key, nonce: ranOut, expires_at: Date.now() - 1, claim: 'earlier' },
    ]);
    await nonceLog.up(store.knex);
    expect(await store.knex('request_nonces').count({ n: '*' })).toEqual([{ n: 0 }]);
    const upgraded = await open();
    expect(await upgraded.nonces.useMany([use(key, kept), use(key, ranOut)], Date.now())).toEqual([
      false,
      true,
    ]);
  });

  it("hands the window's nonces back to the earlier table when the migration is rolled back", async () => {
    const store = await open();
    const key = randomUUID();
    const spent = use(key);
    const brief = use(key, nonce(), Date.now() + 5);
    expect(await store.nonces.useMany([spent, brief], Date.now())).toEqual([true, true]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await nonceLog.down(store.knex);
    const rows = (await store.knex('request_nonces').select('api_key', 'nonce', 'expires_at')) as Array<{
      api_key: string;
      nonce: string;
      expires_at: number;
    }>;
    expect(rows).toEqual([{ api_key: key, nonce: spent.nonce, expires_at: spent.expiresAt }]);
    await nonceLog.up(store.knex);
  });
});
