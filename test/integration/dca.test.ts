import { randomUUID } from 'node:crypto';
import { getAddress } from 'ethers';
import type { DcaOrder, DcaOrderStatus, DcaStrategy } from '../../shared/domain/dca';
import { dcaStrategyBody } from '../factories/dca-strategies';
import { ApiClient, newAccountClient, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const WETH = '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619';
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const MAKER = getAddress('0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1');
const OTHER_MAKER = getAddress('0xffcf8fdee72ac11b5c542428b35eef5769c409f0');
const SIGNATURE = `0x${'ab'.repeat(65)}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The first letter of the address with its case flipped: a mixed-case address whose checksum is wrong. */
function badChecksum(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i];
  return (
    address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1)
  );
}

type Body = Record<string, unknown>;

function strategyBody(overrides: Body = {}): Body {
  return dcaStrategyBody({ accountTo: MAKER, totalAmount: 123.456789, ...overrides });
}

interface StrategyJson {
  id: string;
  accountTo: string;
  status: string;
  minPrice?: number;
  maxPrice?: number;
  createdAt: string;
  updatedAt: string;
  orders?: OrderJson[];
  [key: string]: unknown;
}

interface OrderJson {
  id: string;
  strategyId: string;
  status: string;
  updatedAt: string;
  [key: string]: unknown;
}

const validationError = (details: Array<{ field: string; message: string }>) => ({
  code: 'VALIDATION_ERROR',
  message: 'Invalid request body',
  details,
});

describeEachStore('DCA strategies and orders', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;
  let stranger: ApiClient;

  beforeAll(async () => {
    running = await startApiOn(kind);
    client = await newAccountClient(running.baseUrl);
    stranger = await newAccountClient(running.baseUrl);
  });
  afterAll(async () => running?.close());

  async function create(by: ApiClient, overrides: Body = {}): Promise<StrategyJson> {
    const res = await by.post<StrategyJson>('/dca-order/strategies', strategyBody(overrides));
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.body.data!;
  }

  async function seedOrder(
    strategy: StrategyJson,
    by: ApiClient,
    iteration: number,
    status: DcaOrderStatus,
    extra: Partial<DcaOrder> = {},
  ): Promise<DcaOrder> {
    const created = Date.parse(strategy.createdAt);
    const order: DcaOrder = {
      id: randomUUID(),
      strategyId: strategy.id,
      apiKey: by.credentials.apiKey,
      accountTo: strategy.accountTo,
      iteration,
      slotAt: created + iteration * 3_600_000,
      amount: 30.86419725,
      amountReceived: null,
      executionPrice: null,
      status,
      transactionHash: null,
      errorMessage: null,
      diagnosis: null,
      createdAt: created + iteration * 3_600_000 + 5,
      updatedAt: created + iteration * 3_600_000 + 5,
      ...extra,
    };
    await running.store.dca.insertOrder(order);
    return order;
  }

  /** Moves a strategy's times back so a later change shows in `updatedAt`. */
  async function backdate(id: string, ms: number): Promise<void> {
    await running.store.knex('dca_strategies').where({ id }).update({ created_at: ms, updated_at: ms });
  }

  describe('POST /dca-order/strategies', () => {
    it('creates an active strategy and returns exactly the spec fields', async () => {
      const before = Date.now();
      const res = await client.post<StrategyJson>('/dca-order/strategies', strategyBody());
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          accountTo: MAKER,
          chainIdFrom: 137,
          chainIdTo: 137,
          tokenAddressFrom: USDC,
          tokenAddressTo: WETH,
          tokenSymbolFrom: 'USDC',
          tokenSymbolTo: 'WETH',
          totalAmount: 123.456789,
          iterations: 4,
          frequency: 3600,
          slippage: 0.5,
          status: 'active',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
        meta: {
          requestId: res.headers.get('apigw-requestid'),
          version: 'v1',
          accountType: 'integrator',
          apiKeyId: client.credentials.apiKey,
        },
      });
      const data = res.body.data!;
      for (const hidden of ['pair', 'signature', 'orders', 'minPrice', 'maxPrice'])
        expect(data).not.toHaveProperty(hidden);
      expect(data.updatedAt).toBe(data.createdAt);
      expect(Date.parse(data.createdAt)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(data.createdAt)).toBeLessThanOrEqual(after);

      const read = await client.get<StrategyJson>(`/dca-order/strategies/${data.id}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(data);
    });

    it('creates a cancelled strategy with price bounds and no orders', async () => {
      const res = await client.post<StrategyJson>(
        '/dca-order/strategies',
        strategyBody({ status: 'cancelled', minPrice: 0.0003, maxPrice: 0.0005 }),
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'cancelled', minPrice: 0.0003, maxPrice: 0.0005 });
      const orders = await client.get<OrderJson[]>(`/dca-order/strategies/${res.body.data!.id}/orders`);
      expect(orders.status).toBe(200);
      expect(orders.body.data).toEqual([]);
    });

    it('reads slippage as 0 when absent, treats null bounds as unset and ignores unknown fields', async () => {
      const body = strategyBody({ minPrice: null, maxPrice: null, foo: 'bar', orders: [1] });
      delete body.slippage;
      const res = await client.post<StrategyJson>('/dca-order/strategies', body);
      expect(res.status).toBe(200);
      expect(res.body.data!.slippage).toBe(0);
      for (const absent of ['minPrice', 'maxPrice', 'foo', 'orders'])
        expect(res.body.data).not.toHaveProperty(absent);
    });

    it('stores the fee cap the signature was made for (none when absent) and does not return it', async () => {
      const signed = await create(client, { maxFeeBps: 30 });
      expect(signed).not.toHaveProperty('maxFeeBps');
      const stored = await running.store.dca.findStrategyForKey(client.credentials.apiKey, signed.id);
      expect(stored?.maxFeeBps).toBe(30);
      const unsigned = await create(client);
      expect(
        (await running.store.dca.findStrategyForKey(client.credentials.apiKey, unsigned.id))?.maxFeeBps,
      ).toBe(null);
    });

    it('accepts the native pseudo-address as the token bought, in either casing, and keeps it as sent', async () => {
      for (const native of [NATIVE, NATIVE.replace(/e/g, 'E')]) {
        const res = await client.post<StrategyJson>(
          '/dca-order/strategies',
          strategyBody({ tokenAddressTo: native, tokenSymbolTo: 'POL', pair: 'USDC/POL' }),
        );
        expect(res.status).toBe(200);
        expect(res.body.data!.tokenAddressTo).toBe(native);
      }
    });

    it.each<[string, Body, Array<{ field: string; message: string }>]>([
      [
        'totalAmount as a string',
        { totalAmount: '100' },
        [{ field: 'totalAmount', message: 'Must be a number' }],
      ],
      ['slippage as a string', { slippage: '0.5' }, [{ field: 'slippage', message: 'Must be a number' }]],
      ['minPrice as a string', { minPrice: '1' }, [{ field: 'minPrice', message: 'Must be a number' }]],
      ['maxPrice as a string', { maxPrice: '2' }, [{ field: 'maxPrice', message: 'Must be a number' }]],
      [
        'chainIdFrom as a string',
        { chainIdFrom: '137' },
        [{ field: 'chainIdFrom', message: 'Must be an integer' }],
      ],
      [
        'chainIdTo as a string',
        { chainIdTo: '137' },
        [{ field: 'chainIdTo', message: 'Must be an integer' }],
      ],
      [
        'iterations as a fraction',
        { iterations: 1.5 },
        [{ field: 'iterations', message: 'Must be an integer' }],
      ],
      ['iterations 0', { iterations: 0 }, [{ field: 'iterations', message: 'Must be at least 1' }]],
      [
        'iterations above 10000',
        { iterations: 10001 },
        [{ field: 'iterations', message: 'Must be at most 10000' }],
      ],
      ['frequency 0', { frequency: 0 }, [{ field: 'frequency', message: 'Must be at least 1' }]],
      ['maxFeeBps -1', { maxFeeBps: -1 }, [{ field: 'maxFeeBps', message: 'Must be at least 0' }]],
      ['maxFeeBps 1001', { maxFeeBps: 1001 }, [{ field: 'maxFeeBps', message: 'Must be at most 1000' }]],
      ['maxFeeBps as a string', { maxFeeBps: '30' }, [{ field: 'maxFeeBps', message: 'Must be an integer' }]],
      ['frequency as a string', { frequency: '60' }, [{ field: 'frequency', message: 'Must be an integer' }]],
      ['totalAmount 0', { totalAmount: 0 }, [{ field: 'totalAmount', message: 'Must be greater than 0' }]],
      [
        'negative totalAmount',
        { totalAmount: -5 },
        [{ field: 'totalAmount', message: 'Must be greater than 0' }],
      ],
      ['slippage 100', { slippage: 100 }, [{ field: 'slippage', message: 'Must be less than 100' }]],
      ['negative slippage', { slippage: -0.1 }, [{ field: 'slippage', message: 'Must be at least 0' }]],
      ['minPrice 0', { minPrice: 0 }, [{ field: 'minPrice', message: 'Must be greater than 0' }]],
      ['negative maxPrice', { maxPrice: -1 }, [{ field: 'maxPrice', message: 'Must be greater than 0' }]],
      [
        'minPrice above maxPrice',
        { minPrice: 5, maxPrice: 2 },
        [{ field: 'minPrice', message: 'Must not be greater than maxPrice' }],
      ],
      [
        'status finished',
        { status: 'finished' },
        [{ field: 'status', message: 'Must be one of: active, cancelled' }],
      ],
      [
        'status pending',
        { status: 'pending' },
        [{ field: 'status', message: 'Must be one of: active, cancelled' }],
      ],
      [
        'a short signature',
        { signature: '0x1234' },
        [{ field: 'signature', message: 'Must be a 65-byte hex signature (0x plus 130 hex characters)' }],
      ],
      [
        'accountTo with a wrong checksum',
        { accountTo: badChecksum(MAKER) },
        [{ field: 'accountTo', message: 'Must be a valid EVM address' }],
      ],
      [
        'accountTo too short',
        { accountTo: '0x1234' },
        [{ field: 'accountTo', message: 'Must be a valid EVM address' }],
      ],
      [
        'the native token as tokenAddressFrom',
        { tokenAddressFrom: NATIVE, tokenSymbolFrom: 'POL', pair: 'POL/WETH' },
        [
          {
            field: 'tokenAddressFrom',
            message:
              'Must be a valid ERC-20 token address (the native token cannot be sold; use the wrapped token)',
          },
        ],
      ],
      [
        'tokenAddressTo with a wrong checksum',
        { tokenAddressTo: badChecksum(WETH) },
        [{ field: 'tokenAddressTo', message: 'Must be a valid EVM address' }],
      ],
      [
        'a token not listed on the chain',
        { tokenAddressTo: OTHER_MAKER },
        [{ field: 'tokenAddressTo', message: 'Token is not listed on chain 137' }],
      ],
      [
        'the same token on both sides',
        { tokenAddressTo: USDC.toLowerCase(), tokenSymbolTo: 'USDC', pair: 'USDC/USDC' },
        [{ field: 'tokenAddressTo', message: 'Must differ from tokenAddressFrom' }],
      ],
      [
        'two different chains',
        { chainIdTo: 1 },
        [{ field: 'chainIdTo', message: 'Must equal chainIdFrom (a DCA strategy runs on one chain)' }],
      ],
      [
        'a chain that is not enabled',
        { chainIdFrom: 5, chainIdTo: 5 },
        [{ field: 'chainIdFrom', message: 'Chain 5 is not enabled' }],
      ],
      [
        'a pair that does not join the symbols',
        { pair: 'USDC-WETH' },
        [{ field: 'pair', message: 'Must be "USDC/WETH" (tokenSymbolFrom/tokenSymbolTo)' }],
      ],
      [
        'a pair in the other direction',
        { pair: 'WETH/USDC' },
        [{ field: 'pair', message: 'Must be "USDC/WETH" (tokenSymbolFrom/tokenSymbolTo)' }],
      ],
      [
        'an empty symbol',
        { tokenSymbolFrom: '' },
        [{ field: 'tokenSymbolFrom', message: 'Must not be empty' }],
      ],
      [
        'a missing totalAmount',
        { totalAmount: undefined },
        [{ field: 'totalAmount', message: 'Is required' }],
      ],
      ['a missing signature', { signature: undefined }, [{ field: 'signature', message: 'Is required' }]],
    ])('rejects %s with 400 and creates nothing', async (_name, overrides, details) => {
      const body = strategyBody(overrides);
      for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
      const before = await running.store.knex('dca_strategies').count({ n: '*' });
      const res = await client.post('/dca-order/strategies', body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toEqual(validationError(details));
      expect(await running.store.knex('dca_strategies').count({ n: '*' })).toEqual(before);
    });

    it('lists every missing field of an empty body', async () => {
      const res = await client.post('/dca-order/strategies', {});
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        validationError(
          [
            'accountTo',
            'chainIdFrom',
            'chainIdTo',
            'tokenAddressFrom',
            'tokenAddressTo',
            'tokenSymbolFrom',
            'tokenSymbolTo',
            'pair',
            'totalAmount',
            'iterations',
            'frequency',
            'signature',
          ].map((field) => ({ field, message: 'Is required' })),
        ),
      );
    });

    it('reports every rule broken at once', async () => {
      const res = await client.post(
        '/dca-order/strategies',
        strategyBody({ chainIdTo: 1, pair: 'X/Y', totalAmount: 0, slippage: 100 }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        validationError([
          { field: 'chainIdTo', message: 'Must equal chainIdFrom (a DCA strategy runs on one chain)' },
          { field: 'pair', message: 'Must be "USDC/WETH" (tokenSymbolFrom/tokenSymbolTo)' },
          { field: 'totalAmount', message: 'Must be greater than 0' },
          { field: 'slippage', message: 'Must be less than 100' },
        ]),
      );
    });
  });

  describe('GET /dca-order/strategies', () => {
    let lister: ApiClient;
    let oldest: StrategyJson;
    let middle: StrategyJson;
    let newest: StrategyJson;
    let seeded: DcaOrder[];
    const t0 = Date.parse('2026-11-01T00:00:00.000Z');

    beforeAll(async () => {
      lister = await newAccountClient(running.baseUrl);
      oldest = await create(lister);
      middle = await create(lister, { accountTo: OTHER_MAKER, status: 'cancelled' });
      newest = await create(lister, { minPrice: 1 });
      await backdate(oldest.id, t0);
      await backdate(middle.id, t0 + 1000);
      await backdate(newest.id, t0 + 2000);
      oldest = { ...oldest, createdAt: new Date(t0).toISOString(), updatedAt: new Date(t0).toISOString() };
      middle = {
        ...middle,
        createdAt: new Date(t0 + 1000).toISOString(),
        updatedAt: new Date(t0 + 1000).toISOString(),
      };
      newest = {
        ...newest,
        createdAt: new Date(t0 + 2000).toISOString(),
        updatedAt: new Date(t0 + 2000).toISOString(),
      };
      // Inserted out of order: the list must sort them, not echo insertion order.
      seeded = [];
      for (const iteration of [2, 0, 1]) seeded.push(await seedOrder(oldest, lister, iteration, 'pending'));
      seeded.sort((a, b) => a.iteration - b.iteration);
    });

    const ids = (list: StrategyJson[] | undefined): string[] => (list ?? []).map((s) => s.id);

    it('lists newest first, each strategy with its orders oldest first', async () => {
      const res = await lister.get<StrategyJson[]>('/dca-order/strategies');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        { ...newest, orders: [] },
        { ...middle, orders: [] },
        {
          ...oldest,
          orders: seeded.map((o) => ({
            id: o.id,
            strategyId: oldest.id,
            accountTo: MAKER,
            amount: 30.86419725,
            status: 'pending',
            createdAt: new Date(o.createdAt).toISOString(),
            updatedAt: new Date(o.updatedAt).toISOString(),
          })),
        },
      ]);
    });

    it('breaks ties on createdAt by id, the same on every read', async () => {
      const tied = await newAccountClient(running.baseUrl);
      const a = await create(tied);
      const b = await create(tied);
      await backdate(a.id, t0);
      await backdate(b.id, t0);
      const res = await tied.get<StrategyJson[]>('/dca-order/strategies');
      expect(ids(res.body.data)).toEqual([a.id, b.id].sort().reverse());
    });

    it('filters by accountTo exactly and case-sensitively', async () => {
      expect(
        ids((await lister.get<StrategyJson[]>(`/dca-order/strategies?accountTo=${MAKER}`)).body.data),
      ).toEqual([newest.id, oldest.id]);
      const lower = await lister.get<StrategyJson[]>(
        `/dca-order/strategies?accountTo=${MAKER.toLowerCase()}`,
      );
      expect(lower.status).toBe(200);
      expect(lower.body.data).toEqual([]);
    });

    it('filters by status and combines filters with AND', async () => {
      expect(
        ids((await lister.get<StrategyJson[]>('/dca-order/strategies?status=active')).body.data),
      ).toEqual([newest.id, oldest.id]);
      expect(
        ids((await lister.get<StrategyJson[]>('/dca-order/strategies?status=cancelled')).body.data),
      ).toEqual([middle.id]);
      expect((await lister.get<StrategyJson[]>('/dca-order/strategies?status=finished')).body.data).toEqual(
        [],
      );
      const both = await lister.get<StrategyJson[]>(
        `/dca-order/strategies?status=cancelled&accountTo=${MAKER}`,
      );
      expect(both.body.data).toEqual([]);
      const match = await lister.get<StrategyJson[]>(
        `/dca-order/strategies?status=cancelled&accountTo=${OTHER_MAKER}`,
      );
      expect(ids(match.body.data)).toEqual([middle.id]);
    });

    it.each([
      ['a repeated status', '?status=active&status=active'],
      ['a repeated accountTo', `?accountTo=${MAKER}&accountTo=${MAKER}`],
      ['an unknown status', '?status=bogus'],
      ['the reserved pending status', '?status=pending'],
      ['an empty status', '?status='],
      ['an uppercase status', '?status=ACTIVE'],
    ])('answers %s with 200 and an empty array', async (_name, query) => {
      const res = await lister.get<StrategyJson[]>(`/dca-order/strategies${query}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual([]);
    });

    it('ignores unknown parameters, even repeated ones', async () => {
      const res = await lister.get<StrategyJson[]>('/dca-order/strategies?foo=bar&foo=baz&accountto=nobody');
      expect(res.status).toBe(200);
      expect(ids(res.body.data)).toEqual([newest.id, middle.id, oldest.id]);
    });

    it("lists only the signing key's strategies", async () => {
      const fresh = await newAccountClient(running.baseUrl);
      const res = await fresh.get<StrategyJson[]>('/dca-order/strategies');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });

    it('attaches every order when the list is longer than one orders query holds', async () => {
      const bulk = await newAccountClient(running.baseUrl);
      const total = 1002;
      const template: DcaStrategy = {
        id: '',
        apiKey: bulk.credentials.apiKey,
        accountTo: MAKER,
        chainIdFrom: 137,
        chainIdTo: 137,
        tokenAddressFrom: USDC,
        tokenAddressTo: WETH,
        tokenSymbolFrom: 'USDC',
        tokenSymbolTo: 'WETH',
        pair: 'USDC/WETH',
        totalAmount: 10,
        iterations: 4,
        frequency: 3600,
        slippage: 0,
        minPrice: null,
        maxPrice: null,
        status: 'active',
        signature: SIGNATURE,
        maxFeeBps: null,
        iterationsCreated: 0,
        version: 0,
        createdAt: 0,
        updatedAt: 0,
      };
      const made: StrategyJson[] = [];
      for (let i = 0; i < total; i += 1) {
        const id = randomUUID();
        await running.store.dca.insertStrategy({ ...template, id, createdAt: t0 + i, updatedAt: t0 + i });
        made.push({
          id,
          accountTo: MAKER,
          status: 'active',
          createdAt: new Date(t0 + i).toISOString(),
          updatedAt: '',
        });
      }
      // The oldest and the newest fall in different chunks of the orders query.
      const first = await seedOrder(made[0], bulk, 0, 'pending');
      const last = await seedOrder(made[total - 1], bulk, 0, 'executing');
      const res = await bulk.get<StrategyJson[]>('/dca-order/strategies');
      expect(res.status).toBe(200);
      const list = res.body.data!;
      expect(ids(list)).toEqual(made.map((m) => m.id).reverse());
      expect(list[0].orders!.map((o) => o.id)).toEqual([last.id]);
      expect(list[total - 1].orders!.map((o) => o.id)).toEqual([first.id]);
      expect(list.slice(1, total - 1).every((s) => s.orders!.length === 0)).toBe(true);
    });
  });

  describe('reading one strategy, its orders and one order', () => {
    let strategy: StrategyJson;
    let successful: DcaOrder;
    let failed: DcaOrder;
    let pending: DcaOrder;

    beforeAll(async () => {
      strategy = await create(client);
      pending = await seedOrder(strategy, client, 2, 'pending');
      successful = await seedOrder(strategy, client, 0, 'successful', {
        amountReceived: 0.0123,
        executionPrice: 0.000398,
        transactionHash: `0x${'1f'.repeat(32)}`,
      });
      failed = await seedOrder(strategy, client, 1, 'error', { errorMessage: 'Allowance too low' });
    });

    it('returns a DCA order with execution fields only once executed', async () => {
      const ok = await client.get<OrderJson>(`/dca-order/orders/${successful.id}`);
      expect(ok.status).toBe(200);
      expect(ok.body.data).toEqual({
        id: successful.id,
        strategyId: strategy.id,
        accountTo: MAKER,
        amount: 30.86419725,
        amountReceived: 0.0123,
        executionPrice: 0.000398,
        status: 'successful',
        transactionHash: `0x${'1f'.repeat(32)}`,
        createdAt: new Date(successful.createdAt).toISOString(),
        updatedAt: new Date(successful.updatedAt).toISOString(),
      });

      const bad = await client.get<OrderJson>(`/dca-order/orders/${failed.id}`);
      expect(bad.body.data).toEqual({
        id: failed.id,
        strategyId: strategy.id,
        accountTo: MAKER,
        amount: 30.86419725,
        status: 'error',
        errorMessage: 'Allowance too low',
        createdAt: new Date(failed.createdAt).toISOString(),
        updatedAt: new Date(failed.updatedAt).toISOString(),
      });

      const waiting = await client.get<OrderJson>(`/dca-order/orders/${pending.id}`);
      expect(Object.keys(waiting.body.data!).sort()).toEqual(
        ['accountTo', 'amount', 'createdAt', 'id', 'status', 'strategyId', 'updatedAt'].sort(),
      );
    });

    it("lists the strategy's orders oldest first", async () => {
      const res = await client.get<OrderJson[]>(`/dca-order/strategies/${strategy.id}/orders`);
      expect(res.status).toBe(200);
      expect(res.body.data!.map((o) => o.id)).toEqual([successful.id, failed.id, pending.id]);
    });

    const notFound = (message: string) => ({ code: 'NOT_FOUND', message, details: [] });

    it("answers 404 for another key's strategy and orders", async () => {
      for (const path of [
        `/dca-order/strategies/${strategy.id}`,
        `/dca-order/strategies/${strategy.id}/orders`,
      ]) {
        const res = await stranger.get(path);
        expect(res.status).toBe(404);
        expect(res.body.success).toBe(false);
        expect(res.body.error).toEqual(notFound('DCA strategy not found'));
        expect(res.body.meta.apiKeyId).toBe(stranger.credentials.apiKey);
      }
      const patch = await stranger.patch(`/dca-order/strategies/${strategy.id}`, { status: 'cancelled' });
      expect(patch.status).toBe(404);
      expect(patch.body.error).toEqual(notFound('DCA strategy not found'));
      expect((await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`)).body.data!.status).toBe(
        'active',
      );

      const order = await stranger.get(`/dca-order/orders/${successful.id}`);
      expect(order.status).toBe(404);
      expect(order.body.error).toEqual(notFound('DCA order not found'));
    });

    it.each(['not-a-uuid', randomUUID(), 'x'.repeat(100)])(
      'answers 404 for the unknown ID %s',
      async (id) => {
        for (const path of [`/dca-order/strategies/${id}`, `/dca-order/strategies/${id}/orders`]) {
          const res = await client.get(path);
          expect(res.status).toBe(404);
          expect(res.body.error).toEqual(notFound('DCA strategy not found'));
        }
        const patch = await client.patch(`/dca-order/strategies/${id}`, { status: 'cancelled' });
        expect(patch.status).toBe(404);
        expect(patch.body.error).toEqual(notFound('DCA strategy not found'));
        const order = await client.get(`/dca-order/orders/${id}`);
        expect(order.status).toBe(404);
        expect(order.body.error).toEqual(notFound('DCA order not found'));
      },
    );

    it('does not take a strategy ID for an order ID or the reverse', async () => {
      const asOrder = await client.get(`/dca-order/orders/${strategy.id}`);
      expect(asOrder.status).toBe(404);
      expect(asOrder.body.error).toEqual(notFound('DCA order not found'));
      const asStrategy = await client.get(`/dca-order/strategies/${successful.id}`);
      expect(asStrategy.status).toBe(404);
      expect(asStrategy.body.error).toEqual(notFound('DCA strategy not found'));
    });

    it.each([
      (id: string) => `/dca-order/strategies/${id}`,
      (id: string) => `/dca-order/strategies/${id}/orders`,
      () => '/dca-order/strategies',
      (id: string) => `/dca-order/orders/${id}`,
    ])('has no DELETE on DCA paths (%#)', async (pathOf) => {
      const path = pathOf(strategy.id);
      const res = await client.delete<Envelope>(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: `No route for DELETE /api/v1${path}`, details: [] },
        meta: { requestId: res.headers.get('apigw-requestid'), version: 'v1' },
      });
      expect((await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`)).body.data!.status).toBe(
        'active',
      );
    });
  });

  describe('PATCH /dca-order/strategies/{id}', () => {
    const t0 = Date.parse('2026-11-02T00:00:00.000Z');

    const versionOf = async (id: string): Promise<number> => {
      const row = (await running.store.knex('dca_strategies').where({ id }).first()) as {
        version: number | string;
      };
      return Number(row.version);
    };
    const orderStatuses = async (strategyId: string): Promise<Array<[number, string, number]>> => {
      const rows = (await running.store
        .knex('dca_orders')
        .where({ strategy_id: strategyId })
        .orderBy('iteration')) as Array<{ iteration: number; status: string; updated_at: number | string }>;
      return rows.map((r) => [Number(r.iteration), r.status, Number(r.updated_at)]);
    };

    it('cancels an active strategy, cascading to its pending orders only, and is safe to repeat', async () => {
      const strategy = await create(client);
      const sibling = await create(client);
      await backdate(strategy.id, t0);
      const done = await seedOrder(
        { ...strategy, createdAt: new Date(t0).toISOString() },
        client,
        0,
        'successful',
        {
          amountReceived: 1,
          executionPrice: 2,
          transactionHash: `0x${'2e'.repeat(32)}`,
        },
      );
      await seedOrder({ ...strategy, createdAt: new Date(t0).toISOString() }, client, 1, 'executing');
      await seedOrder({ ...strategy, createdAt: new Date(t0).toISOString() }, client, 2, 'pending');
      await seedOrder({ ...strategy, createdAt: new Date(t0).toISOString() }, client, 3, 'pending');
      await seedOrder(sibling, client, 0, 'pending');
      expect(await versionOf(strategy.id)).toBe(0);

      const before = Date.now();
      const res = await client.patch<StrategyJson>(`/dca-order/strategies/${strategy.id}`, {
        status: 'cancelled',
      });
      expect(res.status).toBe(200);
      const updatedAt = Date.parse(res.body.data!.updatedAt);
      expect(updatedAt).toBeGreaterThanOrEqual(before);
      expect(res.body.data).toEqual({
        ...strategy,
        status: 'cancelled',
        createdAt: new Date(t0).toISOString(),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(await versionOf(strategy.id)).toBe(1);
      expect(await orderStatuses(strategy.id)).toEqual([
        [0, 'successful', done.updatedAt],
        [1, 'executing', t0 + 3_600_000 + 5],
        [2, 'cancelled', updatedAt],
        [3, 'cancelled', updatedAt],
      ]);
      expect((await orderStatuses(sibling.id)).map(([, status]) => status)).toEqual(['pending']);
      expect((await client.get<StrategyJson>(`/dca-order/strategies/${sibling.id}`)).body.data!.status).toBe(
        'active',
      );

      const again = await client.patch<StrategyJson>(`/dca-order/strategies/${strategy.id}`, {
        status: 'cancelled',
      });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(res.body.data);
      expect(await versionOf(strategy.id)).toBe(1);

      const listed = await client.get<OrderJson[]>(`/dca-order/strategies/${strategy.id}/orders`);
      expect(listed.body.data!.map((o) => o.status)).toEqual([
        'successful',
        'executing',
        'cancelled',
        'cancelled',
      ]);
    });

    it('refuses any change to a finished strategy with 409 and leaves it unchanged', async () => {
      const strategy = await create(client, { minPrice: 1 });
      // The keeper finishes a strategy; the test plays its part.
      await running.store.knex('dca_strategies').where({ id: strategy.id }).update({ status: 'finished' });
      for (const body of [
        { status: 'cancelled' },
        { minPrice: 2 },
        { maxPrice: null },
        { status: 'cancelled', minPrice: 2 },
      ]) {
        const res = await client.patch(`/dca-order/strategies/${strategy.id}`, body);
        expect(res.status).toBe(409);
        expect(res.body.success).toBe(false);
        expect(res.body.error).toEqual({
          code: 'CONFLICT',
          message: 'DCA strategy can only be modified while active (current status: finished)',
          details: [],
        });
      }
      const read = await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`);
      expect(read.body.data).toEqual({ ...strategy, status: 'finished' });
      expect(await versionOf(strategy.id)).toBe(0);
    });

    it('refuses new price bounds on a cancelled strategy with 409', async () => {
      const strategy = await create(client, { status: 'cancelled', maxPrice: 5 });
      for (const body of [{ minPrice: 1 }, { maxPrice: null }, { status: 'cancelled', maxPrice: 6 }]) {
        const res = await client.patch(`/dca-order/strategies/${strategy.id}`, body);
        expect(res.status).toBe(409);
        expect(res.body.error).toEqual({
          code: 'CONFLICT',
          message: 'DCA strategy can only be modified while active (current status: cancelled)',
          details: [],
        });
      }
      expect((await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`)).body.data).toEqual(
        strategy,
      );
    });

    it('sets, merges and clears price bounds on an active strategy', async () => {
      const strategy = await create(client, { minPrice: 1, maxPrice: 10 });
      await backdate(strategy.id, t0);
      const patch = (body: Body) => client.patch<StrategyJson>(`/dca-order/strategies/${strategy.id}`, body);

      const raised = await patch({ minPrice: 2 });
      expect(raised.status).toBe(200);
      expect(raised.body.data).toEqual({
        ...strategy,
        minPrice: 2,
        maxPrice: 10,
        createdAt: new Date(t0).toISOString(),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(raised.body.data!.updatedAt)).toBeGreaterThan(t0);
      expect(await versionOf(strategy.id)).toBe(1);

      const cleared = await patch({ maxPrice: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data!.minPrice).toBe(2);
      expect(cleared.body.data).not.toHaveProperty('maxPrice');

      const both = await patch({ minPrice: 20, maxPrice: 30.5 });
      expect(both.body.data).toMatchObject({ minPrice: 20, maxPrice: 30.5, status: 'active' });

      const crossedMin = await patch({ minPrice: 31 });
      expect(crossedMin.status).toBe(400);
      expect(crossedMin.body.error).toEqual(
        validationError([
          { field: 'minPrice', message: 'Must not be greater than maxPrice (stored maxPrice: 30.5)' },
        ]),
      );
      const crossedMax = await patch({ maxPrice: 19 });
      expect(crossedMax.status).toBe(400);
      expect(crossedMax.body.error).toEqual(
        validationError([
          { field: 'maxPrice', message: 'Must not be less than minPrice (stored minPrice: 20)' },
        ]),
      );
      expect(await versionOf(strategy.id)).toBe(3);

      const read = await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`);
      expect(read.body.data).toMatchObject({ minPrice: 20, maxPrice: 30.5, status: 'active' });

      const clearedBoth = await patch({ minPrice: null, maxPrice: null });
      expect(clearedBoth.body.data).not.toHaveProperty('minPrice');
      expect(clearedBoth.body.data).not.toHaveProperty('maxPrice');
    });

    it('cancels and moves the bounds in one request', async () => {
      const strategy = await create(client);
      const res = await client.patch<StrategyJson>(`/dca-order/strategies/${strategy.id}`, {
        status: 'cancelled',
        minPrice: 3,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'cancelled', minPrice: 3 });
      expect(await versionOf(strategy.id)).toBe(1);
    });

    it.each<[string, Body, Array<{ field: string; message: string }>]>([
      [
        'an empty body',
        {},
        [{ field: 'body', message: 'Must contain at least one of: status, minPrice, maxPrice' }],
      ],
      [
        'only unknown fields',
        { foo: 1, accountTo: OTHER_MAKER },
        [{ field: 'body', message: 'Must contain at least one of: status, minPrice, maxPrice' }],
      ],
      ['status active', { status: 'active' }, [{ field: 'status', message: 'Must be one of: cancelled' }]],
      [
        'status finished',
        { status: 'finished' },
        [{ field: 'status', message: 'Must be one of: cancelled' }],
      ],
      [
        'status null',
        { status: null },
        [
          { field: 'status', message: 'Must be a string' },
          { field: 'status', message: 'Must be one of: cancelled' },
        ],
      ],
      ['minPrice as a string', { minPrice: '2' }, [{ field: 'minPrice', message: 'Must be a number' }]],
      ['minPrice 0', { minPrice: 0 }, [{ field: 'minPrice', message: 'Must be greater than 0' }]],
      ['negative maxPrice', { maxPrice: -3 }, [{ field: 'maxPrice', message: 'Must be greater than 0' }]],
      [
        'crossed bounds',
        { minPrice: 4, maxPrice: 3 },
        [{ field: 'minPrice', message: 'Must not be greater than maxPrice' }],
      ],
    ])('rejects %s with 400 and changes nothing', async (_name, body, details) => {
      const strategy = await create(client, { minPrice: 1, maxPrice: 5 });
      const res = await client.patch(`/dca-order/strategies/${strategy.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(validationError(details));
      expect((await client.get<StrategyJson>(`/dca-order/strategies/${strategy.id}`)).body.data).toEqual(
        strategy,
      );
      expect(await versionOf(strategy.id)).toBe(0);
    });
  });
});
