/**
 * The 1inch Swap API v6.0 client against a local server replaying recorded 1inch answers: quote, spender, swap
 * calldata and the error mapping.
 */
import { createOneInchAggregator } from '../../../shared/routing/aggregators/one-inch-aggregator';
import {
  loadAggregatorExchange,
  startAggregatorReplayServer,
  type AggregatorReplayServer,
} from '../../helpers/aggregator-replay-server';
import {
  HUGE_AMOUNT,
  rejectionOf,
  signal,
  TAKER,
  UNKNOWN_TOKEN,
  USDC,
  WETH,
  WETH_USDC,
  WETH_USDC_SWAP,
} from './aggregator-test-values';

const API_KEY = 'oneinch-test-key-2b8f51d6e0a9';
const ROUTER = '0x111111125421ca6dc452d289314280a0f8842a65';
const fixture = (name: string) => loadAggregatorExchange('1inch', name);

let server: AggregatorReplayServer;
const oneInch = () => createOneInchAggregator({ apiUrl: server.url, apiKey: API_KEY, chainIds: [1, 42161] });

beforeAll(async () => {
  server = await startAggregatorReplayServer();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

describe('1inch quotes', () => {
  it('asks GET /swap/v6.0/{chain}/quote with includeGas and the bearer key', async () => {
    server.add(fixture('quote-weth-usdc.json'));
    const quote = await oneInch().quote(WETH_USDC, signal());

    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/swap/v6.0/1/quote');
    expect(request.query).toEqual({
      src: WETH,
      dst: USDC,
      amount: '1000000000000000000',
      includeGas: 'true',
    });
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(quote).toEqual({ aggregatorId: '1inch', amountOut: 3_412_901_245n, gasEstimate: 172_311n });
  });

  it('maps 400 "insufficient liquidity" to no-route', async () => {
    server.add(fixture('quote-insufficient-liquidity.json'));
    const error = await rejectionOf(oneInch().quote({ ...WETH_USDC, amountIn: HUGE_AMOUNT }, signal()));
    expect(error).toMatchObject({ aggregatorId: '1inch', kind: 'no-route', httpStatus: 400 });
    expect((error as Error).message).toBe('1inch /swap/v6.0/1/quote answered 400: insufficient liquidity');
  });

  it('maps another 400 (an unknown token) to rejected with 1inch’s description', async () => {
    server.add(fixture('quote-unknown-token.json'));
    const error = await rejectionOf(oneInch().quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()));
    expect(error).toMatchObject({ kind: 'rejected', httpStatus: 400 });
    expect((error as Error).message).toContain(`cannot sync token ${UNKNOWN_TOKEN.toLowerCase()}`);
  });

  it('maps 429 to unavailable', async () => {
    server.add(fixture('quote-rate-limited.json'));
    const error = await rejectionOf(oneInch().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 429 });
  });
});

describe('1inch swaps', () => {
  it('asks the router to approve once, then GET /swap with the slippage in percent and no estimate', async () => {
    const recorded = fixture('swap-weth-usdc.json');
    server.add(fixture('approve-spender.json'));
    server.add(recorded);
    server.add(recorded);
    const aggregator = oneInch();
    const swap = await aggregator.buildSwap(WETH_USDC_SWAP, signal());
    await aggregator.buildSwap(WETH_USDC_SWAP, signal());

    // The spender is asked once per chain; both swaps are built.
    expect(server.requests.map((request) => request.path)).toEqual([
      '/swap/v6.0/1/approve/spender',
      '/swap/v6.0/1/swap',
      '/swap/v6.0/1/swap',
    ]);
    expect(server.requests[1].query).toEqual({
      src: WETH,
      dst: USDC,
      amount: '1000000000000000000',
      from: TAKER,
      slippage: '0.5',
      disableEstimate: 'true',
    });
    expect(server.requests.every((request) => request.headers.authorization === `Bearer ${API_KEY}`)).toBe(
      true,
    );
    const tx = (recorded.response.body as { tx: { data: string } }).tx;
    expect(swap).toEqual({
      aggregatorId: '1inch',
      to: ROUTER,
      data: tx.data,
      value: 0n,
      spender: ROUTER,
      amountOut: 3_412_877_004n,
      // 3,412,877,004 less 0.5%, rounded down
      minAmountOut: 3_395_812_618n,
      gasEstimate: 268_563n,
    });
  });

  it('words a fractional slippage as 1inch’s percent (5 bps is 0.05)', async () => {
    const recorded = fixture('swap-weth-usdc.json');
    server.add(fixture('approve-spender.json'));
    server.add({
      ...recorded,
      request: { ...recorded.request, query: { ...recorded.request.query, slippage: '0.05' } },
    });
    const swap = await oneInch().buildSwap({ ...WETH_USDC_SWAP, slippageBps: 5 }, signal());
    expect(swap.minAmountOut).toBe(3_411_170_565n);
  });

  it('refuses calldata for another contract than the router it approves', async () => {
    const recorded = fixture('swap-weth-usdc.json');
    const body = structuredClone(recorded.response.body) as { tx: Record<string, unknown> };
    body.tx.to = '0x1111111254eeb25477b68fb85ed929f73a960582';
    server.add(fixture('approve-spender.json'));
    server.add({ ...recorded, response: { ...recorded.response, body } });
    const error = await rejectionOf(oneInch().buildSwap(WETH_USDC_SWAP, signal()));
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toContain(`is not the router ${ROUTER} to approve`);
  });
});
