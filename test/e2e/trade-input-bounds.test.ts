import fc from 'fast-check';
import { getAddress, Wallet } from 'ethers';
import type { ApiClient, ApiResponse, Envelope } from '../helpers/api-client';
import { startDevnetApi, waitUntilQuotesAvailable, type DevnetApi } from '../helpers/devnet-api';
import { breaksTradeBounds, largestAmount, tradeBody, type TradeWorld } from '../helpers/trade-bodies';

/**
 * The bounds of POST /quotes and POST /swap on a tradable devnet chain, where a body that passes validation goes
 * through routing, calldata building and the dry run: absurd amounts and slippages are a 400 naming the field,
 * never a 500 from deep inside (before: a 70-digit amount or slippage "100.5" made /swap answer
 * `500 SWAP_ERROR` from a RangeError and /quotes answer 200).
 */

jest.setTimeout(300_000);

const CHAIN_ID = 1;
const RUNS_PER_ROUTE = 200;
const INVALID_BODY = 'Invalid request body';

describe('trade input bounds on a devnet chain', () => {
  let api: DevnetApi;
  let client: ApiClient;
  let weth: string;
  let usdc: string;
  let world: TradeWorld;

  const params = (over: Record<string, unknown> = {}) => ({
    chainId: CHAIN_ID,
    inTokenAddress: weth,
    outTokenAddress: usdc,
    amount: '1',
    gasPrice: '30',
    slippage: '0.5',
    ...over,
  });
  /** A new wallet nobody funded: the swap's dry run stops at its funding, so valid bodies answer 200. */
  const account = (): string => Wallet.createRandom().address;
  const quote = (over: Record<string, unknown> = {}) =>
    client.post('/quotes', { mode: 'single-chain', params: params(over) });
  const swap = (over: Record<string, unknown> = {}) =>
    client.post('/swap', {
      mode: 'single-chain',
      params: { ...params(over), account: account(), aggregatorId: 'tas-smart' },
    });

  function expect400(res: ApiResponse<Envelope<unknown>>, field: string, message: string): void {
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 400,
      error: { code: 'VALIDATION_ERROR', message: INVALID_BODY, details: [{ field, message }] },
    });
  }

  beforeAll(async () => {
    api = await startDevnetApi(CHAIN_ID, 'tas-bounds-');
    client = api.client;
    weth = getAddress(api.manifest.contracts.weth);
    usdc = getAddress(api.manifest.tokens.find((t) => t.symbol === 'USDC')!.address);
    world = {
      chainId: CHAIN_ID,
      otherChainId: 137,
      tokens: api.manifest.tokens.map((t) => ({ address: getAddress(t.address), decimals: t.decimals })),
      aggregatorIds: [
        'uniswap-v2',
        'uniswap-v3',
        'sushiswap-v2',
        'uniswap-v4',
        'balancer-v2',
        'stableswap',
        'tas-smart',
      ],
    };
    await waitUntilQuotesAvailable(() => quote());
  });

  afterAll(async () => {
    await api?.close();
  });

  it.each([
    ['/quotes', quote],
    ['/swap', swap],
  ] as const)('%s refuses a 70-digit amount and a slippage of 100.5 with 400', async (_path, send) => {
    expect400(
      await send({ amount: '9'.repeat(70) }),
      'params.amount',
      'Must be at most 2^256 − 1 in base units (amount × 10^18 for WETH)',
    );
    expect400(await send({ slippage: '100.5' }), 'params.slippage', 'Must be less than 100');
    expect400(await send({ slippage: '100' }), 'params.slippage', 'Must be less than 100');
  });

  it.each([
    ['/quotes', quote],
    ['/swap', swap],
  ] as const)(
    '%s takes the largest amount a uint256 holds through the whole path, to 422 NO_ROUTE (it would empty the pools)',
    async (_path, send) => {
      const res = await send({ amount: largestAmount(18), slippage: '99.99' });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 422, code: 'NO_ROUTE' });
    },
  );

  it.each([
    ['/quotes', false],
    ['/swap', true],
  ])(
    'POST %s: no absurd body gets a 500, and every body that breaks a bound gets a 400',
    async (path, isSwap) => {
      const statuses = new Set<number>();
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(tradeBody(world, isSwap), async (body) => {
          const res = await client.post(path, body);
          statuses.add(res.status);
          const expected = [200, 400, 422].includes(res.status);
          expect({ body, status: res.status, text: res.text, expected }).toMatchObject({ expected: true });
          if (breaksTradeBounds(world, body)) {
            refused += 1;
            expect({ body, status: res.status }).toEqual({ body, status: 400 });
          }
        }),
        // One valid body among the generated ones, so that "reached the routing" below never hangs on the draw
        // (one CI run drew 200 swap bodies of which none was valid throughout).
        {
          numRuns: RUNS_PER_ROUTE,
          examples: [
            [
              {
                mode: 'single-chain',
                params: isSwap ? { ...params(), account: account(), aggregatorId: 'tas-smart' } : params(),
              },
            ],
          ],
        },
      );
      // The runs reached the routing (200) as well as the checks.
      expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400]));
      expect(refused).toBeGreaterThanOrEqual(5);
    },
  );
});
