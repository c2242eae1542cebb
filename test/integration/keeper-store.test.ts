import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import * as keeperMigration from '../../migrations/20261122000001_keeper';
import type { DcaStrategy } from '../../shared/domain/dca';
import type { LimitOrder } from '../../shared/domain/limit-order';
import { createKnex } from '../../shared/store/create-knex';
import { KeeperDcaRepository } from '../../shared/store/repositories/keeper-dca-repository';
import { KeeperLimitOrdersRepository } from '../../shared/store/repositories/keeper-limit-orders-repository';
import type { ExecutionFields } from '../../shared/store/repositories/keeper-order-repository';
import {
  KeeperTransactionsRepository,
  type NewBatchTransaction,
  type OrderOutcome,
  type TransactionOrder,
} from '../../shared/store/repositories/keeper-transactions-repository';
import { openStore, type Store } from '../../shared/store/store';
import { storedDcaStrategy as dcaStrategy, storedLimitOrder as limitOrder } from '../factories/stored-orders';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const API_KEY = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const EXECUTOR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SIGNATURE = `0x${'ab'.repeat(65)}`;
const NOW = 1_800_000_000_000;
const DAY_MS = 86_400_000;
const LEASE_MS = 30_000;
const OWNER_A = 'keeper-a';
const OWNER_B = 'keeper-b';
const GWEI = 1_000_000_000n;

const hash = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

/** The orders of a batch in the tests' terms: limit orders with their plan fields, DCA iterations by ref. */
interface BatchInput extends Omit<NewBatchTransaction, 'orders'> {
  limitOrders: Array<{ id: string; version: number } & ExecutionFields>;
  dcaOrders: Array<{ id: string; version: number }>;
}

function asBatch(input: BatchInput): NewBatchTransaction {
  const { limitOrders, dcaOrders, ...rest } = input;
  return {
    ...rest,
    orders: [
      ...limitOrders.map(({ id, version, ...fields }) => ({ kind: 'limit' as const, id, version, fields })),
      ...dcaOrders.map(({ id, version }) => ({ kind: 'dca' as const, id, version })),
    ],
  };
}

type TestOutcomes = {
  limitOrders: Array<
    | { id: string; kind: 'completed' }
    | { id: string; kind: 'failed'; reason: string; final: boolean; nextAttemptAt?: number }
  >;
  dcaOrders: Array<
    | { id: string; kind: 'successful'; amountReceived: number; executionPrice: number }
    | { id: string; kind: 'error'; message: string; final: boolean; nextAttemptAt?: number }
  >;
};

function asOutcomes(o: TestOutcomes): OrderOutcome[] {
  return [
    ...o.limitOrders.map((x): OrderOutcome =>
      x.kind === 'completed'
        ? { kind: 'limit', id: x.id, outcome: 'executed' }
        : {
            kind: 'limit',
            id: x.id,
            outcome: 'failed',
            reason: x.reason,
            final: x.final,
            nextAttemptAt: x.nextAttemptAt,
          },
    ),
    ...o.dcaOrders.map((x): OrderOutcome =>
      x.kind === 'successful'
        ? {
            kind: 'dca',
            id: x.id,
            outcome: 'executed',
            success: { amountReceived: x.amountReceived, executionPrice: x.executionPrice },
          }
        : {
            kind: 'dca',
            id: x.id,
            outcome: 'failed',
            reason: x.message,
            final: x.final,
            nextAttemptAt: x.nextAttemptAt,
          },
    ),
  ];
}

/** Ids of one kind among orders a move reported. */
const idsOf = (orders: readonly TransactionOrder[] | undefined, kind: 'limit' | 'dca'): string[] =>
  (orders ?? []).filter((o) => o.kind === kind).map((o) => o.id);

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describeEachStore('keeper store', (kind) => {
  let target: StoreTarget;
  let store: Store;
  let limit: KeeperLimitOrdersRepository;
  let dca: KeeperDcaRepository;
  let txs: KeeperTransactionsRepository;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
    // Until migrations/index.ts lists the keeper migration, the tests apply it themselves.
    if (!(await store.knex.schema.hasTable('keeper_transactions'))) await keeperMigration.up(store.knex);
    limit = new KeeperLimitOrdersRepository(store.knex, store.dialect);
    dca = new KeeperDcaRepository(store.knex, store.dialect);
    txs = new KeeperTransactionsRepository(store.knex, store.dialect);
  });

  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  beforeEach(async () => {
    for (const table of ['keeper_transactions', 'dca_orders', 'dca_strategies', 'limit_orders']) {
      await store.knex(table).del();
    }
  });

  async function insertOrders(count: number, overrides: Partial<LimitOrder> = {}): Promise<LimitOrder[]> {
    const orders = Array.from({ length: count }, () => limitOrder(overrides));
    for (const order of orders) await store.limitOrders.insert(order);
    return orders;
  }

  async function insertStrategy(overrides: Partial<DcaStrategy> = {}): Promise<DcaStrategy> {
    const strategy = dcaStrategy(overrides);
    await store.dca.insertStrategy(strategy);
    return strategy;
  }

  function settle(id: string, owner: string, outcomes: TestOutcomes, nowMs: number) {
    return txs.settleBatch(id, owner, asOutcomes(outcomes), nowMs);
  }

  function batchParts(): BatchInput {
    return {
      chainId: 1,
      executor: EXECUTOR,
      nonce: 7,
      txHash: hash(1),
      rawTx: '0x02f8deadbeef',
      maxFeePerGas: 123_456_789_012_345_678_901n,
      maxPriorityFeePerGas: 2n * GWEI,
      triggerBlock: 100,
      limitOrders: [],
      dcaOrders: [],
    };
  }

  function batch(overrides: Partial<BatchInput> = {}): NewBatchTransaction {
    return asBatch({
      chainId: 1,
      executor: EXECUTOR,
      nonce: 7,
      txHash: hash(1),
      rawTx: '0x02f8deadbeef',
      maxFeePerGas: 123_456_789_012_345_678_901n,
      maxPriorityFeePerGas: 2n * GWEI,
      triggerBlock: 100,
      limitOrders: [],
      dcaOrders: [],
      ...overrides,
    });
  }

  describe('limit orders', () => {
    it('pages changed orders by (updatedAt, id) with the index fields', async () => {
      const orders = await insertOrders(5, { updatedAt: NOW });
      const [late] = await insertOrders(1, { updatedAt: NOW + 5, priceTrigger: '3600.25' });
      await store
        .knex('limit_orders')
        .where({ id: orders[0].id })
        .update({ updated_at: NOW - 10 });
      const seen: string[] = [];
      let since = 0;
      let after = '';
      for (;;) {
        const page = await limit.listChangedSince(since, after, 2);
        if (!page.length) break;
        seen.push(...page.map((entry) => entry.id));
        since = page[page.length - 1].updatedAt;
        after = page[page.length - 1].id;
      }
      const tied = orders
        .slice(1)
        .map((o) => o.id)
        .sort();
      expect(seen).toEqual([orders[0].id, ...tied, late.id]);

      const [entry] = await limit.listChangedSince(NOW + 1, '', 10);
      expect(entry).toEqual({
        id: late.id,
        chainId: 1,
        tokenIn: WETH,
        tokenOut: USDC,
        priceTrigger: 3600.25,
        expiresAt: NOW + DAY_MS,
        nextAttemptAt: 0,
        version: 0,
        status: 'pending',
        updatedAt: NOW + 5,
      });
    });

    it('claims pending orders once, with a lease, and never a cancelled one', async () => {
      const [a, b, cancelled] = await insertOrders(3);
      expect((await store.limitOrders.cancelIfPending(API_KEY, cancelled.id, NOW)).kind).toBe('updated');

      const claimed = await limit.claim([a.id, b.id, cancelled.id], OWNER_A, LEASE_MS, NOW);
      expect(claimed.map((o) => o.id).sort()).toEqual([a.id, b.id].sort());
      for (const order of claimed) {
        expect(order).toMatchObject({
          status: 'executing',
          leaseOwner: OWNER_A,
          leaseExpiresAt: NOW + LEASE_MS,
          version: 1,
          updatedAt: NOW,
          amount: '1.5',
          signature: SIGNATURE,
        });
      }
      expect(await limit.claim([a.id, b.id], OWNER_B, LEASE_MS, NOW)).toEqual([]);
      expect((await limit.findById(cancelled.id))?.status).toBe('cancelled');

      // The api cannot change a claimed order.
      const patch = await store.limitOrders.updateIfPending(API_KEY, a.id, { priceTrigger: '1' }, NOW);
      expect(patch).toEqual({ kind: 'conflict', status: 'executing' });
      expect((await limit.findById(a.id))?.priceTrigger).toBe('3500');
    });

    it('claims an order PATCHed after selection with its new values; claimVersioned refuses it', async () => {
      const [order] = await insertOrders(1);
      const [selected] = await limit.listChangedSince(0, '', 10);
      expect(selected.version).toBe(0);
      await store.limitOrders.updateIfPending(API_KEY, order.id, { priceTrigger: '4000', amount: '2' }, NOW);

      expect(
        await limit.claimVersioned([{ id: order.id, version: selected.version }], OWNER_A, LEASE_MS, NOW),
      ).toEqual([]);
      expect((await limit.findById(order.id))?.status).toBe('pending');

      const [claimed] = await limit.claim([order.id], OWNER_A, LEASE_MS, NOW);
      expect(claimed).toMatchObject({ priceTrigger: '4000', amount: '2', version: 2, status: 'executing' });
    });

    it('claimVersioned takes the orders whose version still matches', async () => {
      const [a, b] = await insertOrders(2);
      const claimed = await limit.claimVersioned(
        [
          { id: a.id, version: 0 },
          { id: b.id, version: 3 },
        ],
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      expect(claimed.map((o) => o.id)).toEqual([a.id]);
      expect((await limit.findById(b.id))?.status).toBe('pending');
    });

    it('does not claim an order before its next attempt or after its expiry', async () => {
      const [later] = await insertOrders(1, { nextAttemptAt: NOW + 1 });
      const [expired] = await insertOrders(1, { expired: String(NOW) });
      expect(await limit.claim([later.id, expired.id], OWNER_A, LEASE_MS, NOW)).toEqual([]);
      expect((await limit.claim([later.id], OWNER_A, LEASE_MS, NOW + 1)).map((o) => o.id)).toEqual([
        later.id,
      ]);
    });

    it('reclaims executing orders whose lease expired, never submitted ones', async () => {
      const [stale, fresh, inTx] = await insertOrders(3);
      await limit.claim([stale.id, inTx.id], OWNER_A, LEASE_MS, NOW);
      await limit.claim([fresh.id], OWNER_B, LEASE_MS, NOW + 20_000);
      const submitted = await txs.submitBatch(
        batch({
          limitOrders: [
            { id: inTx.id, version: 1, allowance: '1', estimateGas: '2', effectivePriceGas: '3' },
          ],
        }),
        OWNER_A,
        LEASE_MS,
        NOW + 1,
      );
      expect(submitted.kind).toBe('submitted');

      const later = NOW + LEASE_MS + 2;
      expect(await limit.reclaimExpiredLeases(later)).toEqual([stale.id]);
      expect(await limit.findById(stale.id)).toMatchObject({
        status: 'pending',
        leaseOwner: null,
        leaseExpiresAt: null,
        attemptNumber: 0,
        version: 2,
        updatedAt: later,
      });
      expect((await limit.findById(fresh.id))?.status).toBe('executing');
      expect((await limit.findById(inTx.id))?.status).toBe('submitted');

      const expiredSubmitted = await limit.listTrackedWithExpiredLease(later);
      expect(expiredSubmitted.map((o) => [o.id, o.keeperTxId])).toEqual([
        [inTx.id, submitted.kind === 'submitted' ? submitted.transaction.id : ''],
      ]);
      expect(await limit.claim([stale.id], OWNER_B, LEASE_MS, later)).toHaveLength(1);
    });

    it("takes back at once an owner's unexpired claims never sent, leaving other owners' and sent ones", async () => {
      const [mine, alsoMine, inTx, theirs] = await insertOrders(4);
      await limit.claim([mine.id, alsoMine.id, inTx.id], OWNER_A, LEASE_MS, NOW);
      await limit.claim([theirs.id], OWNER_B, LEASE_MS, NOW);
      const submitted = await txs.submitBatch(
        batch({
          limitOrders: [
            { id: inTx.id, version: 1, allowance: '1', estimateGas: '2', effectivePriceGas: '3' },
          ],
        }),
        OWNER_A,
        LEASE_MS,
        NOW + 1,
      );
      expect(submitted.kind).toBe('submitted');

      // Long before the lease expires (a restart with the same KEEPER_ID).
      expect((await limit.releaseLeasesOf(OWNER_A, NOW + 2)).sort()).toEqual([mine.id, alsoMine.id].sort());
      for (const id of [mine.id, alsoMine.id]) {
        expect(await limit.findById(id)).toMatchObject({
          status: 'pending',
          leaseOwner: null,
          leaseExpiresAt: null,
          attemptNumber: 0,
          version: 2,
          updatedAt: NOW + 2,
        });
      }
      expect(await limit.findById(inTx.id)).toMatchObject({ status: 'submitted', leaseOwner: OWNER_A });
      expect(await limit.findById(theirs.id)).toMatchObject({ status: 'executing', leaseOwner: OWNER_B });
      expect(await limit.releaseLeasesOf(OWNER_A, NOW + 3)).toEqual([]);
      // Claimable again at once, by any keeper.
      expect(await limit.claim([mine.id], OWNER_A, LEASE_MS, NOW + 3)).toHaveLength(1);
    });

    it('releases a lease only for its owner, without counting an attempt', async () => {
      const [order] = await insertOrders(1);
      await limit.claim([order.id], OWNER_A, LEASE_MS, NOW);
      expect(await limit.releaseLease(order.id, OWNER_B, NOW + 1)).toBe(false);
      expect(await limit.releaseLease(order.id, OWNER_A, NOW + 1, NOW + 12_000)).toBe(true);
      expect(await limit.findById(order.id)).toMatchObject({
        status: 'pending',
        attemptNumber: 0,
        nextAttemptAt: NOW + 12_000,
        leaseOwner: null,
      });
      expect(await limit.releaseLease(order.id, OWNER_A, NOW + 2)).toBe(false);
    });

    it('fails an order finally (reason kept) or for a retry (back to pending)', async () => {
      const [final, retried] = await insertOrders(2);
      await limit.claim([final.id, retried.id], OWNER_A, LEASE_MS, NOW);
      expect(await limit.fail(final.id, OWNER_B, { reason: 'x', final: true }, NOW + 1)).toBeUndefined();

      const failed = await limit.fail(
        final.id,
        OWNER_A,
        { reason: 'Insufficient allowance', final: true, fields: { allowance: '0', estimateGas: '190000' } },
        NOW + 1,
      );
      expect(failed).toMatchObject({
        status: 'failed',
        reasonFail: ['Insufficient allowance'],
        attemptNumber: 1,
        allowance: '0',
        estimateGas: '190000',
        leaseOwner: null,
        version: 2,
      });
      expect(await limit.fail(final.id, OWNER_A, { reason: 'again', final: true }, NOW + 2)).toBeUndefined();

      const retry = await limit.fail(
        retried.id,
        OWNER_A,
        { reason: 'RPC timeout', final: false, nextAttemptAt: NOW + 5000 },
        NOW + 1,
      );
      expect(retry).toMatchObject({
        status: 'pending',
        reasonFail: [],
        attemptNumber: 1,
        nextAttemptAt: NOW + 5000,
        leaseOwner: null,
      });
      expect(await limit.claim([retried.id], OWNER_A, LEASE_MS, NOW + 4999)).toEqual([]);
    });

    it('expires pending orders past their expiry only', async () => {
      const [due] = await insertOrders(1, { expired: String(NOW - 1) });
      const [notYet] = await insertOrders(1);
      const [executing] = await insertOrders(1, { expired: String(NOW + 10) });
      await limit.claim([executing.id], OWNER_A, LEASE_MS, NOW);
      expect(await limit.expire([due.id, notYet.id, executing.id], NOW + 20)).toEqual([due.id]);
      expect(await limit.findById(due.id)).toMatchObject({
        status: 'failed',
        reasonFail: ['expired'],
        attemptNumber: 0,
        version: 1,
        updatedAt: NOW + 20,
      });
      expect((await limit.findById(notYet.id))?.status).toBe('pending');
      expect((await limit.findById(executing.id))?.status).toBe('executing');
    });

    it('a PATCH that moves the expiry later wins over a stale expire', async () => {
      const [order] = await insertOrders(1, { expired: String(NOW - 1) });
      await store.limitOrders.updateIfPending(API_KEY, order.id, { expired: String(NOW + DAY_MS) }, NOW);
      expect(await limit.expire([order.id], NOW)).toEqual([]);
    });
  });

  describe('DCA', () => {
    it('creates iterations in order, idempotently, bumping iterations_created in the same transaction', async () => {
      const strategy = await insertStrategy();
      const first = await dca.createIteration(strategy.id, 0, strategy.createdAt, 1, NOW);
      expect(first.kind).toBe('created');
      if (first.kind !== 'created') return;
      expect(first.order).toMatchObject({
        strategyId: strategy.id,
        apiKey: API_KEY,
        accountTo: MAKER,
        iteration: 0,
        slotAt: strategy.createdAt,
        amount: 1,
        status: 'pending',
        attemptNumber: 0,
        keeperTxId: null,
      });
      expect(await dca.createIteration(strategy.id, 0, strategy.createdAt, 1, NOW + 1)).toEqual({
        kind: 'exists',
        order: first.order,
      });
      expect(await dca.createIteration(strategy.id, 2, strategy.createdAt + 120_000, 1, NOW)).toEqual({
        kind: 'not-next',
        iterationsCreated: 1,
        iterations: 3,
      });
      expect(await dca.findStrategy(strategy.id)).toMatchObject({
        iterationsCreated: 1,
        version: 1,
        updatedAt: NOW,
      });
      expect((await dca.createIteration(strategy.id, 1, strategy.createdAt + 60_000, 1, NOW)).kind).toBe(
        'created',
      );
      expect((await dca.createIteration(strategy.id, 2, strategy.createdAt + 120_000, 1, NOW)).kind).toBe(
        'created',
      );
      expect(await dca.createIteration(strategy.id, 3, strategy.createdAt + 180_000, 1, NOW)).toEqual({
        kind: 'not-next',
        iterationsCreated: 3,
        iterations: 3,
      });
      expect((await dca.listOrdersOfStrategy(strategy.id)).map((o) => o.iteration)).toEqual([0, 1, 2]);
      expect(await dca.createIteration(randomUUID(), 0, NOW, 1, NOW)).toEqual({ kind: 'not-found' });
    });

    it('concurrent creations of one slot make one order', async () => {
      const strategy = await insertStrategy();
      const results = await Promise.all(
        Array.from({ length: 6 }, () => dca.createIteration(strategy.id, 0, strategy.createdAt, 1, NOW)),
      );
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
      expect(results.every((r) => r.kind === 'created' || r.kind === 'exists')).toBe(true);
      expect(await dca.listOrdersOfStrategy(strategy.id)).toHaveLength(1);
    });

    it('a cancelled strategy gets no more orders and its pending ones are cancelled', async () => {
      const strategy = await insertStrategy();
      await dca.createIteration(strategy.id, 0, strategy.createdAt, 1, NOW);
      expect((await store.dca.cancelStrategy(API_KEY, strategy.id, NOW + 1)).kind).toBe('updated');
      expect(await dca.createIteration(strategy.id, 1, strategy.createdAt + 60_000, 1, NOW + 2)).toEqual({
        kind: 'not-active',
        status: 'cancelled',
      });
      expect((await dca.listOrdersOfStrategy(strategy.id)).map((o) => o.status)).toEqual(['cancelled']);
      expect(await dca.listActiveStrategies()).toEqual([]);
    });

    it('lists active strategies and due orders with their strategies', async () => {
      const active = await insertStrategy({ chainIdFrom: 137, chainIdTo: 137 });
      await insertStrategy({ status: 'cancelled' });
      expect((await dca.listActiveStrategies()).map((s) => s.id)).toEqual([active.id]);
      expect(await dca.listActiveStrategies(1)).toEqual([]);
      await dca.createIteration(active.id, 0, NOW, 1, NOW);
      await dca.createIteration(active.id, 1, NOW + 60_000, 1, NOW);
      const due = await dca.listDueOrders(NOW + 1);
      expect(due.map((d) => [d.order.iteration, d.strategy.id])).toEqual([[0, active.id]]);
      expect(await dca.listDueOrders(NOW + 1, 1)).toEqual([]);
    });

    it('claims due orders once, and settles them successful, error, or back to pending', async () => {
      const strategy = await insertStrategy({ iterations: 4 });
      const created = [];
      for (let i = 0; i < 4; i += 1) {
        const result = await dca.createIteration(strategy.id, i, NOW, 0.75, NOW);
        if (result.kind === 'created') created.push(result.order);
      }
      const ids = created.map((o) => o.id);
      const claimed = await dca.claim(ids, OWNER_A, LEASE_MS, NOW);
      expect(claimed).toHaveLength(4);
      expect(claimed[0].strategy).toMatchObject({ id: strategy.id, signature: SIGNATURE });
      expect(claimed[0].order).toMatchObject({ status: 'executing', leaseOwner: OWNER_A, version: 1 });
      expect(await dca.claim(ids, OWNER_B, LEASE_MS, NOW)).toEqual([]);

      expect(
        await dca.complete(
          ids[0],
          { transactionHash: hash(9), amountReceived: 2600.5, executionPrice: 3467.3 },
          NOW,
        ),
      ).toBe(true);
      expect(await dca.findById(ids[0])).toMatchObject({
        status: 'successful',
        transactionHash: hash(9),
        amountReceived: 2600.5,
        executionPrice: 3467.3,
      });
      expect(await dca.fail(ids[1], OWNER_B, { reason: 'x', final: true }, NOW)).toBe(false);
      expect(await dca.fail(ids[1], OWNER_A, { reason: 'Invalid signature', final: true }, NOW)).toBe(true);
      expect(await dca.findById(ids[1])).toMatchObject({
        status: 'error',
        errorMessage: 'Invalid signature',
        attemptNumber: 1,
      });
      expect(
        await dca.fail(ids[2], OWNER_A, { reason: 'rpc', final: false, nextAttemptAt: NOW + 9 }, NOW),
      ).toBe(true);
      expect(await dca.findById(ids[2])).toMatchObject({
        status: 'pending',
        attemptNumber: 1,
        nextAttemptAt: NOW + 9,
      });
      expect(await dca.claim([ids[2]], OWNER_A, LEASE_MS, NOW + 8)).toEqual([]);
      expect(await dca.releaseLease(ids[3], OWNER_A, NOW)).toBe(true);
      expect(await dca.findById(ids[3])).toMatchObject({
        status: 'pending',
        attemptNumber: 0,
        leaseOwner: null,
      });
    });

    it('refuses a versioned claim of a changed order and an order whose slot has not come', async () => {
      const strategy = await insertStrategy();
      const first = await dca.createIteration(strategy.id, 0, NOW, 1, NOW);
      const second = await dca.createIteration(strategy.id, 1, NOW + 60_000, 1, NOW);
      if (first.kind !== 'created' || second.kind !== 'created') throw new Error('not created');
      expect(
        await dca.claimVersioned(
          [
            { id: first.order.id, version: 5 },
            { id: second.order.id, version: second.order.version },
          ],
          OWNER_A,
          LEASE_MS,
          NOW,
        ),
      ).toEqual([]);
      const claimed = await dca.claimVersioned([{ id: first.order.id, version: 0 }], OWNER_A, LEASE_MS, NOW);
      expect(claimed.map((c) => c.order.id)).toEqual([first.order.id]);
    });

    it('an executing order released after its strategy was cancelled becomes cancelled, not pending', async () => {
      const strategy = await insertStrategy();
      const created = await dca.createIteration(strategy.id, 0, NOW, 1, NOW);
      const spare = await dca.createIteration(strategy.id, 1, NOW, 1, NOW);
      if (created.kind !== 'created' || spare.kind !== 'created') throw new Error('not created');
      await dca.claim([created.order.id, spare.order.id], OWNER_A, LEASE_MS, NOW);
      await store.dca.cancelStrategy(API_KEY, strategy.id, NOW + 1);
      // The api leaves executing orders to the keeper.
      expect((await dca.findById(created.order.id))?.status).toBe('executing');
      expect(await dca.releaseLease(created.order.id, OWNER_A, NOW + 2)).toBe(true);
      expect((await dca.findById(created.order.id))?.status).toBe('cancelled');
      expect(await dca.fail(spare.order.id, OWNER_A, { reason: 'rpc', final: false }, NOW + 2)).toBe(true);
      expect((await dca.findById(spare.order.id))?.status).toBe('cancelled');
    });

    it('reclaims expired DCA leases, cancels pending orders of cancelled strategies, and expires orders', async () => {
      const strategy = await insertStrategy({ iterations: 3 });
      const orders = [];
      for (let i = 0; i < 3; i += 1) {
        const r = await dca.createIteration(strategy.id, i, NOW, 1, NOW);
        if (r.kind === 'created') orders.push(r.order);
      }
      await dca.claim([orders[0].id, orders[1].id], OWNER_A, LEASE_MS, NOW);
      expect(await dca.reclaimExpiredLeases(NOW + LEASE_MS - 1)).toEqual([]);
      expect((await dca.reclaimExpiredLeases(NOW + LEASE_MS + 1)).sort()).toEqual(
        [orders[0].id, orders[1].id].sort(),
      );
      expect((await dca.findById(orders[0].id))?.status).toBe('pending');

      expect(await dca.expireOrder(orders[0].id, NOW + LEASE_MS + 2)).toBe(true);
      expect((await dca.findById(orders[0].id))?.status).toBe('expired');
      await dca.claim([orders[1].id], OWNER_A, LEASE_MS, NOW + LEASE_MS + 2);
      expect(await dca.expireOrder(orders[1].id, NOW + LEASE_MS + 3)).toBe(false);
      expect(await dca.expireOrder(orders[1].id, NOW + LEASE_MS + 3, OWNER_A)).toBe(true);

      // A strategy stopped by hand (not through the api) still gets its pending orders cancelled.
      await store.knex('dca_strategies').where({ id: strategy.id }).update({ status: 'cancelled' });
      expect(await dca.cancelPendingOrdersOfCancelledStrategies(NOW + LEASE_MS + 4)).toBe(1);
      expect((await dca.listOrdersOfStrategy(strategy.id)).map((o) => o.status)).toEqual([
        'expired',
        'expired',
        'cancelled',
      ]);
    });

    it("takes back an owner's unsent DCA claims at once, cancelling those of a cancelled strategy", async () => {
      const strategy = await insertStrategy({ iterations: 3 });
      const stopped = await insertStrategy({ iterations: 1 });
      const orders = [];
      for (let i = 0; i < 3; i += 1) {
        const r = await dca.createIteration(strategy.id, i, NOW, 1, NOW);
        if (r.kind === 'created') orders.push(r.order);
      }
      const last = await dca.createIteration(stopped.id, 0, NOW, 1, NOW);
      if (last.kind !== 'created') throw new Error('no iteration');
      await dca.claim([orders[0].id, orders[1].id, last.order.id], OWNER_A, LEASE_MS, NOW);
      await dca.claim([orders[2].id], OWNER_B, LEASE_MS, NOW);
      await store.knex('dca_strategies').where({ id: stopped.id }).update({ status: 'cancelled' });

      expect((await dca.releaseLeasesOf(OWNER_A, NOW + 1)).sort()).toEqual(
        [orders[0].id, orders[1].id, last.order.id].sort(),
      );
      expect(await dca.findById(orders[0].id)).toMatchObject({ status: 'pending', attemptNumber: 0 });
      expect(await dca.findById(orders[1].id)).toMatchObject({ status: 'pending', leaseOwner: null });
      expect((await dca.findById(last.order.id))?.status).toBe('cancelled');
      expect(await dca.findById(orders[2].id)).toMatchObject({ status: 'executing', leaseOwner: OWNER_B });
    });

    it('finishes a strategy only when every iteration exists and every order is final', async () => {
      const strategy = await insertStrategy({ iterations: 2 });
      const first = await dca.createIteration(strategy.id, 0, NOW, 1, NOW);
      if (first.kind !== 'created') throw new Error('not created');
      await dca.claim([first.order.id], OWNER_A, LEASE_MS, NOW);
      await dca.complete(
        first.order.id,
        { transactionHash: hash(1), amountReceived: 1, executionPrice: 1 },
        NOW,
      );
      expect(await dca.finishStrategyIfDone(strategy.id, NOW)).toBe(false);

      const second = await dca.createIteration(strategy.id, 1, NOW, 1, NOW);
      if (second.kind !== 'created') throw new Error('not created');
      expect(await dca.finishStrategyIfDone(strategy.id, NOW)).toBe(false);
      await dca.claim([second.order.id], OWNER_A, LEASE_MS, NOW);
      expect(await dca.finishStrategyIfDone(strategy.id, NOW)).toBe(false);
      await dca.fail(second.order.id, OWNER_A, { reason: 'Invalid signature', final: true }, NOW);

      expect(await dca.finishStrategyIfDone(strategy.id, NOW + 5)).toBe(true);
      expect(await dca.findStrategy(strategy.id)).toMatchObject({ status: 'finished', updatedAt: NOW + 5 });
      expect(await dca.finishStrategyIfDone(strategy.id, NOW + 6)).toBe(false);
      // The api refuses changes to a finished strategy.
      expect((await store.dca.cancelStrategy(API_KEY, strategy.id, NOW + 7)).kind).toBe('not-active');
    });
  });

  describe('transactions', () => {
    async function claimedBatch(): Promise<{
      orders: LimitOrder[];
      dcaOrderId: string;
      input: NewBatchTransaction;
      parts: BatchInput;
    }> {
      const orders = await insertOrders(3);
      const strategy = await insertStrategy();
      const iteration = await dca.createIteration(strategy.id, 0, NOW, 1, NOW);
      if (iteration.kind !== 'created') throw new Error('not created');
      const claimed = await limit.claim(
        orders.map((o) => o.id),
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      const [claimedDca] = await dca.claim([iteration.order.id], OWNER_A, LEASE_MS, NOW);
      const parts: BatchInput = {
        ...batchParts(),
        limitOrders: claimed.map((o, i) => ({
          id: o.id,
          version: o.version,
          allowance: `${10 + i}`,
          estimateGas: '192775',
          effectivePriceGas: '0.0012',
        })),
        dcaOrders: [{ id: claimedDca.order.id, version: claimedDca.order.version }],
      };
      return { orders, dcaOrderId: iteration.order.id, input: asBatch(parts), parts };
    }

    it('follows a batch from signed to settled, through a replacement and the mining of the first hash', async () => {
      const { orders, dcaOrderId, input, parts } = await claimedBatch();
      const submitted = await txs.submitBatch(input, OWNER_A, 60_000, NOW + 1);
      if (submitted.kind !== 'submitted') throw new Error(JSON.stringify(submitted));
      const tx = submitted.transaction;
      expect(tx).toMatchObject({
        chainId: 1,
        executor: EXECUTOR,
        nonce: 7,
        txHash: hash(1),
        txHashes: [hash(1)],
        rawTx: '0x02f8deadbeef',
        maxFeePerGas: 123_456_789_012_345_678_901n,
        maxPriorityFeePerGas: 2n * GWEI,
        status: 'signed',
        triggerBlock: 100,
        submittedBlock: null,
        orders: [
          ...parts.limitOrders.map((o) => ({ kind: 'limit', id: o.id })),
          { kind: 'dca', id: dcaOrderId },
        ],
        leaseOwner: OWNER_A,
        leaseExpiresAt: NOW + 60_001,
      });
      expect(await txs.findById(tx.id)).toEqual(tx);
      expect(await limit.findById(orders[1].id)).toMatchObject({
        status: 'submitted',
        txHash: hash(1),
        executorAddress: EXECUTOR,
        allowance: '11',
        estimateGas: '192775',
        effectivePriceGas: '0.0012',
        keeperTxId: tx.id,
        leaseExpiresAt: NOW + 60_001,
        version: 2,
      });
      expect(await dca.findById(dcaOrderId)).toMatchObject({ status: 'executing', keeperTxId: tx.id });
      // An order in an open transaction cannot be released, failed, expired or reclaimed.
      expect(await limit.fail(orders[0].id, OWNER_A, { reason: 'x', final: true }, NOW + 2)).toBeUndefined();
      expect(await dca.fail(dcaOrderId, OWNER_A, { reason: 'x', final: false }, NOW + 2)).toBe(false);
      expect(await limit.expire([orders[0].id], NOW + DAY_MS)).toEqual([]);
      expect(await limit.releaseLease(orders[0].id, OWNER_A, NOW + 2)).toBe(false);
      expect(await dca.releaseLease(dcaOrderId, OWNER_A, NOW + 2)).toBe(false);
      expect(await dca.reclaimExpiredLeases(NOW + DAY_MS)).toEqual([]);

      expect(await txs.markBroadcast(tx.id, OWNER_B, 101, NOW + 2)).toBe(false);
      expect(await txs.markBroadcast(tx.id, OWNER_A, 101, NOW + 2)).toBe(true);
      expect(await txs.markBroadcast(tx.id, OWNER_A, 101, NOW + 2)).toBe(false);
      const replacement = {
        txHash: hash(2),
        rawTx: '0x02f8cafe',
        maxFeePerGas: 150_000_000_000_000_000_000n,
        maxPriorityFeePerGas: 3n * GWEI,
      };
      expect(await txs.recordReplacement(tx.id, OWNER_A, replacement, NOW + 3)).toBe(true);
      expect(await txs.findById(tx.id)).toMatchObject({
        status: 'signed',
        txHash: hash(2),
        txHashes: [hash(1), hash(2)],
        rawTx: '0x02f8cafe',
        maxFeePerGas: 150_000_000_000_000_000_000n,
        submittedBlock: 101,
      });
      expect((await limit.findById(orders[0].id))?.txHash).toBe(hash(2));
      expect(await txs.markBroadcast(tx.id, OWNER_A, 103, NOW + 3)).toBe(true);
      expect((await txs.listOpen(1)).map((t) => t.id)).toEqual([tx.id]);
      expect(await txs.listOpen(1, EXECUTOR.toLowerCase())).toEqual([]);
      expect(await txs.listOpen(137)).toEqual([]);

      // The first hash is the one mined: it becomes the transaction's and the orders'.
      expect(
        await txs.markMined(tx.id, OWNER_A, { txHash: hash(3), blockNumber: 104, blockHash: hash(44) }, NOW),
      ).toBe(false);
      expect(
        await txs.markMined(
          tx.id,
          OWNER_A,
          { txHash: hash(1), blockNumber: 104, blockHash: hash(44) },
          NOW + 4,
        ),
      ).toBe(true);
      expect(await txs.findById(tx.id)).toMatchObject({
        status: 'mined',
        txHash: hash(1),
        minedBlock: 104,
        minedBlockHash: hash(44),
      });
      expect((await limit.findById(orders[2].id))?.txHash).toBe(hash(1));

      const settled = await settle(
        tx.id,
        OWNER_A,
        {
          limitOrders: [
            { id: orders[0].id, kind: 'completed' },
            { id: orders[1].id, kind: 'failed', reason: 'Invalid signature', final: true },
            {
              id: orders[2].id,
              kind: 'failed',
              reason: 'Price moved',
              final: false,
              nextAttemptAt: NOW + 10,
            },
          ],
          dcaOrders: [{ id: dcaOrderId, kind: 'successful', amountReceived: 3400, executionPrice: 3400 }],
        },
        NOW + 5,
      );
      expect(settled).toEqual({
        kind: 'settled',
        orders: [
          { kind: 'limit', id: orders[0].id },
          { kind: 'limit', id: orders[1].id },
          { kind: 'limit', id: orders[2].id },
          { kind: 'dca', id: dcaOrderId },
        ],
      });
      expect(await limit.findById(orders[0].id)).toMatchObject({
        status: 'completed',
        txHash: hash(1),
        leaseOwner: null,
      });
      expect(await limit.findById(orders[1].id)).toMatchObject({
        status: 'failed',
        reasonFail: ['Invalid signature'],
        attemptNumber: 1,
        txHash: hash(1),
      });
      expect(await limit.findById(orders[2].id)).toMatchObject({
        status: 'pending',
        reasonFail: [],
        attemptNumber: 1,
        txHash: '',
        keeperTxId: null,
        nextAttemptAt: NOW + 10,
      });
      expect(await dca.findById(dcaOrderId)).toMatchObject({
        status: 'successful',
        transactionHash: hash(1),
        amountReceived: 3400,
      });
      expect(await txs.findById(tx.id)).toMatchObject({ status: 'settled', leaseOwner: null });
      expect(await txs.listOpen(1)).toEqual([]);
      expect(await settle(tx.id, OWNER_A, { limitOrders: [], dcaOrders: [] }, NOW + 6)).toEqual({
        kind: 'not-held',
      });
    });

    it('writes nothing when an order of the batch is no longer held at its claimed version', async () => {
      const { orders, dcaOrderId, input, parts } = await claimedBatch();
      await limit.releaseLease(orders[1].id, OWNER_A, NOW + 1);
      const before = await limit.findById(orders[0].id);

      const result = await txs.submitBatch(input, OWNER_A, 60_000, NOW + 2);
      expect(result).toEqual({ kind: 'conflict', orders: [{ kind: 'limit', id: orders[1].id }] });
      expect(await store.knex('keeper_transactions').count({ n: '*' })).toEqual([{ n: 0 }]);
      expect(await limit.findById(orders[0].id)).toEqual(before);
      expect(await dca.findById(dcaOrderId)).toMatchObject({ status: 'executing', keeperTxId: null });

      // Another owner's batch, or a stale version, is refused just the same.
      const ok = asBatch({ ...parts, limitOrders: [parts.limitOrders[0]!], dcaOrders: [] });
      expect((await txs.submitBatch(ok, OWNER_B, 60_000, NOW + 2)).kind).toBe('conflict');
      const stale = asBatch({
        ...parts,
        limitOrders: [{ ...parts.limitOrders[0]!, version: 0 }],
        dcaOrders: [],
      });
      expect((await txs.submitBatch(stale, OWNER_A, 60_000, NOW + 2)).kind).toBe('conflict');
      expect((await txs.submitBatch(ok, OWNER_A, 60_000, NOW + 2)).kind).toBe('submitted');
    });

    it('refuses to settle a batch leaving an order without an outcome', async () => {
      const { orders, dcaOrderId, input } = await claimedBatch();
      const submitted = await txs.submitBatch(input, OWNER_A, 60_000, NOW + 1);
      if (submitted.kind !== 'submitted') throw new Error('conflict');
      const id = submitted.transaction.id;
      await txs.markMined(id, OWNER_A, { txHash: hash(1), blockNumber: 5, blockHash: hash(5) }, NOW + 2);
      await expect(
        settle(
          id,
          OWNER_A,
          { limitOrders: orders.map((o) => ({ id: o.id, kind: 'completed' as const })), dcaOrders: [] },
          NOW + 3,
        ),
      ).rejects.toThrow(dcaOrderId);
      expect((await txs.findById(id))?.status).toBe('mined');
      expect((await limit.findById(orders[0].id))?.status).toBe('submitted');
    });

    it('returns the orders of a dropped transaction to pending, and reorged ones to tracking', async () => {
      const { orders, dcaOrderId, input } = await claimedBatch();
      const submitted = await txs.submitBatch(input, OWNER_A, 60_000, NOW + 1);
      if (submitted.kind !== 'submitted') throw new Error('conflict');
      const id = submitted.transaction.id;
      await txs.markBroadcast(id, OWNER_A, 1, NOW + 1);
      await txs.markMined(id, OWNER_A, { txHash: hash(1), blockNumber: 5, blockHash: hash(5) }, NOW + 2);
      expect(await txs.markDropped(id, OWNER_A, 'dropped', NOW + 3)).toBeUndefined();
      expect(await txs.markReorged(id, OWNER_A, NOW + 3)).toBe(true);
      expect(await txs.findById(id)).toMatchObject({
        status: 'pending',
        minedBlock: null,
        minedBlockHash: null,
      });

      // One order was found executed on chain before the drop was declared.
      expect(await limit.complete(orders[0].id, { transactionHash: hash(77) }, NOW + 4)).toBe(true);
      expect(await txs.markDropped(id, OWNER_B, 'dropped', NOW + 4)).toBeUndefined();
      const returned = await txs.markDropped(id, OWNER_A, 'replaced', NOW + 4);
      expect(idsOf(returned, 'limit').sort()).toEqual([orders[1].id, orders[2].id].sort());
      expect(idsOf(returned, 'dca')).toEqual([dcaOrderId]);
      expect(await limit.findById(orders[1].id)).toMatchObject({
        status: 'pending',
        txHash: '',
        executorAddress: '',
        keeperTxId: null,
        leaseOwner: null,
        attemptNumber: 0,
      });
      expect(await limit.findById(orders[0].id)).toMatchObject({ status: 'completed', txHash: hash(77) });
      expect(await dca.findById(dcaOrderId)).toMatchObject({ status: 'pending', keeperTxId: null });
      expect(await txs.findById(id)).toMatchObject({ status: 'replaced', leaseOwner: null });
      expect(await txs.listOpen(1)).toEqual([]);
    });

    it('reopens a settled batch whose block left the chain: completed orders wait on it again, failures stay', async () => {
      const { orders, dcaOrderId, input } = await claimedBatch();
      const strategyId = (await dca.findById(dcaOrderId))!.strategyId;
      const submitted = await txs.submitBatch(input, OWNER_A, 60_000, NOW + 1);
      if (submitted.kind !== 'submitted') throw new Error('conflict');
      const id = submitted.transaction.id;
      await txs.markBroadcast(id, OWNER_A, 1, NOW + 1);
      await txs.markMined(id, OWNER_A, { txHash: hash(1), blockNumber: 5, blockHash: hash(5) }, NOW + 2);
      const settled = await settle(
        id,
        OWNER_A,
        {
          limitOrders: [
            { id: orders[0].id, kind: 'completed' },
            { id: orders[1].id, kind: 'completed' },
            {
              id: orders[2].id,
              kind: 'failed',
              reason: 'PRICE_NOT_REACHED',
              final: false,
              nextAttemptAt: NOW,
            },
          ],
          dcaOrders: [{ id: dcaOrderId, kind: 'successful', amountReceived: 1, executionPrice: 2 }],
        },
        NOW + 3,
      );
      expect(settled.kind).toBe('settled');
      // The strategy had one iteration: it finished with it.
      await store
        .knex('dca_strategies')
        .where({ id: strategyId })
        .update({ iterations: 1, iterations_created: 1 });
      expect(await dca.finishStrategyIfDone(strategyId, NOW + 3)).toBe(true);

      expect((await txs.listSettledSince(1, 5)).map((t) => t.id)).toEqual([id]);
      expect(await txs.listSettledSince(1, 6)).toEqual([]);
      expect(await txs.listSettledSince(2, 0)).toEqual([]);
      // Another block hash than the one recorded: not this settlement (a stale read), nothing moves.
      expect(await txs.reopenSettled(id, hash(6), OWNER_B, LEASE_MS, NOW + 4)).toBeUndefined();

      const reopened = await txs.reopenSettled(id, hash(5), OWNER_B, LEASE_MS, NOW + 4);
      expect(idsOf(reopened, 'limit').sort()).toEqual([orders[0].id, orders[1].id].sort());
      expect(idsOf(reopened, 'dca')).toEqual([dcaOrderId]);
      expect(await txs.findById(id)).toMatchObject({
        status: 'signed',
        minedBlock: null,
        minedBlockHash: null,
        submittedBlock: null,
        leaseOwner: OWNER_B,
        leaseExpiresAt: NOW + 4 + LEASE_MS,
      });
      for (const order of orders.slice(0, 2)) {
        expect(await limit.findById(order.id)).toMatchObject({
          status: 'submitted',
          keeperTxId: id,
          leaseOwner: OWNER_B,
        });
      }
      // The retry had gone back to pending, out of the batch: untouched.
      expect(await limit.findById(orders[2].id)).toMatchObject({ status: 'pending', keeperTxId: null });
      expect(await dca.findById(dcaOrderId)).toMatchObject({
        status: 'executing',
        keeperTxId: id,
        leaseOwner: OWNER_B,
      });
      expect(await dca.findStrategy(strategyId)).toMatchObject({ status: 'active' });
      expect((await txs.listOpen(1)).map((t) => t.id)).toEqual([id]);
      // Once reopened it is not settled any more: a second reopen does nothing.
      expect(await txs.reopenSettled(id, hash(5), OWNER_A, LEASE_MS, NOW + 5)).toBeUndefined();

      // Followed again, mined in the new chain's block and settled: final again, with the new block.
      await txs.markBroadcast(id, OWNER_B, 6, NOW + 6);
      expect(
        await txs.markMined(id, OWNER_B, { txHash: hash(1), blockNumber: 7, blockHash: hash(77) }, NOW + 7),
      ).toBe(true);
      const again = await settle(
        id,
        OWNER_B,
        {
          limitOrders: [
            { id: orders[0].id, kind: 'completed' },
            {
              id: orders[1].id,
              kind: 'failed',
              reason: 'PRICE_NOT_REACHED',
              final: false,
              nextAttemptAt: NOW,
            },
          ],
          dcaOrders: [{ id: dcaOrderId, kind: 'successful', amountReceived: 1, executionPrice: 2 }],
        },
        NOW + 8,
      );
      expect(again.kind).toBe('settled');
      expect(await limit.findById(orders[0].id)).toMatchObject({ status: 'completed', txHash: hash(1) });
      expect(await limit.findById(orders[1].id)).toMatchObject({ status: 'pending', keeperTxId: null });
      expect(await dca.findById(dcaOrderId)).toMatchObject({ status: 'successful' });
      expect(await txs.findById(id)).toMatchObject({
        status: 'settled',
        minedBlock: 7,
        minedBlockHash: hash(77),
      });
    });

    it('hands the transactions of a keeper that stopped renewing its lease to another, with their orders', async () => {
      const { orders, dcaOrderId, input } = await claimedBatch();
      const submitted = await txs.submitBatch(input, OWNER_A, 10_000, NOW);
      if (submitted.kind !== 'submitted') throw new Error('conflict');
      const id = submitted.transaction.id;
      expect(await txs.renewLease(id, OWNER_A, 10_000, NOW + 5000)).toBe(true);
      expect((await limit.findById(orders[0].id))?.leaseExpiresAt).toBe(NOW + 15_000);
      expect(await txs.takeOverExpired(OWNER_B, 10_000, NOW + 15_000)).toEqual([]);

      const taken = await txs.takeOverExpired(OWNER_B, 10_000, NOW + 15_001);
      expect(taken.map((t) => [t.id, t.leaseOwner, t.leaseExpiresAt, t.status])).toEqual([
        [id, OWNER_B, NOW + 25_001, 'signed'],
      ]);
      expect(await txs.takeOverExpired(OWNER_A, 10_000, NOW + 15_001)).toEqual([]);
      expect(await limit.findById(orders[2].id)).toMatchObject({ status: 'submitted', leaseOwner: OWNER_B });
      expect(await dca.findById(dcaOrderId)).toMatchObject({
        leaseOwner: OWNER_B,
        leaseExpiresAt: NOW + 25_001,
      });
      expect(await txs.renewLease(id, OWNER_A, 10_000, NOW + 15_002)).toBe(false);
      expect(await txs.markBroadcast(id, OWNER_A, 9, NOW + 15_002)).toBe(false);
      expect(await txs.markBroadcast(id, OWNER_B, 9, NOW + 15_002)).toBe(true);
      expect(await limit.listTrackedWithExpiredLease(NOW + 15_002)).toEqual([]);
      expect(await dca.listTrackedWithExpiredLease(NOW + 25_002)).toHaveLength(1);
    });

    it("leaves a keeper's own transaction to it when its lease ran out (the store was away): renewed, not taken over", async () => {
      const { orders, input } = await claimedBatch();
      const submitted = await txs.submitBatch(input, OWNER_A, 10_000, NOW);
      if (submitted.kind !== 'submitted') throw new Error('conflict');
      const id = submitted.transaction.id;
      const ids = (rows: { id: string }[]) => rows.map((r) => r.id).filter((taken) => taken === id);
      // Nothing renewed the lease for longer than it lasts.
      expect(ids(await txs.takeOverExpired(OWNER_A, 10_000, NOW + 20_000))).toEqual([]);
      expect(await txs.renewLease(id, OWNER_A, 10_000, NOW + 20_001)).toBe(true);
      expect(await txs.findById(id)).toMatchObject({ leaseOwner: OWNER_A, leaseExpiresAt: NOW + 30_001 });
      expect(await limit.findById(orders[0].id)).toMatchObject({
        leaseOwner: OWNER_A,
        leaseExpiresAt: NOW + 30_001,
      });
      // Another keeper still takes it over once the lease has run out.
      expect(ids(await txs.takeOverExpired(OWNER_B, 10_000, NOW + 30_002))).toEqual([id]);
      expect(await txs.findById(id)).toMatchObject({ leaseOwner: OWNER_B });
    });
  });

  describe('execution indices', () => {
    /** The first index the counter has not handed out yet. */
    async function nextIndex(): Promise<bigint> {
      const row = (await store.knex('execution_index_counter').where({ id: 1 }).first('next_index')) as {
        next_index: number | string;
      };
      return BigInt(row.next_index);
    }

    it('a claim gives its orders consecutive indices, once: a re-claim keeps them, a new order takes the next', async () => {
      const orders = await insertOrders(3);
      const start = await nextIndex();
      expect((await limit.findById(orders[0].id))?.execIndex).toBeNull();
      const claimed = await limit.claim(
        orders.map((o) => o.id),
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      const indices = claimed.map((o) => o.execIndex!).sort((a, b) => (a < b ? -1 : 1));
      expect(indices).toEqual([start, start + 1n, start + 2n]);
      expect(await nextIndex()).toBe(start + 3n);
      // Stored with the claim, as it returned them.
      for (const order of claimed) expect((await limit.findById(order.id))?.execIndex).toBe(order.execIndex);

      // Back to pending (a retry, a dropped batch, an expired lease) and claimed again: the same index.
      const [first] = claimed;
      expect(await limit.releaseLease(first.id, OWNER_A, NOW)).toBe(true);
      await limit.fail(claimed[1].id, OWNER_A, { reason: 'SWAP_FAILED', final: false }, NOW);
      const again = await limit.claim([first.id, claimed[1].id], OWNER_B, LEASE_MS, NOW + 1);
      expect(new Map(again.map((o) => [o.id, o.execIndex]))).toEqual(
        new Map([first, claimed[1]].map((o) => [o.id, o.execIndex])),
      );
      expect(await nextIndex()).toBe(start + 3n);

      const [late] = await insertOrders(1);
      expect((await limit.claim([late.id], OWNER_A, LEASE_MS, NOW))[0].execIndex).toBe(start + 3n);
    });

    it('limit orders and DCA iterations draw from one counter: no index is given twice', async () => {
      const strategy = await insertStrategy({ iterations: 3 });
      for (let i = 0; i < 3; i += 1) await dca.createIteration(strategy.id, i, NOW, 1, NOW);
      const iterations = await dca.listOrdersOfStrategy(strategy.id);
      const orders = await insertOrders(2);
      const start = await nextIndex();
      const a = await limit.claim([orders[0].id], OWNER_A, LEASE_MS, NOW);
      const d = await dca.claim(
        iterations.map((o) => o.id),
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      const b = await limit.claim([orders[1].id], OWNER_A, LEASE_MS, NOW);
      const all = [
        ...a.map((o) => o.execIndex),
        ...d.map((o) => o.order.execIndex),
        ...b.map((o) => o.execIndex),
      ];
      expect(all.every((i) => i !== null)).toBe(true);
      expect(new Set(all).size).toBe(5);
      expect(all.map((i) => i! - start).sort((x, y) => (x < y ? -1 : 1))).toEqual([0n, 1n, 2n, 3n, 4n]);
      // An iteration's index is its own for good, as a limit order's.
      expect((await dca.findById(d[0].order.id))?.execIndex).toBe(d[0].order.execIndex);
      expect(await dca.releaseLease(d[0].order.id, OWNER_A, NOW)).toBe(true);
      expect((await dca.claim([d[0].order.id], OWNER_B, LEASE_MS, NOW))[0].order.execIndex).toBe(
        d[0].order.execIndex,
      );
      // The columns refuse a duplicate. (Matched by message: better-sqlite3's native side throws the SqliteError of
      // the first test file that loaded it, which is no Error of a later file's realm, so `toThrow` would not see it.)
      await expect(
        store
          .knex('limit_orders')
          .where({ id: orders[1].id })
          .update({ exec_index: Number(a[0].execIndex) }),
      ).rejects.toMatchObject({ message: expect.stringMatching(/UNIQUE constraint failed|Duplicate entry/) });
    });
  });

  describe('concurrency', () => {
    let second: Knex;

    beforeAll(() => {
      // MySQL: a second pool, as a second keeper process would have. SQLite: one process keeps one connection
      // (better-sqlite3 waits for a lock synchronously, so a second connection in the same process would block
      // the event loop the first one needs to finish its transaction); writers are serialised by the database.
      second =
        kind === 'mysql'
          ? createKnex({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
          : store.knex;
    });

    afterAll(async () => {
      if (second !== store.knex) await second?.destroy();
    });

    it('two keepers claiming 200 orders in interleaved batches take each exactly once', async () => {
      const orders = await insertOrders(200);
      const ids = orders.map((o) => o.id);
      const keepers = [
        new KeeperLimitOrdersRepository(store.knex, store.dialect),
        new KeeperLimitOrdersRepository(second, store.dialect),
      ];
      const taken = await Promise.all(
        keepers.map(async (keeper, k) => {
          const mine: string[] = [];
          for (let round = 0; round < 50; round += 1) {
            const picks = shuffled(ids).slice(0, 40);
            // Several claims of one keeper in flight at once, over overlapping picks.
            const results = await Promise.all(
              [picks.slice(0, 25), picks.slice(15)].map((part) =>
                keeper.claim(part, `keeper-${k}`, LEASE_MS, NOW),
              ),
            );
            mine.push(...results.flat().map((o) => o.id));
            const left = await store.knex('limit_orders').where({ status: 'pending' }).count({ n: '*' });
            if (Number(left[0].n) === 0) break;
          }
          return mine;
        }),
      );
      const [first, other] = taken;
      const all = [...first, ...other];
      expect(new Set(all).size).toBe(all.length);
      // Whatever random picks missed is claimed by a final sweep; every order ends claimed exactly once.
      const rest = await keepers[0].claim(ids, 'keeper-0', LEASE_MS, NOW);
      expect(new Set([...all, ...rest.map((o) => o.id)])).toEqual(new Set(ids));
      expect(all.length + rest.length).toBe(200);
      const byKeeper1 = new Set(other);
      const rows: Array<{ id: string; lease_owner: string; status: string; version: number }> = await store
        .knex('limit_orders')
        .select('id', 'lease_owner', 'status', 'version');
      for (const row of rows) {
        expect([row.status, Number(row.version)]).toEqual(['executing', 1]);
        expect(row.lease_owner).toBe(byKeeper1.has(row.id) ? 'keeper-1' : 'keeper-0');
      }
      if (kind === 'mysql') expect(Math.min(first.length, other.length)).toBeGreaterThan(0);
    });

    it('two keepers claiming limit orders and DCA iterations at once never give one index twice', async () => {
      const orders = await insertOrders(120);
      const strategies = await Promise.all(
        Array.from({ length: 4 }, () => insertStrategy({ iterations: 10 })),
      );
      for (const strategy of strategies) {
        for (let i = 0; i < 10; i += 1) await dca.createIteration(strategy.id, i, NOW, 1, NOW);
      }
      const iterationIds = (
        await Promise.all(strategies.map((strategy) => dca.listOrdersOfStrategy(strategy.id)))
      ).flatMap((list) => list.map((o) => o.id));
      const keepers = [store.knex, second].map((db) => ({
        limit: new KeeperLimitOrdersRepository(db, store.dialect),
        dca: new KeeperDcaRepository(db, store.dialect),
      }));
      await Promise.all(
        keepers.map(async (keeper, k) => {
          for (let round = 0; round < 20; round += 1) {
            await Promise.all([
              keeper.limit.claim(
                shuffled(orders.map((o) => o.id)).slice(0, 12),
                `keeper-${k}`,
                LEASE_MS,
                NOW,
              ),
              keeper.dca.claim(shuffled(iterationIds).slice(0, 4), `keeper-${k}`, LEASE_MS, NOW),
            ]);
          }
        }),
      );
      await limit.claim(
        orders.map((o) => o.id),
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      await dca.claim(iterationIds, OWNER_A, LEASE_MS, NOW);
      const rows = [
        ...(await store.knex('limit_orders').select('exec_index')),
        ...(await store.knex('dca_orders').select('exec_index')),
      ] as Array<{ exec_index: number | string | null }>;
      expect(rows).toHaveLength(160);
      const indices = rows.map((row) => row.exec_index);
      expect(indices.every((i) => i !== null)).toBe(true);
      expect(new Set(indices.map(String)).size).toBe(160);
    });

    it('an api cancel racing a claim: each order is either cancelled or claimed, never both', async () => {
      const orders = await insertOrders(100);
      const ids = orders.map((o) => o.id);
      const keeper = new KeeperLimitOrdersRepository(second, store.dialect);
      const [cancels, claims] = await Promise.all([
        Promise.all(shuffled(ids).map((id) => store.limitOrders.cancelIfPending(API_KEY, id, NOW))),
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            keeper.claim(ids.slice(i * 10, i * 10 + 10), OWNER_B, LEASE_MS, NOW),
          ),
        ),
      ]);
      const claimed = new Set(claims.flat().map((o) => o.id));
      const cancelled = new Set(
        cancels.flatMap((result) => (result.kind === 'updated' ? [result.order.id] : [])),
      );
      for (const result of cancels) {
        if (result.kind === 'conflict') expect(result.status).toBe('executing');
      }
      for (const id of ids) expect(claimed.has(id) !== cancelled.has(id)).toBe(true);
      const rows: Array<{ id: string; status: string }> = await store
        .knex('limit_orders')
        .select('id', 'status');
      for (const row of rows) expect(row.status).toBe(claimed.has(row.id) ? 'executing' : 'cancelled');
    });

    it('a strategy cancel racing DCA claims: every order ends cancelled or claimed, never pending', async () => {
      const strategy = await insertStrategy({ iterations: 40 });
      const ids: string[] = [];
      for (let i = 0; i < 40; i += 1) {
        const created = await dca.createIteration(strategy.id, i, NOW, 1, NOW);
        if (created.kind === 'created') ids.push(created.order.id);
      }
      const keeper = new KeeperDcaRepository(second, store.dialect);
      const [claims, cancel] = await Promise.all([
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            keeper.claim(ids.slice(i * 5, i * 5 + 5), OWNER_B, LEASE_MS, NOW),
          ),
        ),
        store.dca.cancelStrategy(API_KEY, strategy.id, NOW),
      ]);
      expect(cancel.kind).toBe('updated');
      const claimed = new Set(claims.flat().map((c) => c.order.id));
      for (const order of await dca.listOrdersOfStrategy(strategy.id)) {
        expect(order.status).toBe(claimed.has(order.id) ? 'executing' : 'cancelled');
      }
      expect(await dca.createIteration(strategy.id, 40, NOW, 1, NOW)).toEqual({
        kind: 'not-active',
        status: 'cancelled',
      });
    });

    it('two keepers taking over expired transactions split them', async () => {
      const orders = await insertOrders(20);
      const claimed = await limit.claim(
        orders.map((o) => o.id),
        OWNER_A,
        LEASE_MS,
        NOW,
      );
      for (const [i, order] of claimed.entries()) {
        const result = await txs.submitBatch(
          batch({
            nonce: i,
            txHash: hash(i + 1),
            limitOrders: [
              { id: order.id, version: order.version, allowance: '', estimateGas: '', effectivePriceGas: '' },
            ],
          }),
          OWNER_A,
          1000,
          NOW,
        );
        expect(result.kind).toBe('submitted');
      }
      const other = new KeeperTransactionsRepository(second, store.dialect);
      const [x, y] = await Promise.all([
        txs.takeOverExpired('keeper-x', LEASE_MS, NOW + 2000),
        other.takeOverExpired('keeper-y', LEASE_MS, NOW + 2000),
      ]);
      expect(x.length + y.length).toBe(20);
      expect(new Set([...x, ...y].map((t) => t.id)).size).toBe(20);
    });
  });

  it('the keeper migration rolls back and applies again', async () => {
    await keeperMigration.down(store.knex);
    expect(await store.knex.schema.hasTable('keeper_transactions')).toBe(false);
    expect(await store.knex.schema.hasColumn('dca_orders', 'keeper_tx_id')).toBe(false);
    await keeperMigration.up(store.knex);
    expect(await store.knex.schema.hasColumn('limit_orders', 'keeper_tx_id')).toBe(true);
  });
});
