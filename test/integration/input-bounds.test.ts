import { getAddress } from 'ethers';
import { dcaStrategyBody } from '../factories/dca-strategies';
import { limitOrderBody } from '../factories/limit-orders';
import { referencePrice } from '../factories/reference-prices';
import {
  ApiClient,
  newAccountClient,
  rawRequest,
  type ApiResponse,
  type Envelope,
} from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

/*
 * The bounds on every amount, price and address that the keeper or the chain could not act on (issue 9): each is
 * a 400 VALIDATION_ERROR whose detail names the field and the rule, through the signed HTTP API. Chain 1 of the
 * repo's chains file is enabled with its token list but has no contracts, so quotes and swaps that pass
 * validation answer 422 NO_ROUTE here (the devnet suite test/e2e/trade-input-bounds.test.ts covers a tradable
 * chain).
 */

const CHAIN1 = {
  WETH: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  USDC: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
};
const CHAIN137 = {
  USDC: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  WETH: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619',
};
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const ZERO = '0x0000000000000000000000000000000000000000';
const NATIVE_FORMS = [
  '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
  '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
];
const FEE_RECIPIENT = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const INVALID_BODY = 'Invalid request body';
const EVM_ADDRESS = 'Must be a valid EVM address';
const SIGNER = 'the maker signs its orders, so it must be a wallet';
const ZERO_MAKER = `Must not be the zero address (${SIGNER})`;
const NATIVE_MAKER = `Must not be the native token pseudo-address (${SIGNER})`;
const SLIPPAGE_BELOW_100 = 'Must be less than 100';
const DECIMAL = 'Must be a decimal string such as "10" or "0.5"';
/** 10^k written out, as a decimal string field carries it. */
const pow10 = (k: number): string => `1${'0'.repeat(k)}`;
const SEVENTY_DIGITS = '9'.repeat(70);

/** The EIP-55 form with the case of its first letter flipped: mixed case with a wrong checksum. */
function wrongChecksum(address: string): string {
  const checksummed = getAddress(address);
  const i = checksummed.slice(2).search(/[a-fA-F]/) + 2;
  const c = checksummed[i]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return `${checksummed.slice(0, i)}${flipped}${checksummed.slice(i + 1)}`;
}

type Body = Record<string, unknown>;
type Detail = { field: string; message: string };

function expect400(res: ApiResponse<Envelope<unknown>>, details: Detail[], message = INVALID_BODY): void {
  expect({ status: res.status, error: res.body.error, data: res.body.data }).toEqual({
    status: 400,
    error: { code: 'VALIDATION_ERROR', message, details },
    data: undefined,
  });
}

const singleParams = (over: Body = {}): Body => ({
  chainId: 1,
  inTokenAddress: CHAIN1.WETH,
  outTokenAddress: CHAIN1.USDC,
  amount: '1',
  gasPrice: '30',
  slippage: '0.5',
  ...over,
});
const crossParams = (over: Body = {}): Body => ({
  fromChainId: 1,
  toChainId: 137,
  inTokenAddress: CHAIN1.WETH,
  outTokenAddress: CHAIN137.WETH,
  amount: '1',
  slippage: '0.5',
  ...over,
});
const swapExtras = { account: MAKER, aggregatorId: 'tas-smart' };

describeEachStore('input bounds', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;

  beforeAll(async () => {
    running = await startApiOn(kind);
    client = await newAccountClient(running.baseUrl, 'bounds-tester');
    await running.store.referencePrices.upsert([referencePrice()]);
  });
  afterAll(async () => running?.close());

  async function countOf(table: string): Promise<number> {
    const [row] = await running.store.knex(table).count({ n: '*' });
    return Number(row!.n);
  }

  async function createOrder(over: Body = {}): Promise<{ id: string }> {
    const res = await client.post<{ id: string }>('/limit-order', limitOrderBody(over));
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.body.data!;
  }

  describe('POST /limit-order', () => {
    it.each<[string, Body, Detail[]]>([
      ['the zero address as maker', { accountTo: ZERO }, [{ field: 'accountTo', message: ZERO_MAKER }]],
      ...NATIVE_FORMS.map((native): [string, Body, Detail[]] => [
        `the native pseudo-address ${native} as maker`,
        { accountTo: native },
        [{ field: 'accountTo', message: NATIVE_MAKER }],
      ]),
      [
        'an amount of 10^80 WETH (beyond a uint256 in base units)',
        { amount: pow10(80) },
        [{ field: 'amount', message: 'Must be at most 2^256 − 1 in base units (amount × 10^18 for WETH)' }],
      ],
      [
        'a USDC amount finer than 6 decimals',
        {
          inTokenAddress: CHAIN1.USDC,
          outTokenAddress: CHAIN1.WETH,
          tokenASymbol: 'USDC',
          tokenBSymbol: 'WETH',
          amount: '0.0000001',
        },
        [{ field: 'amount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' }],
      ],
      [
        'prices above 10^36',
        { priceTrigger: `${pow10(36)}.5`, price: pow10(37) },
        [
          { field: 'priceTrigger', message: 'Must be at most 10^36' },
          { field: 'price', message: 'Must be at most 10^36' },
        ],
      ],
      [
        'prices whose output for the amount overflows a uint256',
        { amount: pow10(50), priceTrigger: pow10(30), price: pow10(30) },
        ['priceTrigger', 'price'].map((field) => ({
          field,
          message: `Is too large for the amount: amount × ${field} × 10^6 (USDC decimals) must be at most 2^256 − 1`,
        })),
      ],
      ['slippage 100.5', { slippage: '100.5' }, [{ field: 'slippage', message: SLIPPAGE_BELOW_100 }]],
      ['slippage -1', { slippage: '-1' }, [{ field: 'slippage', message: DECIMAL }]],
      ['slippage NaN', { slippage: 'NaN' }, [{ field: 'slippage', message: DECIMAL }]],
      ['gasPrice Infinity', { gasPrice: 'Infinity' }, [{ field: 'gasPrice', message: DECIMAL }]],
      [
        'gasPrice above 1,000,000 gwei',
        { gasPrice: '1000000.000000001' },
        [{ field: 'gasPrice', message: 'Must be at most 1000000 (gwei)' }],
      ],
      [
        'gasPrice finer than 1 wei',
        { gasPrice: '0.0000000001' },
        [{ field: 'gasPrice', message: 'Must have at most 9 decimal places (1 wei)' }],
      ],
      [
        'a token address with a wrong checksum',
        { inTokenAddress: wrongChecksum(CHAIN1.WETH) },
        [{ field: 'inTokenAddress', message: EVM_ADDRESS }],
      ],
    ])('refuses %s', async (_name, over, details) => {
      const before = await countOf('limit_orders');
      expect400(await client.post('/limit-order', limitOrderBody(over)), details);
      expect(await countOf('limit_orders')).toBe(before);
    });

    it('accepts the largest bounds exactly and returns them as finite JSON numbers', async () => {
      // (2^256 − 1) / 10^6 USDC is the largest amount; at 10^-12 WETH per USDC its output, 2^256 − 1 wei, fits too.
      const largest = '115792089237316195423570985008687907853269984665640564039457584007913129.639935';
      const res = await client.post<{ amount: number; priceTrigger: number }>(
        '/limit-order',
        limitOrderBody({
          inTokenAddress: CHAIN1.USDC,
          outTokenAddress: CHAIN1.WETH,
          tokenASymbol: 'USDC',
          tokenBSymbol: 'WETH',
          amount: largest,
          priceTrigger: '0.000000000001',
          price: '0.000000000001',
          gasPrice: '1000000',
          slippage: '99.999',
        }),
      );
      expect({ status: res.status, text: res.text }).toMatchObject({ status: 200 });
      expect(res.body.data).toMatchObject({ amount: Number(largest), priceTrigger: 1e-12 });
      expect(Number.isFinite(res.body.data!.amount)).toBe(true);
      const usdcToWeth = {
        inTokenAddress: CHAIN1.USDC,
        outTokenAddress: CHAIN1.WETH,
        tokenASymbol: 'USDC',
        tokenBSymbol: 'WETH',
      };
      // One digit more on the price and the output no longer fits.
      expect400(
        await client.post(
          '/limit-order',
          limitOrderBody({
            ...usdcToWeth,
            amount: largest,
            priceTrigger: '0.0000000000011',
            price: '0.000000000001',
          }),
        ),
        [
          {
            field: 'priceTrigger',
            message:
              'Is too large for the amount: amount × priceTrigger × 10^18 (WETH decimals) must be at most 2^256 − 1',
          },
        ],
      );
      const over = (BigInt(largest.replace('.', '')) + 1n).toString();
      expect400(
        await client.post(
          '/limit-order',
          limitOrderBody({ ...usdcToWeth, amount: `${over.slice(0, -6)}.${over.slice(-6)}` }),
        ),
        [{ field: 'amount', message: 'Must be at most 2^256 − 1 in base units (amount × 10^6 for USDC)' }],
      );
    });
  });

  describe('PATCH /limit-order/{id}', () => {
    it('holds the amount and prices to the bounds, against the stored order, and changes nothing', async () => {
      const order = await createOrder({ amount: pow10(50), priceTrigger: '1', price: '1' });
      const before = await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id);
      expect400(await client.patch(`/limit-order/${order.id}`, { amount: pow10(80) }), [
        { field: 'amount', message: 'Must be at most 2^256 − 1 in base units (amount × 10^18 for WETH)' },
      ]);
      // The stored amount (10^50 WETH) with a new trigger of 10^30 USDC per WETH overflows the output.
      expect400(await client.patch(`/limit-order/${order.id}`, { priceTrigger: pow10(30) }), [
        {
          field: 'priceTrigger',
          message:
            'Is too large for the amount: amount × priceTrigger × 10^6 (USDC decimals) must be at most 2^256 − 1',
        },
      ]);
      expect400(await client.patch(`/limit-order/${order.id}`, { price: pow10(37) }), [
        { field: 'price', message: 'Must be at most 10^36' },
      ]);
      expect400(await client.patch(`/limit-order/${order.id}`, { slippage: '100.5', gasPrice: '2000000' }), [
        { field: 'slippage', message: SLIPPAGE_BELOW_100 },
        { field: 'gasPrice', message: 'Must be at most 1000000 (gwei)' },
      ]);
      expect(await running.store.limitOrders.findForKey(client.credentials.apiKey, order.id)).toEqual(before);
    });

    it('names the amount when a new amount overflows at the stored prices', async () => {
      const order = await createOrder({ priceTrigger: pow10(36), price: pow10(36) });
      expect400(await client.patch(`/limit-order/${order.id}`, { amount: pow10(45) }), [
        {
          field: 'amount',
          message:
            "Is too large for the order's priceTrigger: amount × priceTrigger × 10^6 (USDC decimals) must be at most 2^256 − 1",
        },
        {
          field: 'amount',
          message:
            "Is too large for the order's price: amount × price × 10^6 (USDC decimals) must be at most 2^256 − 1",
        },
      ]);
      const ok = await client.patch<{ amount: number }>(`/limit-order/${order.id}`, { amount: pow10(30) });
      expect(ok.status).toBe(200);
      expect(ok.body.data!.amount).toBe(1e30);
    });
  });

  describe('POST /dca-order/strategies', () => {
    it.each<[string, Body, Detail[]]>([
      [
        'totalAmount 1e308',
        { totalAmount: 1e308 },
        [
          {
            field: 'totalAmount',
            message: 'Must be at most 2^256 − 1 in base units (totalAmount × 10^6 for USDC)',
          },
        ],
      ],
      [
        'totalAmount 1e-7 of USDC (6 decimals)',
        { totalAmount: 1e-7 },
        [{ field: 'totalAmount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' }],
      ],
      [
        'a totalAmount that leaves an iteration with 0 base units',
        { totalAmount: 0.000003, iterations: 4 },
        [
          {
            field: 'totalAmount',
            message:
              'Must be at least 0.000004 USDC: each of the 4 iterations must sell at least 1 base unit',
          },
        ],
      ],
      [
        'a totalAmount the keeper reads as 0',
        { totalAmount: 1e-21, iterations: 1 },
        [
          {
            field: 'totalAmount',
            message:
              'Must be at least 0.000001 USDC: each of the 1 iterations must sell at least 1 base unit',
          },
        ],
      ],
      ['maxPrice 1e308', { maxPrice: 1e308 }, [{ field: 'maxPrice', message: 'Must be at most 10^36' }]],
      ['minPrice 1e37', { minPrice: 1e37 }, [{ field: 'minPrice', message: 'Must be at most 10^36' }]],
      ['slippage 100.5', { slippage: 100.5 }, [{ field: 'slippage', message: SLIPPAGE_BELOW_100 }]],
      [
        'frequency above 365 days',
        { frequency: 31_536_001 },
        [{ field: 'frequency', message: 'Must be at most 31536000' }],
      ],
      ['the zero address as maker', { accountTo: ZERO }, [{ field: 'accountTo', message: ZERO_MAKER }]],
      ...NATIVE_FORMS.map((native): [string, Body, Detail[]] => [
        `the native pseudo-address ${native} as maker`,
        { accountTo: native },
        [{ field: 'accountTo', message: NATIVE_MAKER }],
      ]),
      [
        'tokenAddressFrom with a wrong checksum',
        { tokenAddressFrom: wrongChecksum(CHAIN137.USDC) },
        [{ field: 'tokenAddressFrom', message: EVM_ADDRESS }],
      ],
    ])('refuses %s', async (_name, over, details) => {
      const before = await countOf('dca_strategies');
      expect400(await client.post('/dca-order/strategies', dcaStrategyBody(over)), details);
      expect(await countOf('dca_strategies')).toBe(before);
    });

    it('accepts the edges: 1 base unit per iteration, 10^36 price bounds, 10,000 iterations', async () => {
      const res = await client.post<{ totalAmount: number; maxPrice: number }>(
        '/dca-order/strategies',
        dcaStrategyBody({ totalAmount: 0.01, iterations: 10_000, minPrice: 1e36, maxPrice: 1e36 }),
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ totalAmount: 0.01, iterations: 10_000, maxPrice: 1e36 });
    });
  });

  describe('PATCH /dca-order/strategies/{id}', () => {
    it('refuses price bounds above 10^36 and changes nothing', async () => {
      const created = await client.post<{ id: string }>('/dca-order/strategies', dcaStrategyBody());
      const id = created.body.data!.id;
      expect400(await client.patch(`/dca-order/strategies/${id}`, { maxPrice: 1e308, minPrice: 1e37 }), [
        { field: 'minPrice', message: 'Must be at most 10^36' },
        { field: 'maxPrice', message: 'Must be at most 10^36' },
      ]);
      const read = await client.get<Body>(`/dca-order/strategies/${id}`);
      expect(read.body.data).not.toHaveProperty('maxPrice');
      expect(read.body.data).not.toHaveProperty('minPrice');
    });
  });

  describe.each(['/quotes', '/swap'])('POST %s', (path) => {
    const single = (params: Body, extra: Body = {}): Body => ({
      mode: 'single-chain',
      params: { ...params, ...(path === '/swap' ? swapExtras : {}) },
      ...extra,
    });
    const cross = (params: Body, extra: Body = {}): Body => ({
      mode: 'cross-chain',
      params: { ...params, ...(path === '/swap' ? swapExtras : {}) },
      ...extra,
    });

    it.each<[string, () => Body, Detail[]]>([
      [
        'single-chain slippage 100.5',
        () => single(singleParams({ slippage: '100.5' })),
        [{ field: 'params.slippage', message: SLIPPAGE_BELOW_100 }],
      ],
      [
        'single-chain slippage 100',
        () => single(singleParams({ slippage: '100' })),
        [{ field: 'params.slippage', message: SLIPPAGE_BELOW_100 }],
      ],
      [
        'single-chain slippage -1',
        () => single(singleParams({ slippage: '-1' })),
        [{ field: 'params.slippage', message: DECIMAL }],
      ],
      [
        'cross-chain slippage 100.5',
        () => cross(crossParams({ slippage: '100.5' })),
        [{ field: 'params.slippage', message: SLIPPAGE_BELOW_100 }],
      ],
      [
        'a 70-digit single-chain amount of WETH',
        () => single(singleParams({ amount: SEVENTY_DIGITS })),
        [
          {
            field: 'params.amount',
            message: 'Must be at most 2^256 − 1 in base units (amount × 10^18 for WETH)',
          },
        ],
      ],
      [
        'a 70-digit cross-chain amount of WETH',
        () => cross(crossParams({ amount: SEVENTY_DIGITS })),
        [
          {
            field: 'params.amount',
            message: 'Must be at most 2^256 − 1 in base units (amount × 10^18 for WETH)',
          },
        ],
      ],
      [
        'a single-chain amount finer than USDC decimals',
        () =>
          single(
            singleParams({ inTokenAddress: CHAIN1.USDC, outTokenAddress: CHAIN1.WETH, amount: '0.0000001' }),
          ),
        [{ field: 'params.amount', message: 'Must have at most 6 decimal places (USDC has 6 decimals)' }],
      ],
      [
        'a fee recipient with a wrong checksum',
        () => single(singleParams(), { fees: { feeBps: 10, feeRecipient: wrongChecksum(FEE_RECIPIENT) } }),
        [{ field: 'fees.feeRecipient', message: EVM_ADDRESS }],
      ],
      [
        'the zero address as fee recipient',
        () => cross(crossParams(), { fees: { feeBps: 10, feeRecipient: ZERO } }),
        [{ field: 'fees.feeRecipient', message: 'Must not be the zero address' }],
      ],
    ])('refuses %s', async (_name, body, details) => {
      expect400(await client.post(path, body()), details);
    });

    it('passes valid bounds on to routing (no route on this chain)', async () => {
      for (const body of [
        single(singleParams({ slippage: '99.99', amount: SEVENTY_DIGITS.slice(0, 50) })),
        cross(crossParams({ slippage: '0' })),
      ]) {
        const res = await client.post(path, body);
        expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 422, code: 'NO_ROUTE' });
      }
    });
  });

  describe('GET /openapi.json', () => {
    type Schema = { properties: Record<string, Schema>; oneOf: Schema[]; [key: string]: unknown };
    let doc: {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Schema }> } }>>;
    };
    const bodyOf = (path: string, method: string): Schema =>
      doc.paths[path]![method]!.requestBody.content['application/json']!.schema;

    beforeAll(async () => {
      doc = (await rawRequest<typeof doc>(running.baseUrl, 'GET', '/openapi.json')).body;
    });

    it('documents the bounds in the request schemas', () => {
      const order = bodyOf('/limit-order', 'post').properties;
      expect(order.accountTo).toMatchObject({ format: 'maker-address' });
      expect(order.amount!.description).toContain('at most 2^256 − 1 in base units');
      expect(order.priceTrigger).toMatchObject({ format: 'price', maxLength: 100 });
      expect(order.priceTrigger!.description).toContain('at most 10^36');
      expect(order.slippage).toMatchObject({ format: 'percent', minLength: 1 });
      expect(order.gasPrice).toMatchObject({ format: 'gwei' });
      expect(order.gasPrice!.description).toContain('at most 1000000');
      expect(bodyOf('/limit-order/{id}', 'patch').properties.price).toEqual(order.price);

      const strategy = bodyOf('/dca-order/strategies', 'post').properties;
      expect(strategy.maxPrice).toMatchObject({ type: 'number', maximum: 1e36 });
      expect(strategy.iterations).toMatchObject({ minimum: 1, maximum: 10_000 });
      expect(strategy.frequency).toMatchObject({ minimum: 1, maximum: 31_536_000 });
      expect(strategy.slippage).toMatchObject({ minimum: 0 });
      expect(strategy.totalAmount!.description).toContain('at least `iterations`');
      expect(bodyOf('/dca-order/strategies/{id}', 'patch').properties.minPrice).toMatchObject({
        maximum: 1e36,
      });

      for (const path of ['/quotes', '/swap']) {
        for (const branch of bodyOf(path, 'post').oneOf) {
          expect(branch.properties.params!.properties.slippage).toMatchObject({ format: 'percent' });
          expect(branch.properties.params!.properties.amount!.description).toContain('2^256 − 1');
          expect(branch.properties.fees).toMatchObject({
            properties: { feeBps: { minimum: 0, maximum: 100 } },
          });
        }
      }
    });
  });
});
