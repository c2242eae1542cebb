import { randomUUID } from 'node:crypto';
import type { PublishedEvent } from '../../shared/events/event-types';
import { limitOrderResponse } from '../../shared/domain/limit-order-json';
import { dcaOrderJson } from '../../shared/domain/dca-json';
import type { DiagnosisInput } from '../../shared/domain/diagnosis';
import { openStore, type Store } from '../../shared/store/store';
import {
  STORED_API_KEY,
  STORED_NOW,
  storedDcaOrder,
  storedDcaStrategy,
  storedLimitOrder,
} from '../factories/stored-orders';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const NOT_REACHED: DiagnosisInput = { code: 'PRICE_NOT_REACHED', marketPrice: 3000, priceTrigger: 3500 };
const SHORT: DiagnosisInput = { code: 'ALLOWANCE_SHORT', required: '1515000000000000000', available: '0' };

describeEachStore('order diagnoses in the store', (kind) => {
  let target: StoreTarget;
  let store: Store;
  let seen = 0;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  });

  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  /** The events published since the last call, of the test key. */
  async function newEvents(): Promise<PublishedEvent[]> {
    await store.events.publish();
    const events = await store.events.listForKey(STORED_API_KEY, seen, 1000, null);
    if (events.length) seen = events[events.length - 1]!.publishedSeq;
    return events;
  }

  async function pendingLimitOrder(): Promise<string> {
    const order = storedLimitOrder();
    await store.limitOrders.insert(order);
    return order.id;
  }

  const rowOf = (table: string, id: string) =>
    store.knex(table).select('version', 'updated_at', 'diagnosis').where({ id }).first();

  it('writes a pending limit order’s diagnosis without touching its version or updated_at, and sends its event', async () => {
    const id = await pendingLimitOrder();
    const before = await rowOf('limit_orders', id);
    await newEvents();

    expect(
      await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: NOT_REACHED }], STORED_NOW),
    ).toEqual([id]);

    const after = await rowOf('limit_orders', id);
    expect(Number(after.version)).toBe(Number(before.version));
    expect(Number(after.updated_at)).toBe(Number(before.updated_at));
    const order = (await store.limitOrders.findForKey(STORED_API_KEY, id))!;
    expect(order.diagnosis).toEqual({ ...NOT_REACHED, since: STORED_NOW });
    expect(limitOrderResponse(order).diagnosis).toEqual({
      code: 'PRICE_NOT_REACHED',
      message: 'The market price 3000 has not reached the trigger 3500',
      since: new Date(STORED_NOW).toISOString(),
      marketPrice: 3000,
      priceTrigger: 3500,
    });

    const events = await newEvents();
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([['limit_order.updated', id]]);
    const body = JSON.parse(events[0]!.body) as { data: { diagnosis?: { code: string } } };
    expect(body.data.diagnosis?.code).toBe('PRICE_NOT_REACHED');
  });

  it('writes nothing for the same judgment again, nor for a market price that moved less than 1%', async () => {
    const id = await pendingLimitOrder();
    await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: NOT_REACHED }], STORED_NOW);
    await newEvents();

    expect(
      await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: NOT_REACHED }], STORED_NOW + 1),
    ).toEqual([]);
    const nudged = { ...NOT_REACHED, marketPrice: 3010 };
    expect(await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: nudged }], STORED_NOW + 2)).toEqual(
      [],
    );
    expect((await store.limitOrders.findForKey(STORED_API_KEY, id))!.diagnosis).toEqual({
      ...NOT_REACHED,
      since: STORED_NOW,
    });
    expect(await newEvents()).toEqual([]);
  });

  it('keeps `since` when only the detail changes (no event), and restarts it with a new code (an event)', async () => {
    const id = await pendingLimitOrder();
    await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: NOT_REACHED }], STORED_NOW);
    await newEvents();

    const moved = { ...NOT_REACHED, marketPrice: 3100 };
    expect(await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: moved }], STORED_NOW + 10)).toEqual(
      [id],
    );
    expect((await store.limitOrders.findForKey(STORED_API_KEY, id))!.diagnosis).toEqual({
      ...moved,
      since: STORED_NOW,
    });
    expect(await newEvents()).toEqual([]);

    expect(await store.diagnoses.setLimitOrderDiagnoses([{ id, diagnosis: SHORT }], STORED_NOW + 20)).toEqual(
      [id],
    );
    // The new code's own fields only: the market price is gone with its code.
    expect((await store.limitOrders.findForKey(STORED_API_KEY, id))!.diagnosis).toEqual({
      ...SHORT,
      since: STORED_NOW + 20,
    });
    const events = await newEvents();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.body)).toMatchObject({
      type: 'limit_order.updated',
      data: { id, status: 'pending', diagnosis: { code: 'ALLOWANCE_SHORT', available: '0' } },
    });
  });

  it('leaves orders that are no longer pending, and unknown ids, as they are', async () => {
    const claimed = await pendingLimitOrder();
    const pending = await pendingLimitOrder();
    expect(await store.keeperLimitOrders.claim([claimed], 'keeper-a', 30_000, STORED_NOW)).toHaveLength(1);
    const before = await rowOf('limit_orders', claimed);
    await newEvents();

    const written = await store.diagnoses.setLimitOrderDiagnoses(
      [
        { id: claimed, diagnosis: SHORT },
        { id: randomUUID(), diagnosis: SHORT },
        { id: pending, diagnosis: SHORT },
      ],
      STORED_NOW,
    );

    expect(written).toEqual([pending]);
    expect(await rowOf('limit_orders', claimed)).toEqual(before);
    expect((await newEvents()).map((e) => e.resourceId)).toEqual([pending]);
  });

  it('takes more orders than one statement binds, the last judgment of an order winning', async () => {
    const ids = await Promise.all(Array.from({ length: 3 }, () => pendingLimitOrder()));
    const unknown = Array.from({ length: 1200 }, () => ({ id: randomUUID(), diagnosis: SHORT }));
    await newEvents();

    const written = await store.diagnoses.setLimitOrderDiagnoses(
      [
        ...unknown.slice(0, 600),
        ...ids.map((id) => ({ id, diagnosis: NOT_REACHED })),
        ...unknown.slice(600),
        { id: ids[0]!, diagnosis: SHORT },
      ],
      STORED_NOW,
    );

    expect(written.sort()).toEqual([...ids].sort());
    expect((await store.limitOrders.findForKey(STORED_API_KEY, ids[0]!))!.diagnosis?.code).toBe(
      'ALLOWANCE_SHORT',
    );
    expect((await store.limitOrders.findForKey(STORED_API_KEY, ids[1]!))!.diagnosis?.code).toBe(
      'PRICE_NOT_REACHED',
    );
    expect((await newEvents()).map((e) => e.resourceId).sort()).toEqual([...ids].sort());
  });

  it('diagnoses a pending DCA order alike: no version or updated_at change, a dca_order.updated event', async () => {
    const strategy = storedDcaStrategy();
    await store.dca.insertStrategy(strategy);
    const order = storedDcaOrder(strategy, 0, 'pending');
    await store.dca.insertOrder(order);
    const before = await rowOf('dca_orders', order.id);
    await newEvents();
    const outOfBounds: DiagnosisInput = { code: 'PRICE_NOT_REACHED', marketPrice: 3000, minPrice: 3200 };

    expect(
      await store.diagnoses.setDcaOrderDiagnoses([{ id: order.id, diagnosis: outOfBounds }], STORED_NOW),
    ).toEqual([order.id]);

    const after = await rowOf('dca_orders', order.id);
    expect(Number(after.version)).toBe(Number(before.version));
    expect(Number(after.updated_at)).toBe(Number(before.updated_at));
    const [stored] = await store.dca.listOrdersOfStrategy(strategy.id);
    expect(stored!.diagnosis).toEqual({ ...outOfBounds, since: STORED_NOW });
    expect(dcaOrderJson(stored!).diagnosis).toMatchObject({
      code: 'PRICE_NOT_REACHED',
      marketPrice: 3000,
      minPrice: 3200,
      message: expect.stringContaining("outside the strategy's bounds [3200, ∞]"),
    });
    const events = await newEvents();
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([['dca_order.updated', order.id]]);

    expect(
      await store.diagnoses.setDcaOrderDiagnoses([{ id: order.id, diagnosis: outOfBounds }], STORED_NOW + 5),
    ).toEqual([]);
    expect(await newEvents()).toEqual([]);
  });
});
