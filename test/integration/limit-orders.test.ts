import { randomUUID } from 'node:crypto';
import type { LimitOrderResponse } from '../../shared/domain/limit-order-json';
import { LIMIT_ORDER_SERVICE_FIELDS } from '../../shared/domain/limit-order';
import { limitOrderBody } from '../factories/limit-orders';
import { ApiClient, newAccountClient, type ApiResponse, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

// Tokens of config/tokenlists/1.json and 137.json.
const CHAIN1 = {
  WETH: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  USDC: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  USDT: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  DAI: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
  WBTC: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599',
};
const CHAIN137 = {
  WMATIC: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
  USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
};
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const OTHER_MAKER = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const SIGNATURE = `0x${'ab'.repeat(65)}`;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const INVALID_BODY = 'Invalid request body';

type Order = LimitOrderResponse;

const inADay = (): string => String(Date.now() + DAY_MS);

function expectValidationError(
  res: ApiResponse<Envelope<unknown>>,
  details: Array<{ field?: string; message: string }>,
  message = INVALID_BODY,
): void {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.data).toBeUndefined();
  expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message, details });
}

function expectNotFound(res: ApiResponse<Envelope<unknown>>): void {
  expect(res.status).toBe(404);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'Limit order not found', details: [] });
}

function expectConflict(res: ApiResponse<Envelope<unknown>>, status: string): void {
  expect(res.status).toBe(409);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toEqual({
    code: 'CONFLICT',
    message: `Limit order can only be modified while pending (current status: ${status})`,
    details: [],
  });
}

describeEachStore('limit orders', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;
  let other: ApiClient;

  beforeAll(async () => {
    running = await startApiOn(kind);
    [client, other] = await Promise.all([
      newAccountClient(running.baseUrl),
      newAccountClient(running.baseUrl),
    ]);
    const updatedAt = Date.now();
    await running.store.referencePrices.upsert([
      { chainId: 1, baseSymbol: 'WETH', quoteSymbol: 'USDC', price: '3000', blockNumber: 1, updatedAt },
      // Published under the native symbol only: a WETH order must find it through normalization.
      { chainId: 1, baseSymbol: 'ETH', quoteSymbol: 'USDT', price: '3001', blockNumber: 1, updatedAt },
      // Published in the other direction than the order's symbols.
      { chainId: 1, baseSymbol: 'WBTC', quoteSymbol: 'DAI', price: '60000', blockNumber: 1, updatedAt },
      { chainId: 137, baseSymbol: 'POL', quoteSymbol: 'USDC', price: '0.5', blockNumber: 1, updatedAt },
    ]);
  });
  afterAll(async () => running?.close());

  async function create(
    body: Record<string, unknown> = limitOrderBody(),
    as: ApiClient = client,
  ): Promise<Order> {
    const res = await as.post<Order>('/limit-order', body);
    if (res.status !== 200 || !res.body.data) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.body.data;
  }

  /** What the keeper would do: move the order out of pending directly in the store. */
  async function setStatus(id: string, status: string): Promise<void> {
    await running.store.knex('limit_orders').where({ id }).update({ status });
  }

  describe('POST /limit-order', () => {
    it('creates a pending order with the spec field types', async () => {
      const body = limitOrderBody();
      const before = Date.now();
      const res = await client.post<Order>('/limit-order', body);
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.meta).toEqual({
        requestId: res.headers.get('apigw-requestid'),
        version: 'v1',
        accountType: 'integrator',
        apiKeyId: client.credentials.apiKey,
      });
      const data = res.body.data!;
      expect(data).toEqual({
        id: expect.stringMatching(UUID),
        accountTo: MAKER,
        chainId: 1,
        gasPrice: '20',
        inTokenAddress: CHAIN1.WETH,
        outTokenAddress: CHAIN1.USDC,
        slippage: '0.5',
        tokenASymbol: 'WETH',
        tokenBSymbol: 'USDC',
        amount: 1.5,
        price: 3500,
        priceTrigger: 3500,
        expired: body.expired,
        txHash: '',
        status: 'pending',
        reasonFail: [],
        attemptNumber: 0,
        allowance: '',
        estimateGas: '',
        effectivePriceGas: '',
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
        deletedAt: '',
      });
      expect(typeof data.amount).toBe('number');
      expect(typeof data.expired).toBe('string');
      expect(Number.isInteger(data.attemptNumber)).toBe(true);
      expect(data.updatedAt).toBe(data.createdAt);
      const created = Date.parse(data.createdAt);
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
    });

    it('stores the order: GET returns the same object', async () => {
      const order = await create();
      const res = await client.get<Order>(`/limit-order/${order.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(order);
    });

    it('keeps decimal strings exactly as sent and reports them as numbers', async () => {
      const order = await create(
        limitOrderBody({
          amount: '0.000000000000000001',
          priceTrigger: '3500.25',
          price: '3500.250',
          gasPrice: '0.05',
        }),
      );
      expect(order).toMatchObject({ amount: 1e-18, priceTrigger: 3500.25, price: 3500.25, gasPrice: '0.05' });
      const stored = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
      expect(stored).toMatchObject({
        amount: '0.000000000000000001',
        priceTrigger: '3500.25',
        price: '3500.250',
        status: 'pending',
        version: 0,
      });
      const row = await running.store.knex('limit_orders').where({ id: order.id }).first();
      expect(Number(row.price_trigger_num)).toBe(3500.25);
      expect(Number(row.expires_at)).toBe(Number(order.expired));
      expect(row.reason_fail).toBe('[]');
    });

    it('stores a lowercase maker address exactly as sent and ignores unknown fields', async () => {
      const order = await create(
        limitOrderBody({ accountTo: MAKER.toLowerCase(), attemptNumber: 7, note: 'hello' }),
      );
      expect(order.accountTo).toBe(MAKER.toLowerCase());
      expect(order.attemptNumber).toBe(0);
      expect(order).not.toHaveProperty('note');
    });

    it('stores the fee cap the signature was made for (none when absent) and does not return it', async () => {
      const signed = await create(limitOrderBody({ maxFeeBps: 30 }));
      expect(signed).not.toHaveProperty('maxFeeBps');
      const stored = await running.store.limitOrders.findForKey(client.credentials.apiKey, signed.id);
      expect(stored?.maxFeeBps).toBe(30);
      const zero = await create(limitOrderBody({ maxFeeBps: 0 }));
      expect(
        (await running.store.limitOrders.findForKey(client.credentials.apiKey, zero.id))?.maxFeeBps,
      ).toBe(0);
      // Absent: the keeper checks the signature against the order contract's cap when the order runs.
      const unsigned = await create();
      expect(
        (await running.store.limitOrders.findForKey(client.credentials.apiKey, unsigned.id))?.maxFeeBps,
      ).toBe(null);
    });

    it('rejects a fee cap that is not an integer from 0 to 1000 (the contract allows no more)', async () => {
      const cases: Array<[unknown, string]> = [
        [-1, 'Must be at least 0'],
        [1001, 'Must be at most 1000'],
        [1.5, 'Must be an integer'],
        ['30', 'Must be an integer'],
        [null, 'Must be an integer'],
      ];
      for (const [maxFeeBps, message] of cases) {
        const res = await client.post('/limit-order', limitOrderBody({ maxFeeBps }));
        expectValidationError(res, [{ field: 'maxFeeBps', message }]);
      }
      expect((await client.post('/limit-order', limitOrderBody({ maxFeeBps: 1000 }))).status).toBe(200);
    });

    it('rejects every service-set field with one detail each', async () => {
      const extras = {
        status: 'completed',
        txHash: '0x1',
        executorAddress: MAKER,
        reasonFail: [],
        allowance: '1',
      };
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ ...extras, estimateGas: '1', effectivePriceGas: '1' }),
      );
      expectValidationError(
        res,
        LIMIT_ORDER_SERVICE_FIELDS.map((field) => ({
          field,
          message: 'Is set by the service and cannot be sent',
        })),
      );
    });

    it('reports service-set fields and format errors in the same response', async () => {
      const res = await client.post('/limit-order', limitOrderBody({ status: 'pending', amount: 5 }));
      expectValidationError(res, [
        { field: 'amount', message: 'Must be a string' },
        { field: 'status', message: 'Is set by the service and cannot be sent' },
      ]);
    });

    it('rejects a service-set field sent as null', async () => {
      const res = await client.post('/limit-order', limitOrderBody({ txHash: null }));
      expectValidationError(res, [{ field: 'txHash', message: 'Is set by the service and cannot be sent' }]);
    });

    it('rejects a mixed-case maker address with a wrong checksum', async () => {
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ accountTo: MAKER.replace('F79', 'f79') }),
      );
      expectValidationError(res, [{ field: 'accountTo', message: 'Must be a valid EVM address' }]);
    });

    it('rejects JSON numbers for decimal strings and a string chainId', async () => {
      const res = await client.post(
        '/limit-order',
        limitOrderBody({
          amount: 1.5,
          priceTrigger: 3500,
          price: 3500,
          gasPrice: 20,
          slippage: 0.5,
          chainId: '1',
        }),
      );
      expectValidationError(res, [
        { field: 'chainId', message: 'Must be an integer' },
        { field: 'amount', message: 'Must be a string' },
        { field: 'priceTrigger', message: 'Must be a string' },
        { field: 'price', message: 'Must be a string' },
        { field: 'gasPrice', message: 'Must be a string' },
        { field: 'slippage', message: 'Must be a string' },
      ]);
    });

    it('requires every field', async () => {
      const res = await client.post('/limit-order', { chainId: 1 });
      expectValidationError(
        res,
        [
          'accountTo',
          'inTokenAddress',
          'outTokenAddress',
          'tokenASymbol',
          'tokenBSymbol',
          'amount',
          'priceTrigger',
          'price',
          'expired',
          'gasPrice',
          'slippage',
          'signature',
        ].map((field) => ({ field, message: 'Is required' })),
      );
    });

    it('rejects a chain that is not enabled', async () => {
      const res = await client.post('/limit-order', limitOrderBody({ chainId: 5 }));
      expectValidationError(res, [{ field: 'chainId', message: 'Chain 5 is not enabled' }]);
    });

    it('rejects the native pseudo-address and the zero address as tokens', async () => {
      const erc20 =
        'Must be a valid ERC-20 token address (the native token cannot be sold; use the wrapped token)';
      const res = await client.post(
        '/limit-order',
        limitOrderBody({
          inTokenAddress: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
          outTokenAddress: '0x0000000000000000000000000000000000000000',
        }),
      );
      expectValidationError(res, [
        { field: 'inTokenAddress', message: erc20 },
        { field: 'outTokenAddress', message: erc20 },
      ]);
    });

    it('rejects equal tokens, in any casing', async () => {
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ outTokenAddress: CHAIN1.WETH.toLowerCase() }),
      );
      expectValidationError(res, [{ field: 'outTokenAddress', message: 'Must differ from inTokenAddress' }]);
    });

    it('rejects tokens that are not listed for the chain', async () => {
      const res = await client.post(
        '/limit-order',
        // USDC of chain 137 is not a chain-1 token.
        limitOrderBody({
          inTokenAddress: CHAIN137.USDC,
          outTokenAddress: '0x1111111111111111111111111111111111111111',
        }),
      );
      expectValidationError(res, [
        { field: 'inTokenAddress', message: 'Must be a token listed for chain 1 (see GET /tokens)' },
        { field: 'outTokenAddress', message: 'Must be a token listed for chain 1 (see GET /tokens)' },
      ]);
    });

    it("rejects an amount finer than the token's decimals, ignoring trailing zeros", async () => {
      const usdcOrder = { inTokenAddress: CHAIN1.USDC, outTokenAddress: CHAIN1.WETH, tokenASymbol: 'USDC' };
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ ...usdcOrder, tokenBSymbol: 'WETH', amount: '1.1234567' }),
      );
      expectValidationError(res, [
        { field: 'amount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' },
      ]);
      const ok = await create(limitOrderBody({ ...usdcOrder, tokenBSymbol: 'WETH', amount: '1.123456000' }));
      expect(ok.amount).toBe(1.123456);
    });

    it('rejects zero, negative and malformed amounts and prices', async () => {
      const positive = 'Must be a decimal string greater than 0, such as "10" or "0.5"';
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ amount: '0', priceTrigger: '-1', price: '1e3', gasPrice: 'abc', slippage: '' }),
      );
      expectValidationError(res, [
        { field: 'amount', message: positive },
        { field: 'priceTrigger', message: positive },
        { field: 'price', message: positive },
        { field: 'gasPrice', message: 'Must be a decimal string such as "10" or "0.5"' },
        { field: 'slippage', message: 'Must not be empty' },
        { field: 'slippage', message: 'Must be a decimal string such as "10" or "0.5"' },
      ]);
    });

    it.each(['100', '100.0', '0100', '250.5'])('rejects a slippage of %s percent', async (slippage) => {
      expectValidationError(await client.post('/limit-order', limitOrderBody({ slippage })), [
        { field: 'slippage', message: 'Must be less than 100' },
      ]);
    });

    it('accepts a slippage of 0 and one just below 100', async () => {
      expect((await create(limitOrderBody({ slippage: '0' }))).slippage).toBe('0');
      expect((await create(limitOrderBody({ slippage: '99.9999999999999999999' }))).slippage).toBe(
        '99.9999999999999999999',
      );
    });

    it('rejects empty symbols and a malformed signature', async () => {
      const res = await client.post(
        '/limit-order',
        limitOrderBody({ tokenASymbol: '', tokenBSymbol: 7, signature: `0x${'ab'.repeat(64)}` }),
      );
      expectValidationError(res, [
        { field: 'tokenASymbol', message: 'Must not be empty' },
        { field: 'tokenBSymbol', message: 'Must be a string' },
        { field: 'signature', message: 'Must be a 65-byte hex signature (0x plus 130 hex characters)' },
      ]);
    });

    describe('expired', () => {
      const cases: Array<[string, () => unknown, string]> = [
        [
          '12 digits',
          () => String(Date.now() + DAY_MS).slice(1),
          'Must be a Unix timestamp in milliseconds (13 digits)',
        ],
        [
          'seconds instead of milliseconds',
          () => String(Math.floor(Date.now() / 1000) + 86_400),
          'Must be a Unix timestamp in milliseconds (13 digits)',
        ],
        ['14 digits', () => `${inADay()}0`, 'Must be a Unix timestamp in milliseconds (13 digits)'],
        [
          'non-digits',
          () => `${inADay().slice(0, 12)}x`,
          'Must be a Unix timestamp in milliseconds (13 digits)',
        ],
        ['in the past', () => String(Date.now() - 60_000), 'Must be in the future'],
        [
          'more than 365 days ahead',
          () => String(Date.now() + 366 * DAY_MS),
          'Must be at most 365 days ahead',
        ],
      ];
      it.each(cases)('rejects %s', async (_name, value, message) => {
        const res = await client.post('/limit-order', limitOrderBody({ expired: value() }));
        expectValidationError(res, [{ field: 'expired', message }]);
      });

      it('rejects a JSON number', async () => {
        const res = await client.post('/limit-order', limitOrderBody({ expired: Date.now() + DAY_MS }));
        expectValidationError(res, [{ field: 'expired', message: 'Must be a string' }]);
      });

      it('accepts a time just inside 365 days and returns it as sent', async () => {
        const expired = String(Date.now() + 365 * DAY_MS - 60_000);
        expect((await create(limitOrderBody({ expired }))).expired).toBe(expired);
      });
    });

    describe('reference price', () => {
      it('rejects a pair without a reference price, naming the symbols as sent', async () => {
        const res = await client.post(
          '/limit-order',
          limitOrderBody({
            outTokenAddress: CHAIN1.DAI,
            tokenBSymbol: 'DAI',
            inTokenAddress: CHAIN1.USDT,
            tokenASymbol: 'USDT',
          }),
        );
        expectValidationError(res, [], 'Not exist reference price for this pair USDT/DAI');
      });

      it('checks the price only once the body is valid', async () => {
        const res = await client.post(
          '/limit-order',
          limitOrderBody({ tokenASymbol: 'FOO', slippage: '100' }),
        );
        expectValidationError(res, [{ field: 'slippage', message: 'Must be less than 100' }]);
      });

      it('finds a price published under the native symbol for the wrapped token', async () => {
        const order = await create(limitOrderBody({ outTokenAddress: CHAIN1.USDT, tokenBSymbol: 'USDT' }));
        expect(order).toMatchObject({ tokenASymbol: 'WETH', tokenBSymbol: 'USDT', status: 'pending' });
      });

      it('finds a price published in the other direction', async () => {
        const order = await create(
          limitOrderBody({
            inTokenAddress: CHAIN1.DAI,
            outTokenAddress: CHAIN1.WBTC,
            tokenASymbol: 'DAI',
            tokenBSymbol: 'WBTC',
            amount: '100',
          }),
        );
        expect(order.status).toBe('pending');
      });

      it('normalizes the wrapped native token on Polygon (WMATIC ↔ POL)', async () => {
        const order = await create(
          limitOrderBody({
            chainId: 137,
            inTokenAddress: CHAIN137.WMATIC,
            outTokenAddress: CHAIN137.USDC,
            tokenASymbol: 'WMATIC',
            tokenBSymbol: 'USDC',
            priceTrigger: '0.6',
            price: '0.6',
          }),
        );
        expect(order).toMatchObject({ chainId: 137, priceTrigger: 0.6, tokenASymbol: 'WMATIC' });
      });

      it('does not use a price of another chain', async () => {
        const res = await client.post(
          '/limit-order',
          limitOrderBody({
            chainId: 137,
            inTokenAddress: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619',
            outTokenAddress: CHAIN137.USDC,
          }),
        );
        expectValidationError(res, [], 'Not exist reference price for this pair WETH/USDC');
      });
    });
  });

  describe('GET /limit-order', () => {
    let lister: ApiClient;
    let a1: Order;
    let a137: Order;
    let b1: Order;
    let cancelled: Order;

    beforeAll(async () => {
      lister = await newAccountClient(running.baseUrl);
      a1 = await create(limitOrderBody(), lister);
      a137 = await create(
        limitOrderBody({
          chainId: 137,
          inTokenAddress: CHAIN137.WMATIC,
          outTokenAddress: CHAIN137.USDC,
          tokenASymbol: 'WMATIC',
          tokenBSymbol: 'USDC',
        }),
        lister,
      );
      b1 = await create(limitOrderBody({ accountTo: OTHER_MAKER }), lister);
      cancelled = await create(limitOrderBody(), lister);
      const res = await lister.delete<Order>(`/limit-order/${cancelled.id}`);
      cancelled = res.body.data!;
      await create(limitOrderBody(), other);
    });

    const ids = (res: ApiResponse<Envelope<Order[]>>): string[] =>
      (res.body.data ?? []).map((o) => o.id).sort();
    const sorted = (...orders: Order[]): string[] => orders.map((o) => o.id).sort();

    async function list(query: string): Promise<ApiResponse<Envelope<Order[]>>> {
      const res = await lister.get<Order[]>(`/limit-order${query}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(Array.isArray(res.body.data)).toBe(true);
      return res;
    }

    it("returns every order of the signing key, cancelled included, and no other key's", async () => {
      const res = await list('');
      expect(ids(res)).toEqual(sorted(a1, a137, b1, cancelled));
      expect(res.body.data!.find((o) => o.id === cancelled.id)).toEqual(cancelled);
      expect(res.body.data!.find((o) => o.id === a1.id)).toEqual(a1);
    });

    it('filters by status', async () => {
      expect(ids(await list('?status=pending'))).toEqual(sorted(a1, a137, b1));
      expect(ids(await list('?status=cancelled'))).toEqual(sorted(cancelled));
      expect(ids(await list('?status=completed'))).toEqual([]);
    });

    it('filters by chainId', async () => {
      expect(ids(await list('?chainId=137'))).toEqual(sorted(a137));
      expect(ids(await list('?chainId=1'))).toEqual(sorted(a1, b1, cancelled));
      expect(ids(await list('?chainId=10'))).toEqual([]);
    });

    it('filters by accountTo exactly and case-sensitively', async () => {
      expect(ids(await list(`?accountTo=${OTHER_MAKER}`))).toEqual(sorted(b1));
      expect(ids(await list(`?accountTo=${MAKER}`))).toEqual(sorted(a1, a137, cancelled));
      expect(ids(await list(`?accountTo=${MAKER.toLowerCase()}`))).toEqual([]);
      expect(ids(await list(`?accountTo=${MAKER.slice(0, 20)}`))).toEqual([]);
    });

    it('combines filters with AND', async () => {
      expect(ids(await list(`?status=pending&chainId=1&accountTo=${MAKER}`))).toEqual(sorted(a1));
      expect(ids(await list(`?status=cancelled&chainId=137`))).toEqual([]);
    });

    it('ignores unknown parameters', async () => {
      expect(ids(await list('?stauts=pending&foo'))).toEqual(sorted(a1, a137, b1, cancelled));
    });

    it.each([
      ['an unknown status', '?status=open'],
      ['a status in another casing', '?status=PENDING'],
      ['an empty status', '?status='],
      ['a non-numeric chainId', '?chainId=abc'],
      ['a negative chainId', '?chainId=-1'],
      ['a fractional chainId', '?chainId=1.5'],
      ['a repeated status', '?status=pending&status=cancelled'],
      ['a repeated identical chainId', '?chainId=1&chainId=1'],
      ['a repeated accountTo', `?accountTo=${MAKER}&accountTo=${OTHER_MAKER}`],
    ])('answers %s with an empty array', async (_name, query) => {
      const res = await list(query);
      expect(res.body.data).toEqual([]);
    });

    it('answers an account without orders with an empty array', async () => {
      const empty = await newAccountClient(running.baseUrl);
      const res = await empty.get<Order[]>('/limit-order');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });
  });

  describe('GET /limit-order/{id}', () => {
    it("answers 404 for another key's order, an unknown ID and a malformed ID", async () => {
      const order = await create();
      expectNotFound(await other.get(`/limit-order/${order.id}`));
      expectNotFound(await client.get(`/limit-order/${randomUUID()}`));
      expectNotFound(await client.get('/limit-order/not-a-uuid'));
      expectNotFound(await client.get(`/limit-order/${order.id.toUpperCase()}`));
    });
  });

  describe('PATCH /limit-order/{id}', () => {
    it('changes priceTrigger alone and leaves price unchanged', async () => {
      const order = await create();
      const res = await client.patch<Order>(`/limit-order/${order.id}`, { priceTrigger: '3600.5' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        ...order,
        priceTrigger: 3600.5,
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(Date.parse(res.body.data!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(order.updatedAt));
      expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual(res.body.data);
      const stored = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
      expect(stored).toMatchObject({ priceTrigger: '3600.5', price: '3500', version: 1 });
      const row = await running.store.knex('limit_orders').where({ id: order.id }).first();
      expect(Number(row.price_trigger_num)).toBe(3600.5);
    });

    it('changes every changeable field at once', async () => {
      const order = await create();
      const expired = String(Date.now() + 2 * DAY_MS);
      const res = await client.patch<Order>(`/limit-order/${order.id}`, {
        priceTrigger: '3700',
        price: '3700',
        amount: '2.25',
        expired,
        slippage: '1',
        gasPrice: '30.5',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        ...order,
        priceTrigger: 3700,
        price: 3700,
        amount: 2.25,
        expired,
        slippage: '1',
        gasPrice: '30.5',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      const row = await running.store.knex('limit_orders').where({ id: order.id }).first();
      expect(Number(row.expires_at)).toBe(Number(expired));
    });

    it('is safe to repeat', async () => {
      const order = await create();
      const first = await client.patch<Order>(`/limit-order/${order.id}`, {
        price: '3400',
        priceTrigger: '3400',
      });
      const second = await client.patch<Order>(`/limit-order/${order.id}`, {
        price: '3400',
        priceTrigger: '3400',
      });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect({ ...second.body.data, updatedAt: '' }).toEqual({ ...first.body.data, updatedAt: '' });
      expect(second.body.data).toMatchObject({ status: 'pending', price: 3400, priceTrigger: 3400 });
    });

    it('requires at least one changeable field', async () => {
      const order = await create();
      const detail = {
        field: 'body',
        message: 'Must contain at least one of: priceTrigger, price, amount, expired, slippage, gasPrice',
      };
      expectValidationError(await client.patch(`/limit-order/${order.id}`, {}), [detail]);
      expectValidationError(await client.patch(`/limit-order/${order.id}`, { note: 'x' }), [detail]);
    });

    it('rejects tokens, chain, maker, symbols, signature and its fee cap', async () => {
      const order = await create();
      const res = await client.patch(`/limit-order/${order.id}`, {
        price: '1',
        accountTo: MAKER,
        chainId: 1,
        inTokenAddress: CHAIN1.WETH,
        outTokenAddress: CHAIN1.DAI,
        tokenASymbol: 'WETH',
        tokenBSymbol: 'DAI',
        signature: SIGNATURE,
        maxFeeBps: 30,
      });
      expectValidationError(
        res,
        [
          'accountTo',
          'chainId',
          'inTokenAddress',
          'outTokenAddress',
          'tokenASymbol',
          'tokenBSymbol',
          'signature',
          'maxFeeBps',
        ].map((field) => ({ field, message: 'Cannot be changed' })),
      );
      expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual(order);
    });

    it('rejects service-set fields', async () => {
      const order = await create();
      const res = await client.patch(`/limit-order/${order.id}`, {
        price: '1',
        status: 'cancelled',
        txHash: '',
      });
      expectValidationError(res, [
        { field: 'status', message: 'Is set by the service and cannot be sent' },
        { field: 'txHash', message: 'Is set by the service and cannot be sent' },
      ]);
      expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual(order);
    });

    it('applies the create formats', async () => {
      const order = await create();
      const res = await client.patch(`/limit-order/${order.id}`, {
        priceTrigger: 3600,
        price: '0',
        amount: '-1',
        slippage: '',
        gasPrice: '',
      });
      expectValidationError(res, [
        { field: 'priceTrigger', message: 'Must be a string' },
        { field: 'price', message: 'Must be a decimal string greater than 0, such as "10" or "0.5"' },
        { field: 'amount', message: 'Must be a decimal string greater than 0, such as "10" or "0.5"' },
        { field: 'slippage', message: 'Must not be empty' },
        { field: 'slippage', message: 'Must be a decimal string such as "10" or "0.5"' },
        { field: 'gasPrice', message: 'Must not be empty' },
        { field: 'gasPrice', message: 'Must be a decimal string such as "10" or "0.5"' },
      ]);
    });

    it('applies the expired and slippage rules', async () => {
      const order = await create();
      expectValidationError(
        await client.patch(`/limit-order/${order.id}`, { expired: String(Date.now() - 1000) }),
        [{ field: 'expired', message: 'Must be in the future' }],
      );
      expectValidationError(await client.patch(`/limit-order/${order.id}`, { expired: '170000000000' }), [
        { field: 'expired', message: 'Must be a Unix timestamp in milliseconds (13 digits)' },
      ]);
      expectValidationError(
        await client.patch(`/limit-order/${order.id}`, { expired: String(Date.now() + 400 * DAY_MS) }),
        [{ field: 'expired', message: 'Must be at most 365 days ahead' }],
      );
      expectValidationError(await client.patch(`/limit-order/${order.id}`, { slippage: '150' }), [
        { field: 'slippage', message: 'Must be less than 100' },
      ]);
    });

    it("checks the amount against the stored token's decimals", async () => {
      const order = await create(
        limitOrderBody({
          inTokenAddress: CHAIN1.WBTC,
          outTokenAddress: CHAIN1.DAI,
          tokenASymbol: 'WBTC',
          tokenBSymbol: 'DAI',
        }),
      );
      expectValidationError(await client.patch(`/limit-order/${order.id}`, { amount: '0.123456789' }), [
        { field: 'amount', message: 'Must have at most 8 decimal places (WBTC has 8 decimals)' },
      ]);
      const ok = await client.patch<Order>(`/limit-order/${order.id}`, { amount: '0.12345678' });
      expect(ok.status).toBe(200);
      expect(ok.body.data!.amount).toBe(0.12345678);
    });

    it("answers 404 for another key's order, an unknown ID and a malformed ID, after validation", async () => {
      const order = await create();
      expectNotFound(await other.patch(`/limit-order/${order.id}`, { priceTrigger: '1' }));
      expectNotFound(await other.patch(`/limit-order/${order.id}`, { amount: '1' }));
      expectNotFound(await client.patch(`/limit-order/${randomUUID()}`, { priceTrigger: '1' }));
      expectNotFound(await client.patch('/limit-order/not-a-uuid', { priceTrigger: '1' }));
      expectValidationError(await other.patch(`/limit-order/${order.id}`, {}), [
        {
          field: 'body',
          message: 'Must contain at least one of: priceTrigger, price, amount, expired, slippage, gasPrice',
        },
      ]);
      expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual(order);
    });

    it.each(['executing', 'submitted', 'completed', 'failed'])(
      'answers 409 on an order that is %s and changes nothing',
      async (status) => {
        const order = await create();
        await setStatus(order.id, status);
        const before = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
        expectConflict(
          await client.patch(`/limit-order/${order.id}`, { priceTrigger: '1', amount: '1' }),
          status,
        );
        expectConflict(await client.delete(`/limit-order/${order.id}`), status);
        const after = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
        expect(after).toEqual(before);
        expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual({ ...order, status });
      },
    );
  });

  describe('DELETE /limit-order/{id}', () => {
    it('cancels a pending order; a repeated DELETE answers 409 and GET shows it cancelled', async () => {
      const order = await create();
      const before = Date.now();
      const res = await client.delete<Order>(`/limit-order/${order.id}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const cancelled = res.body.data!;
      expect(cancelled).toEqual({
        ...order,
        status: 'cancelled',
        updatedAt: expect.stringMatching(ISO_MS),
        deletedAt: expect.stringMatching(ISO_MS),
      });
      expect(cancelled.deletedAt).toBe(cancelled.updatedAt);
      expect(Date.parse(cancelled.deletedAt)).toBeGreaterThanOrEqual(before);

      expectConflict(await client.delete(`/limit-order/${order.id}`), 'cancelled');
      expectConflict(await client.patch(`/limit-order/${order.id}`, { priceTrigger: '1' }), 'cancelled');
      const read = await client.get<Order>(`/limit-order/${order.id}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(cancelled);
      const stored = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
      expect(stored).toMatchObject({ status: 'cancelled', version: 1 });
    });

    it("answers 404 for another key's order and leaves it pending", async () => {
      const order = await create();
      expectNotFound(await other.delete(`/limit-order/${order.id}`));
      expectNotFound(await client.delete(`/limit-order/${randomUUID()}`));
      expectNotFound(await client.delete('/limit-order/not-a-uuid'));
      expect((await client.get(`/limit-order/${order.id}`)).body.data).toEqual(order);
    });

    it('lets exactly one of several concurrent cancels win', async () => {
      const order = await create();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => client.delete(`/limit-order/${order.id}`)),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expectConflict(r, 'cancelled');
    });
  });
});
