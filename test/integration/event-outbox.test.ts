import { randomUUID } from 'node:crypto';
import { newPendingLimitOrder } from '../../shared/domain/limit-order';
import { recordEvents } from '../../shared/events/event-outbox';
import { LIMIT_ORDER_EVENTS } from '../../shared/events/resource-kinds';
import { openStore, type Store } from '../../shared/store/store';
import { limitOrderBody } from '../factories/limit-orders';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const DAY_MS = 86_400_000;

function pendingOrder(apiKey: string) {
  const body = limitOrderBody({ expired: String(Date.now() + DAY_MS) });
  return newPendingLimitOrder(randomUUID(), apiKey, body, Date.now());
}

describeEachStore('the event outbox', (kind) => {
  let target: StoreTarget;
  let store: Store;
  const apiKey = randomUUID();

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore(target);
  });

  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  async function eventsOf(orderId: string): Promise<Array<{ status: string; id: string }>> {
    await store.events.publish();
    const all = await store.events.listForKey(apiKey, 0, 10_000, null);
    return all
      .filter((e) => e.resourceId === orderId)
      .map((e) => ({ id: e.id, status: (JSON.parse(e.body) as { data: { status: string } }).data.status }));
  }

  it('sends one event per change of an evented field, none for a lease or a repeat', async () => {
    const order = pendingOrder(apiKey);
    await store.limitOrders.insert(order);
    const [claimed] = await store.keeperLimitOrders.claim([order.id], 'keeper-a', 60_000, Date.now());
    expect(claimed?.status).toBe('executing');
    // A lease renewal and a repeated evaluation change nothing an event shows.
    await store.knex.transaction((trx) => recordEvents(trx, LIMIT_ORDER_EVENTS, [order.id], Date.now()));
    expect(await store.keeperLimitOrders.releaseLease(order.id, 'keeper-a', Date.now())).toBe(true);
    expect((await eventsOf(order.id)).map((e) => e.status)).toEqual(['pending', 'executing', 'pending']);
  });

  it('publishes an event whose transaction commits late after those already read, never skipping it', async () => {
    const early = pendingOrder(apiKey);
    const late = pendingOrder(apiKey);
    await store.limitOrders.insert(early);
    await store.events.publish();
    const cursor = await store.events.lastPublishedSeq();
    if (kind === 'mysql') {
      // The late order's transaction takes its insertion position first and commits last.
      let commitLate!: () => void;
      const lateCommitted = store.knex.transaction(async (trx) => {
        await trx('limit_orders').insert({ ...(await rowOf(early.id)), id: late.id, event_key: null });
        await recordEvents(trx, LIMIT_ORDER_EVENTS, [late.id], Date.now());
        await new Promise<void>((resolve) => (commitLate = resolve));
      });
      await new Promise((r) => setTimeout(r, 200));
      const between = pendingOrder(apiKey);
      await store.limitOrders.insert(between);
      await store.events.publish();
      const seen = await store.events.listForKey(apiKey, cursor, 100, null);
      expect(seen.map((e) => e.resourceId)).toEqual([between.id]);
      commitLate();
      await lateCommitted;
      await store.events.publish();
      const after = await store.events.listForKey(apiKey, seen[seen.length - 1]!.publishedSeq, 100, null);
      expect(after.map((e) => e.resourceId)).toEqual([late.id]);
    } else {
      // SQLite has one writer at a time: commit order is insertion order, and a reader sees them in it.
      await store.limitOrders.insert(late);
      await store.events.publish();
      const seen = await store.events.listForKey(apiKey, cursor, 100, null);
      expect(seen.map((e) => e.resourceId)).toEqual([late.id]);
    }
  });

  it('resolves the delivery position of a key’s own published event only', async () => {
    const order = pendingOrder(apiKey);
    await store.limitOrders.insert(order);
    const [event] = await eventsOf(order.id);
    expect(await store.events.publishedSeqOf(apiKey, event!.id)).toBeGreaterThan(0);
    expect(await store.events.publishedSeqOf(randomUUID(), event!.id)).toBeUndefined();
  });

  async function rowOf(id: string): Promise<Record<string, unknown>> {
    return store.knex('limit_orders').where({ id }).first();
  }
});
