/**
 * The KyberSwap Aggregator API v1 client against a local server replaying recorded answers: GET routes, then
 * POST route/build with the routeSummary unmodified, and KyberSwap's `code`s.
 */
import { createKyberswapAggregator } from '../../../shared/routing/aggregators/kyberswap-aggregator';
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

const CLIENT_ID = 'tas-aggregator';
const ROUTER = '0x6131B5fae19EA4f9D964eAc0408E4408b66337b5';
const fixture = (name: string) => loadAggregatorExchange('kyberswap', name);

let server: AggregatorReplayServer;
const kyberswap = (chainIds = [1, 42161]) =>
  createKyberswapAggregator({ apiUrl: server.url, apiKey: CLIENT_ID, chainIds });

beforeAll(async () => {
  server = await startAggregatorReplayServer();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

describe('KyberSwap quotes', () => {
  it('asks GET /{chain}/api/v1/routes with the chain’s slug and the x-client-id header', async () => {
    server.add(fixture('routes-weth-usdc.json'));
    const quote = await kyberswap().quote(WETH_USDC, signal());

    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/ethereum/api/v1/routes');
    expect(request.query).toEqual({ tokenIn: WETH, tokenOut: USDC, amountIn: '1000000000000000000' });
    expect(request.headers['x-client-id']).toBe(CLIENT_ID);
    expect(quote).toEqual({ aggregatorId: 'kyberswap', amountOut: 3_412_650_071n, gasEstimate: 184_000n });
  });

  it('serves the enabled chains KyberSwap has a path for', () => {
    const aggregator = kyberswap([1, 42161, 424242]);
    expect([1, 42161, 424242, 10].map((chainId) => aggregator.supports(chainId))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('maps 4008 route not found to no-route', async () => {
    server.add(fixture('routes-not-found.json'));
    const error = await rejectionOf(kyberswap().quote({ ...WETH_USDC, amountIn: HUGE_AMOUNT }, signal()));
    expect(error).toMatchObject({ aggregatorId: 'kyberswap', kind: 'no-route', httpStatus: 400, code: 4008 });
    expect((error as Error).message).toBe(
      'KyberSwap /ethereum/api/v1/routes answered 400 (4008): route not found',
    );
  });

  it('maps 4011 token not found to rejected', async () => {
    server.add(fixture('routes-token-not-found.json'));
    const error = await rejectionOf(kyberswap().quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()));
    expect(error).toMatchObject({ kind: 'rejected', code: 4011 });
  });
});

describe('KyberSwap swaps', () => {
  it('posts the routeSummary unmodified to route/build for the taker as sender and recipient', async () => {
    const routes = fixture('routes-weth-usdc.json');
    const built = fixture('route-build-weth-usdc.json');
    server.add(routes);
    server.add(built);
    const swap = await kyberswap().buildSwap(WETH_USDC_SWAP, signal());

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /ethereum/api/v1/routes',
      'POST /ethereum/api/v1/route/build',
    ]);
    const post = server.requests[1];
    expect(post.headers['x-client-id']).toBe(CLIENT_ID);
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.body).toEqual({
      routeSummary: (routes.response.body as { data: { routeSummary: unknown } }).data.routeSummary,
      sender: TAKER,
      recipient: TAKER,
      slippageTolerance: 50,
      source: CLIENT_ID,
    });
    expect(swap).toEqual({
      aggregatorId: 'kyberswap',
      to: ROUTER,
      data: (built.response.body as { data: { data: string } }).data.data,
      value: 0n,
      spender: ROUTER,
      amountOut: 3_412_650_071n,
      minAmountOut: 3_395_586_820n,
      gasEstimate: 191_250n,
    });
  });

  it('maps 4227 (gas estimation failed at build) to unavailable', async () => {
    server.add(fixture('routes-weth-usdc.json'));
    server.add(fixture('route-build-gas-estimation-failed.json'));
    const error = await rejectionOf(kyberswap().buildSwap(WETH_USDC_SWAP, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 422, code: 4227 });
    expect((error as Error).message).toContain('estimate gas failed: return amount is not enough');
  });

  it('reads a 200 outside KyberSwap’s {code, data} envelope as unavailable', async () => {
    const recorded = fixture('routes-weth-usdc.json');
    server.add({ ...recorded, response: { status: 200, body: { routeSummary: {} } } });
    const error = await rejectionOf(kyberswap().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 200 });
  });
});
