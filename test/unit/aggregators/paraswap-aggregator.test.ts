/**
 * The ParaSwap (Velora) client against a local server replaying recorded answers: GET /prices (version 6.2), then
 * POST /transactions with the priceRoute unmodified, and ParaSwap's error strings.
 */
import {
  createParaswapAggregator,
  type TokenDecimalsLookup,
} from '../../../shared/routing/aggregators/paraswap-aggregator';
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

const API_KEY = 'paraswap-partner-key-51ac08e7';
const AUGUSTUS_V6_2 = '0x6a000f20005980200259b80c5102003040001068';
const fixture = (name: string) => loadAggregatorExchange('paraswap', name);

const DECIMALS: Record<string, number> = {
  [WETH.toLowerCase()]: 18,
  [USDC.toLowerCase()]: 6,
  [UNKNOWN_TOKEN.toLowerCase()]: 18,
};
const knownDecimals: TokenDecimalsLookup = (chainId, token) =>
  chainId === 1 ? DECIMALS[token.toLowerCase()] : undefined;

let server: AggregatorReplayServer;
const paraswap = (apiKey = API_KEY, decimalsOf = knownDecimals) =>
  createParaswapAggregator({ apiUrl: server.url, apiKey, chainIds: [1, 10], decimalsOf });

beforeAll(async () => {
  server = await startAggregatorReplayServer();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

describe('ParaSwap quotes', () => {
  it('asks GET /prices for version 6.2 with both decimals, the taker and the partner key', async () => {
    server.add(fixture('prices-weth-usdc.json'));
    const quote = await paraswap().quote(WETH_USDC, signal());

    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/prices');
    expect(request.query).toEqual({
      srcToken: WETH,
      srcDecimals: '18',
      destToken: USDC,
      destDecimals: '6',
      amount: '1000000000000000000',
      side: 'SELL',
      network: '1',
      version: '6.2',
      userAddress: TAKER,
    });
    expect(request.headers['x-api-key']).toBe(API_KEY);
    expect(quote).toEqual({ aggregatorId: 'paraswap', amountOut: 3_413_104_529n, gasEstimate: 163_400n });
  });

  it('sends no key header on the public API', async () => {
    server.add(fixture('prices-weth-usdc.json'));
    await paraswap('').quote(WETH_USDC, signal());
    expect(server.requests[0].headers).not.toHaveProperty('x-api-key');
  });

  it('maps ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT (over 15% impact) to no-route', async () => {
    server.add(fixture('prices-max-impact.json'));
    const error = await rejectionOf(paraswap().quote({ ...WETH_USDC, amountIn: HUGE_AMOUNT }, signal()));
    expect(error).toMatchObject({
      aggregatorId: 'paraswap',
      kind: 'no-route',
      httpStatus: 400,
      code: 'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT',
    });
  });

  it('maps "No routes found with enough liquidity" to no-route', async () => {
    server.add(fixture('prices-no-routes.json'));
    const lowDecimals: TokenDecimalsLookup = (chainId, token) =>
      token === UNKNOWN_TOKEN ? 6 : knownDecimals(chainId, token);
    const error = await rejectionOf(
      paraswap(API_KEY, lowDecimals).quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()),
    );
    expect(error).toMatchObject({ kind: 'no-route', httpStatus: 400 });
    expect((error as Error).message).toBe(
      'ParaSwap /prices answered 400: No routes found with enough liquidity',
    );
  });

  it('maps another error ("Invalid tokens") to rejected', async () => {
    server.add(fixture('prices-invalid-token.json'));
    const error = await rejectionOf(paraswap().quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()));
    expect(error).toMatchObject({ kind: 'rejected', httpStatus: 400 });
    expect((error as Error).message).toBe('ParaSwap /prices answered 400: Invalid tokens');
  });

  it('refuses a token whose decimals are unknown without asking ParaSwap', async () => {
    const error = await rejectionOf(paraswap().quote({ ...WETH_USDC, chainId: 10 }, signal()));
    expect(error).toMatchObject({ kind: 'rejected' });
    expect((error as Error).message).toContain(`the decimals of ${WETH} on chain 10 are not known`);
    expect(server.requests).toHaveLength(0);
  });
});

describe('ParaSwap swaps', () => {
  it('posts the priceRoute unmodified to /transactions/{network}, skipping the taker’s balance checks', async () => {
    const prices = fixture('prices-weth-usdc.json');
    const transactions = fixture('transactions-weth-usdc.json');
    server.add(prices);
    server.add(transactions);
    const swap = await paraswap().buildSwap(WETH_USDC_SWAP, signal());

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /prices',
      'POST /transactions/1',
    ]);
    const post = server.requests[1];
    expect(post.query).toEqual({ ignoreChecks: 'true' });
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.headers['x-api-key']).toBe(API_KEY);
    expect(post.body).toEqual({
      srcToken: WETH,
      destToken: USDC,
      srcAmount: '1000000000000000000',
      slippage: 50,
      priceRoute: (prices.response.body as { priceRoute: unknown }).priceRoute,
      userAddress: TAKER,
      srcDecimals: 18,
      destDecimals: 6,
    });
    expect(swap).toEqual({
      aggregatorId: 'paraswap',
      to: AUGUSTUS_V6_2,
      data: (transactions.response.body as { data: string }).data,
      value: 0n,
      spender: AUGUSTUS_V6_2,
      amountOut: 3_413_104_529n,
      minAmountOut: 3_396_039_006n,
      // No `gas` with ignoreChecks: the priceRoute's gasCost.
      gasEstimate: 163_400n,
    });
  });

  it('passes txOrigin in the body when the sender is known', async () => {
    const origin = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const transactions = fixture('transactions-weth-usdc.json');
    server.add(fixture('prices-weth-usdc.json'));
    server.add({
      ...transactions,
      request: {
        ...transactions.request,
        body: { ...(transactions.request.body as object), txOrigin: origin },
      },
    });
    await paraswap().buildSwap({ ...WETH_USDC_SWAP, txOrigin: origin }, signal());
    expect((server.requests[1].body as { txOrigin: string }).txOrigin).toBe(origin);
  });
});
