/**
 * The Odos SOR v2 client against a local server replaying recorded answers: POST /sor/quote/v2, then
 * POST /sor/assemble with the pathId, and Odos's error codes.
 */
import { createOdosAggregator } from '../../../shared/routing/aggregators/odos-aggregator';
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

const API_KEY = 'odos-enterprise-key-93d2f7a1';
const ODOS_ROUTER_V2 = '0xCf5540fFFCdC3d510B18bFcA6d2b9987b0772559';
const fixture = (name: string) => loadAggregatorExchange('odos', name);

let server: AggregatorReplayServer;
const odos = (apiKey = '') => createOdosAggregator({ apiUrl: server.url, apiKey, chainIds: [1, 8453] });

beforeAll(async () => {
  server = await startAggregatorReplayServer();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

describe('Odos quotes', () => {
  it('posts /sor/quote/v2 for the taker, compact calldata, Odos’s default slippage', async () => {
    server.add(fixture('quote-weth-usdc.json'));
    const quote = await odos().quote(WETH_USDC, signal());

    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/sor/quote/v2');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers).not.toHaveProperty('x-api-key');
    expect(request.body).toEqual({
      chainId: 1,
      inputTokens: [{ tokenAddress: WETH, amount: '1000000000000000000' }],
      outputTokens: [{ tokenAddress: USDC, proportion: 1 }],
      userAddr: TAKER,
      compact: true,
    });
    // gasEstimate 181233.6 rounds up
    expect(quote).toEqual({ aggregatorId: 'odos', amountOut: 3_412_777_810n, gasEstimate: 181_234n });
  });

  it('sends the enterprise key as x-api-key when one is configured', async () => {
    server.add(fixture('quote-weth-usdc.json'));
    await odos(API_KEY).quote(WETH_USDC, signal());
    expect(server.requests[0].headers['x-api-key']).toBe(API_KEY);
  });

  it('maps 2000 NO_VIABLE_PATH to no-route', async () => {
    server.add(fixture('quote-no-viable-path.json'));
    const error = await rejectionOf(odos().quote({ ...WETH_USDC, amountIn: HUGE_AMOUNT }, signal()));
    expect(error).toMatchObject({ aggregatorId: 'odos', kind: 'no-route', httpStatus: 400, code: 2000 });
    expect((error as Error).message).toBe('Odos /sor/quote/v2 answered 400 (2000): No viable path found');
  });

  it('maps a 4XXX validation error (4010 INVALID_TOKEN_ADDR) to rejected', async () => {
    server.add(fixture('quote-invalid-token.json'));
    const error = await rejectionOf(odos().quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()));
    expect(error).toMatchObject({ kind: 'rejected', code: 4010 });
  });

  it('maps an algorithm timeout (2998) to unavailable', async () => {
    server.add(fixture('quote-algo-timeout.json'));
    const error = await rejectionOf(odos().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 500, code: 2998 });
  });
});

describe('Odos swaps', () => {
  it('quotes with the slippage, then assembles the pathId without simulating', async () => {
    const assembled = fixture('assemble-weth-usdc.json');
    server.add(fixture('quote-weth-usdc-slippage-50.json'));
    server.add(assembled);
    const swap = await odos().buildSwap(WETH_USDC_SWAP, signal());

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /sor/quote/v2',
      'POST /sor/assemble',
    ]);
    expect((server.requests[0].body as { slippageLimitPercent: number }).slippageLimitPercent).toBe(0.5);
    expect(server.requests[1].body).toEqual({
      userAddr: TAKER,
      pathId: '0c83e1f5b2d94a7c8e6f1a0b3d5c7e92',
      simulate: false,
    });
    const transaction = (assembled.response.body as { transaction: { data: string } }).transaction;
    expect(swap).toEqual({
      aggregatorId: 'odos',
      to: ODOS_ROUTER_V2,
      data: transaction.data,
      value: 0n,
      spender: ODOS_ROUTER_V2,
      amountOut: 3_412_777_810n,
      minAmountOut: 3_395_713_920n,
      gasEstimate: 254_012n,
    });
  });

  it('refuses a quote for another amount than asked', async () => {
    const recorded = fixture('quote-weth-usdc.json');
    const body = { ...(recorded.response.body as object), inAmounts: ['500000000000000000'] };
    server.add({ ...recorded, response: { ...recorded.response, body } });
    const error = await rejectionOf(odos().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toBe('Odos /sor/quote/v2: inAmounts is not the amount asked for');
  });
});
