/**
 * The 0x Swap API v2 client (AllowanceHolder flow) against a local server replaying recorded 0x answers: the exact
 * request 0x receives, how its answers map onto our quote and swap, and every failure path.
 */
import { freePort } from '../../../shared/net/free-port';
import { ExternalAggregatorError } from '../../../shared/routing/aggregators/external-aggregator';
import { createZeroExAggregator } from '../../../shared/routing/aggregators/zero-ex-aggregator';
import {
  loadAggregatorExchange,
  startAggregatorReplayServer,
  type AggregatorReplayServer,
  type RecordedAggregatorExchange,
} from '../../helpers/aggregator-replay-server';
import {
  HUGE_AMOUNT,
  rejectionOf,
  signal,
  TAKER,
  UNKNOWN_TOKEN,
  WETH,
  USDC,
  WETH_USDC,
  WETH_USDC_SWAP,
} from './aggregator-test-values';

const API_KEY = 'zeroex-test-key-7c1e93b0a4d2';
const ALLOWANCE_HOLDER = '0x0000000000001ff3684f28c67538d4d072c22734';
const fixture = (name: string) => loadAggregatorExchange('0x', name);

/** The recorded answer with one change, for answers 0x should never give. */
function tampered(exchange: RecordedAggregatorExchange, change: (body: Record<string, unknown>) => void) {
  const body = structuredClone(exchange.response.body) as Record<string, unknown>;
  change(body);
  return { ...exchange, response: { ...exchange.response, body } };
}

let server: AggregatorReplayServer;
const zeroEx = (chainIds = [1, 8453]) =>
  createZeroExAggregator({ apiUrl: server.url, apiKey: API_KEY, chainIds });

beforeAll(async () => {
  server = await startAggregatorReplayServer();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

describe('0x quotes', () => {
  it('asks GET /swap/allowance-holder/price with the API key and version headers', async () => {
    server.add(fixture('price-weth-usdc.json'));
    const quote = await zeroEx().quote(WETH_USDC, signal());

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/swap/allowance-holder/price');
    expect(request.query).toEqual({
      chainId: '1',
      sellToken: WETH,
      buyToken: USDC,
      sellAmount: '1000000000000000000',
      taker: TAKER,
    });
    expect(request.headers['0x-api-key']).toBe(API_KEY);
    expect(request.headers['0x-version']).toBe('v2');
    expect(quote).toEqual({ aggregatorId: '0x', amountOut: 3_412_560_112n, gasEstimate: 218_742n });
  });

  it('serves only the chains the operator enabled', () => {
    const aggregator = zeroEx([1, 10]);
    expect(aggregator.id).toBe('0x');
    expect(aggregator.name).toBe('0x');
    expect([1, 10, 8453].map((chainId) => aggregator.supports(chainId))).toEqual([true, true, false]);
  });

  it('assumes a typical swap gas when 0x could not estimate (gas: null)', async () => {
    server.add(tampered(fixture('price-weth-usdc.json'), (body) => (body.gas = null)));
    const quote = await zeroEx().quote(WETH_USDC, signal());
    expect(quote.gasEstimate).toBe(350_000n);
  });
});

describe('0x swaps', () => {
  it('asks GET /swap/allowance-holder/quote with the slippage and calls AllowanceHolder, the spender', async () => {
    const recorded = fixture('quote-weth-usdc.json');
    server.add(recorded);
    const swap = await zeroEx().buildSwap(WETH_USDC_SWAP, signal());

    const [request] = server.requests;
    expect(request.path).toBe('/swap/allowance-holder/quote');
    expect(request.query).toEqual({
      chainId: '1',
      sellToken: WETH,
      buyToken: USDC,
      sellAmount: '1000000000000000000',
      taker: TAKER,
      slippageBps: '50',
    });
    expect(request.headers['0x-api-key']).toBe(API_KEY);
    const transaction = (recorded.response.body as { transaction: { data: string } }).transaction;
    expect(swap).toEqual({
      aggregatorId: '0x',
      to: ALLOWANCE_HOLDER,
      data: transaction.data,
      value: 0n,
      spender: ALLOWANCE_HOLDER,
      amountOut: 3_412_487_350n,
      minAmountOut: 3_395_424_913n,
      gasEstimate: 231_904n,
    });
    expect(swap.data.startsWith('0x2213bc0b')).toBe(true);
  });

  it('passes the sending account as txOrigin when it is known', async () => {
    const recorded = fixture('quote-weth-usdc.json');
    const origin = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    server.add({
      ...recorded,
      request: { ...recorded.request, query: { ...recorded.request.query, txOrigin: origin } },
    });
    await zeroEx().buildSwap({ ...WETH_USDC_SWAP, txOrigin: origin }, signal());
    expect(server.requests[0].query.txOrigin).toBe(origin);
  });

  it('takes allowanceTarget as the spender when the taker already has an allowance (issues.allowance null)', async () => {
    server.add(
      tampered(fixture('quote-weth-usdc.json'), (body) => {
        (body.issues as Record<string, unknown>).allowance = null;
      }),
    );
    const swap = await zeroEx().buildSwap(WETH_USDC_SWAP, signal());
    expect(swap.spender).toBe(ALLOWANCE_HOLDER);
    expect(swap.to).toBe(ALLOWANCE_HOLDER);
  });

  it('refuses calldata whose target is not the spender (our router approves the contract it calls)', async () => {
    server.add(
      tampered(fixture('quote-weth-usdc.json'), (body) => {
        (body.transaction as Record<string, unknown>).to = '0xdf31a70a21a1931e02033dbba7deace6c45cfd0f';
      }),
    );
    const error = await rejectionOf(zeroEx().buildSwap(WETH_USDC_SWAP, signal()));
    expect(error).toBeInstanceOf(ExternalAggregatorError);
    expect(error).toMatchObject({ aggregatorId: '0x', kind: 'unavailable' });
    expect((error as Error).message).toContain('is not the AllowanceHolder spender');
  });
});

describe('0x failures', () => {
  it('maps liquidityAvailable: false to no-route', async () => {
    server.add(fixture('price-no-liquidity.json'));
    const error = await rejectionOf(zeroEx().quote({ ...WETH_USDC, amountIn: HUGE_AMOUNT }, signal()));
    expect(error).toMatchObject({ kind: 'no-route', httpStatus: 200 });
    expect((error as Error).message).toBe(
      '0x /swap/allowance-holder/price answered 200: liquidityAvailable is false',
    );
  });

  it('maps 400 TOKEN_NOT_SUPPORTED to rejected, keeping 0x’s name and message', async () => {
    server.add(fixture('price-token-not-supported.json'));
    const error = await rejectionOf(zeroEx().quote({ ...WETH_USDC, tokenOut: UNKNOWN_TOKEN }, signal()));
    expect(error).toMatchObject({ kind: 'rejected', httpStatus: 400, code: 'TOKEN_NOT_SUPPORTED' });
    expect((error as Error).message).toBe(
      '0x /swap/allowance-holder/price answered 400 (TOKEN_NOT_SUPPORTED): Token is not supported',
    );
  });

  it('maps 500 INTERNAL_SERVER_ERROR to unavailable', async () => {
    server.add(fixture('price-internal-error.json'));
    const error = await rejectionOf(zeroEx().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: 500, code: 'INTERNAL_SERVER_ERROR' });
  });

  it('never repeats the API key, even when 0x echoes it', async () => {
    const recorded = fixture('price-weth-usdc.json');
    server.add({
      request: recorded.request,
      response: { status: 401, body: { name: 'UNAUTHORIZED', message: `Invalid API key ${API_KEY}` } },
    });
    const error = await rejectionOf(zeroEx().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'rejected', httpStatus: 401 });
    expect((error as Error).message).not.toContain(API_KEY);
    expect((error as Error).message).toContain('Invalid API key [redacted]');
  });

  it('reads an answer for another amount as unavailable, never as a quote', async () => {
    server.add(tampered(fixture('price-weth-usdc.json'), (body) => (body.sellAmount = '999')));
    const error = await rejectionOf(zeroEx().quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toBe(
      '0x /swap/allowance-holder/price: sellAmount is not the amount asked for',
    );
  });

  it('is unavailable when nothing listens', async () => {
    const port = await freePort('127.0.0.1');
    const closed = createZeroExAggregator({
      apiUrl: `http://127.0.0.1:${port}`,
      apiKey: API_KEY,
      chainIds: [1],
    });
    const error = await rejectionOf(closed.quote(WETH_USDC, signal()));
    expect(error).toMatchObject({ kind: 'unavailable', httpStatus: null });
    expect((error as Error).message).toMatch(/unreachable \(ECONNREFUSED\)/);
  });
});
