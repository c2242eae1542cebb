import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordEvents } from '../../shared/events/event-outbox';
import { LIMIT_ORDER_EVENTS } from '../../shared/events/resource-kinds';
import { limitOrderToRow } from '../../shared/store/repositories/limit-order-rows';
import { SQLITE_FILE_NAME } from '../../shared/store/create-knex';
import { openStore, type Store } from '../../shared/store/store';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_AUTOCHECKPOINT_PAGES } from '../../shared/store/wal-checkpointer';
import {
  TOKEN_CACHE_TTL_MS,
  TokensRepository,
  type TokenRecord,
} from '../../shared/store/repositories/tokens-repository';
import { storedLimitOrder, STORED_API_KEY } from '../factories/stored-orders';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const token = (address: string, symbol: string): TokenRecord => ({
  chainId: 999,
  address,
  symbol,
  name: symbol,
  decimals: 18,
  native: false,
});

/**
 * The store's hot paths for the gateway: group-committed order creates, batched reads by id, the token and priced
 * pair caches, and nonces; each must answer exactly as the plain one-at-a-time reads and writes did.
 */
describeEachStore('store hot paths', (kind) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore(target);
  });
  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  async function eventsOf(ids: string[]): Promise<Map<string, number>> {
    const rows: Array<{ resource_id: string }> = await store.knex('events').whereIn('resource_id', ids);
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.resource_id, (counts.get(row.resource_id) ?? 0) + 1);
    return counts;
  }

  it('commits concurrent creates together, each with its row and its one pending event, readable once acknowledged', async () => {
    const orders = Array.from({ length: 40 }, (_, i) =>
      storedLimitOrder({ createdAt: 1_800_000_000_000 + i }),
    );
    const acknowledged = await Promise.all(
      orders.map(async (order) => {
        await store.limitOrders.insert(order);
        // Acknowledged only once committed: another connection (the fast reader) sees the row.
        return store.limitOrders.findForKey(STORED_API_KEY, order.id);
      }),
    );
    expect(acknowledged).toEqual(orders);
    const events = await eventsOf(orders.map((o) => o.id));
    for (const order of orders) expect(events.get(order.id)).toBe(1);
    const bodies: Array<{ resource_id: string; created_at: number | string; body: string }> = await store
      .knex('events')
      .whereIn(
        'resource_id',
        orders.map((o) => o.id),
      );
    for (const row of bodies) {
      const order = orders.find((o) => o.id === row.resource_id)!;
      expect(Number(row.created_at)).toBe(order.createdAt);
      expect((JSON.parse(row.body) as { data: { id: string; status: string } }).data).toMatchObject({
        id: order.id,
        status: 'pending',
      });
    }
  });

  it('fails only the bad order of a batch: the others are committed, each with its event', async () => {
    const existing = storedLimitOrder();
    await store.limitOrders.insert(existing);
    const good = Array.from({ length: 5 }, () => storedLimitOrder());
    const duplicate = { ...storedLimitOrder(), id: existing.id };
    const results = await Promise.allSettled(
      [good[0]!, good[1]!, duplicate, good[2]!, good[3]!, good[4]!].map((o) => store.limitOrders.insert(o)),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    for (const order of good)
      expect(await store.limitOrders.findForKey(STORED_API_KEY, order.id)).toEqual(order);
    // The existing order is untouched by the duplicate, and has still its one event.
    expect(await store.limitOrders.findForKey(STORED_API_KEY, existing.id)).toEqual(existing);
    const events = await eventsOf([existing.id, ...good.map((o) => o.id)]);
    expect([...events.values()]).toEqual(new Array(6).fill(1));
  });

  it.each([
    ['without a fee cap', {}],
    ['with a fee cap and a trigger written with decimals', { maxFeeBps: 25, priceTrigger: '3500.125' }],
  ])(
    'writes a new order’s row, event and mark exactly as recordEvents after an insert does (%s)',
    async (_, over) => {
      const created = storedLimitOrder(over);
      const reference = { ...created, id: randomUUID() };
      await store.limitOrders.insert(created);
      await store.knex.transaction(async (trx) => {
        await trx('limit_orders').insert(limitOrderToRow(reference));
        await recordEvents(trx, LIMIT_ORDER_EVENTS, [reference.id], reference.createdAt);
      });
      const rowOf = async (id: string) => {
        const row = (await store.knex('limit_orders').where({ id }).first()) as Record<string, unknown>;
        return { ...row, id: 'same' };
      };
      expect(await rowOf(created.id)).toEqual(await rowOf(reference.id));
      const eventOf = async (id: string) => {
        const rows = (await store.knex('events').where({ resource_id: id })) as Array<
          Record<string, unknown>
        >;
        expect(rows).toHaveLength(1);
        const row = rows[0]!;
        const parsed = JSON.parse(String(row.body)) as { id: string; data: { id: string } };
        expect(parsed.id).toBe(row.id);
        expect(row.resource_id).toBe(id);
        // Everything but the ids and the sequence number (the events' own and their orders') is the same.
        return {
          ...row,
          seq: 'any',
          id: 'same',
          resource_id: 'same',
          body: { ...parsed, id: 'same', data: { ...parsed.data, id: 'same' } },
        };
      };
      expect(await eventOf(created.id)).toEqual(await eventOf(reference.id));
    },
  );

  if (kind === 'sqlite') {
    it('copies the WAL into the database file from its worker thread, not from the store connection', async () => {
      const [setting] = (await store.knex.raw('pragma wal_autocheckpoint')) as Array<Record<string, number>>;
      expect(Object.values(setting!)[0]).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const file = path.join(target.dataDir, SQLITE_FILE_NAME);
      const before = statSync(file).size;
      const key = randomUUID();
      // Far fewer pages than the connection's own automatic checkpoint: only the worker copies them.
      for (let batch = 0; batch < 20; batch += 1) {
        const uses = Array.from({ length: 200 }, (_, i) => ({
          apiKey: key,
          nonce: `${batch}-${i}-${randomUUID()}`,
          expiresAt: Date.now() + 60_000,
        }));
        await store.nonces.useMany(uses, Date.now());
      }
      const deadline = Date.now() + 5 * CHECKPOINT_INTERVAL_MS + 2_000;
      while (statSync(file).size <= before && Date.now() < deadline) await sleep(CHECKPOINT_INTERVAL_MS);
      expect(statSync(file).size).toBeGreaterThan(before);
    });

    it('puts SQLite back to synchronous=NORMAL after an order batch (FULL only for its commit)', async () => {
      await store.limitOrders.insert(storedLimitOrder());
      const [row] = (await store.knex.raw('pragma synchronous')) as Array<{ synchronous: number }>;
      expect(row!.synchronous).toBe(1);
    });
  }

  it('reads many orders at once by id, each only for its own key, as one read each would', async () => {
    const mine = Array.from({ length: 10 }, () => storedLimitOrder());
    const otherKey = randomUUID();
    const theirs = storedLimitOrder({ apiKey: otherKey });
    await Promise.all([...mine, theirs].map((o) => store.limitOrders.insert(o)));
    const reads = await Promise.all([
      ...mine.map((o) => store.limitOrders.findForKey(STORED_API_KEY, o.id)),
      store.limitOrders.findForKey(STORED_API_KEY, theirs.id),
      store.limitOrders.findForKey(otherKey, theirs.id),
      store.limitOrders.findForKey(otherKey, mine[0]!.id),
      store.limitOrders.findForKey(STORED_API_KEY, randomUUID()),
      store.limitOrders.findForKey(STORED_API_KEY, mine[1]!.id.toUpperCase()),
      store.limitOrders.findForKey(STORED_API_KEY, mine[2]!.id),
    ]);
    expect(reads).toEqual([...mine, undefined, theirs, undefined, undefined, undefined, mine[2]]);
  });

  it('finds a token in any casing from the cached list, and sees its own replacement of the list at once', async () => {
    const a = '0x' + 'aB'.repeat(20);
    const b = '0x' + 'Cd'.repeat(20);
    await store.tokens.replaceChainTokens(999, [token(a, 'AAA')]);
    expect((await store.tokens.find(999, a.toLowerCase()))?.symbol).toBe('AAA');
    expect(await store.tokens.find(999, b)).toBeUndefined();
    await store.tokens.replaceChainTokens(999, [token(b, 'BBB')]);
    expect(await store.tokens.find(999, a)).toBeUndefined();
    expect(await store.tokens.find(999, b.toUpperCase().replace('0X', '0x'))).toEqual(token(b, 'BBB'));
  });

  it('sees another process’s token list within TOKEN_CACHE_TTL_MS', async () => {
    let now = Date.now();
    const cached = new TokensRepository(store.knex, () => now);
    const c = '0x' + 'eF'.repeat(20);
    await store.tokens.replaceChainTokens(998, []);
    expect(await cached.find(998, c)).toBeUndefined();
    // Another repository (another api process) writes the list: this one still answers from its copy…
    await store.tokens.replaceChainTokens(998, [{ ...token(c, 'CCC'), chainId: 998 }]);
    expect(await cached.find(998, c)).toBeUndefined();
    // …until its copy is TOKEN_CACHE_TTL_MS old.
    now += TOKEN_CACHE_TTL_MS;
    expect((await cached.find(998, c))?.symbol).toBe('CCC');
  });

  it('remembers a priced pair, and asks the store again for a pair without a price until it has one', async () => {
    const chainId = 77;
    expect(await store.referencePrices.hasPair(chainId, 'XXX', 'YYY')).toBe(false);
    await store.referencePrices.upsert([
      { chainId, baseSymbol: 'YYY', quoteSymbol: 'XXX', price: '2', blockNumber: null, updatedAt: 1 },
    ]);
    expect(await store.referencePrices.hasPair(chainId, 'XXX', 'YYY')).toBe(true);
    expect(await store.referencePrices.hasPair(chainId, 'YYY', 'XXX')).toBe(true);
    expect(await store.referencePrices.hasPair(chainId, 'XXX', 'ZZZ')).toBe(false);
  });

  it('spends each nonce once in a batch, refuses a repeat and a replay, and takes over an expired record', async () => {
    const key = randomUUID();
    const now = 1_000_000;
    const uses = [
      { apiKey: key, nonce: 'a'.repeat(24), expiresAt: now + 1000 },
      { apiKey: key, nonce: 'b'.repeat(24), expiresAt: now + 1000 },
      { apiKey: key, nonce: 'a'.repeat(24), expiresAt: now + 1000 },
      { apiKey: randomUUID(), nonce: 'a'.repeat(24), expiresAt: now + 1000 },
    ];
    expect(await store.nonces.useMany(uses, now)).toEqual([true, true, false, true]);
    expect(await store.nonces.useMany([uses[1]!], now + 999)).toEqual([false]);
    // Expired at now + 1000 and not purged: the record is taken over, once.
    const later = { ...uses[1]!, expiresAt: now + 5000 };
    expect(await store.nonces.useMany([later, later], now + 1000)).toEqual([true, false]);
    expect(await store.nonces.useMany([later], now + 1001)).toEqual([false]);
  });
});
