/**
 * quoteWithinBudget with the real clients against one replay server: the answer comes within the budget (plus a
 * little) with the aggregators that answered in time, whatever the others do; the late ones are aborted.
 */
import type { ExternalAggregator } from '../../../shared/routing/aggregators/external-aggregator';
import { quoteWithinBudget } from '../../../shared/routing/aggregators/external-quotes';
import { createKyberswapAggregator } from '../../../shared/routing/aggregators/kyberswap-aggregator';
import { createOdosAggregator } from '../../../shared/routing/aggregators/odos-aggregator';
import { createOneInchAggregator } from '../../../shared/routing/aggregators/one-inch-aggregator';
import { createParaswapAggregator } from '../../../shared/routing/aggregators/paraswap-aggregator';
import { createZeroExAggregator } from '../../../shared/routing/aggregators/zero-ex-aggregator';
import {
  loadAggregatorExchange,
  startAggregatorReplayServer,
  type AggregatorReplayServer,
} from '../../helpers/aggregator-replay-server';
import { USDC, WETH, WETH_USDC } from './aggregator-test-values';

const BUDGET_MS = 300;
/** What the answer may take beyond the budget (the bound). */
const SLACK_MS = 50;

let server: AggregatorReplayServer;

beforeAll(async () => {
  server = await startAggregatorReplayServer();
  // One exchange before any timing: the first fetch of a process loads and compiles the HTTP client.
  server.add(loadAggregatorExchange('0x', 'price-weth-usdc.json'));
  await aggregators()[0].quote(WETH_USDC, new AbortController().signal);
  server.reset();
});
afterEach(() => {
  expect(server.unmatched()).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

function aggregators(chainIds = [1]): ExternalAggregator[] {
  const settings = { apiUrl: server.url, chainIds };
  const decimals: Record<string, number> = { [WETH]: 18, [USDC]: 6 };
  return [
    createZeroExAggregator({ ...settings, apiKey: 'zeroex-key' }),
    createOneInchAggregator({ ...settings, apiKey: 'oneinch-key' }),
    createOdosAggregator({ ...settings, apiKey: '' }),
    createKyberswapAggregator({ ...settings, apiKey: 'tas-aggregator' }),
    createParaswapAggregator({ ...settings, apiKey: '', decimalsOf: (_chainId, token) => decimals[token] }),
  ];
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('quoteWithinBudget', () => {
  it('answers within budget + 50 ms with the two fast quotes while one aggregator hangs and one is slow', async () => {
    server.add(loadAggregatorExchange('0x', 'price-weth-usdc.json'));
    server.add(loadAggregatorExchange('1inch', 'quote-weth-usdc.json'));
    server.add({ ...loadAggregatorExchange('odos', 'quote-weth-usdc.json'), hang: true });
    server.add({ ...loadAggregatorExchange('kyberswap', 'routes-weth-usdc.json'), delayMs: BUDGET_MS + 400 });
    const [zeroEx, oneInch, odos, kyberswap] = aggregators();

    const { result, ms } = await timed(() =>
      quoteWithinBudget([zeroEx, oneInch, odos, kyberswap], WETH_USDC, BUDGET_MS),
    );

    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
    expect(ms).toBeLessThan(BUDGET_MS + SLACK_MS);
    expect(result).toEqual({
      quotes: [
        { aggregatorId: '0x', amountOut: 3_412_560_112n, gasEstimate: 218_742n },
        { aggregatorId: '1inch', amountOut: 3_412_901_245n, gasEstimate: 172_311n },
      ],
      failures: [],
      lateIds: ['odos', 'kyberswap'],
    });
    // The late requests were given up on, not left open.
    await settle();
    const abandoned = server.requests.filter((request) => request.abandoned).map((request) => request.path);
    expect(abandoned.sort()).toEqual(['/ethereum/api/v1/routes', '/sor/quote/v2']);
  });

  it('does not wait for the budget when every aggregator has answered, and reports the failures', async () => {
    server.add(loadAggregatorExchange('0x', 'price-weth-usdc.json'));
    server.add(loadAggregatorExchange('1inch', 'quote-weth-usdc.json'));
    server.add(loadAggregatorExchange('odos', 'quote-weth-usdc.json'));
    server.add(loadAggregatorExchange('kyberswap', 'routes-weth-usdc.json'));
    server.add(loadAggregatorExchange('paraswap', 'prices-weth-usdc.json'));
    const { result, ms } = await timed(() => quoteWithinBudget(aggregators(), WETH_USDC, 5_000));

    expect(ms).toBeLessThan(1_000);
    expect(result.quotes.map((quote) => [quote.aggregatorId, quote.amountOut])).toEqual([
      ['0x', 3_412_560_112n],
      ['1inch', 3_412_901_245n],
      ['odos', 3_412_777_810n],
      ['kyberswap', 3_412_650_071n],
      ['paraswap', 3_413_104_529n],
    ]);
    expect(result.failures).toEqual([]);
    expect(result.lateIds).toEqual([]);
  });

  it('lists an aggregator that answered in time without a quote as a failure, not as late', async () => {
    const huge = { ...WETH_USDC, amountIn: 10n ** 30n };
    server.add(loadAggregatorExchange('0x', 'price-no-liquidity.json'));
    server.add(loadAggregatorExchange('kyberswap', 'routes-not-found.json'));
    const [zeroEx, , , kyberswap] = aggregators();
    const result = await quoteWithinBudget([zeroEx, kyberswap], huge, BUDGET_MS);

    expect(result.quotes).toEqual([]);
    expect(result.lateIds).toEqual([]);
    expect(result.failures.map(({ id, error }) => [id, error.kind, error.code])).toEqual([
      ['0x', 'no-route', null],
      ['kyberswap', 'no-route', 4008],
    ]);
  });

  it('asks only the aggregators that serve the chain', async () => {
    server.add(loadAggregatorExchange('0x', 'price-weth-usdc.json'));
    const [zeroEx] = aggregators([1]);
    const [, elsewhere] = aggregators([8453]);
    const result = await quoteWithinBudget([zeroEx, elsewhere], WETH_USDC, BUDGET_MS);

    expect(result.quotes.map((quote) => quote.aggregatorId)).toEqual(['0x']);
    expect(server.requests.map((request) => request.path)).toEqual(['/swap/allowance-holder/price']);
    await expect(quoteWithinBudget([elsewhere], WETH_USDC, BUDGET_MS)).resolves.toEqual({
      quotes: [],
      failures: [],
      lateIds: [],
    });
  });

  it('keeps to the budget even with a client that ignores the abort, and counts a throwing client as failed', async () => {
    const stub = (id: ExternalAggregator['id'], quote: ExternalAggregator['quote']): ExternalAggregator => ({
      id,
      name: id,
      supports: () => true,
      quote,
      buildSwap: () => Promise.reject(new Error('not used')),
    });
    const deaf = stub('odos', () => new Promise(() => undefined));
    const broken = stub('paraswap', () => {
      throw new RangeError('amountIn must be positive');
    });
    const fast = stub('0x', async () => ({ aggregatorId: '0x', amountOut: 5n, gasEstimate: 1n }));

    const { result, ms } = await timed(() => quoteWithinBudget([deaf, broken, fast], WETH_USDC, 100));

    expect(ms).toBeLessThan(100 + SLACK_MS);
    expect(result.quotes).toEqual([{ aggregatorId: '0x', amountOut: 5n, gasEstimate: 1n }]);
    expect(result.lateIds).toEqual(['odos']);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0].id).toBe('paraswap');
    expect(result.failures[0].error).toMatchObject({
      aggregatorId: 'paraswap',
      kind: 'unavailable',
      message: 'paraswap: amountIn must be positive',
    });
  });

  it('stops every request at once when the caller aborts', async () => {
    server.add({ ...loadAggregatorExchange('0x', 'price-weth-usdc.json'), hang: true });
    server.add({ ...loadAggregatorExchange('1inch', 'quote-weth-usdc.json'), hang: true });
    const [zeroEx, oneInch] = aggregators();
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 30);

    const { result, ms } = await timed(() =>
      quoteWithinBudget([zeroEx, oneInch], WETH_USDC, 5_000, caller.signal),
    );

    expect(ms).toBeLessThan(1_000);
    expect(result.quotes).toEqual([]);
    expect(result.failures.map(({ id, error }) => [id, error.kind])).toEqual([
      ['0x', 'unavailable'],
      ['1inch', 'unavailable'],
    ]);
    await settle();
    expect(server.requests.every((request) => request.abandoned)).toBe(true);
  });
});
