/**
 * The five external aggregators for the benchmark's HTTP line: local servers replaying each aggregator's recorded
 * answer to a 1 WETH -> USDC quote (test/fixtures/aggregators), re-aimed at the devnet's tokens and SwapRouter, and
 * one of them hung (it never answers), as an outage would leave it. No machine here reaches the real APIs.
 */
import {
  loadAggregatorExchange,
  startAggregatorReplayServer,
  type AggregatorReplayServer,
  type RecordedAggregatorExchange,
} from '../../test/helpers/aggregator-replay-server';

/** The addresses the recordings were made with (Ethereum's WETH and USDC, our router there). */
const RECORDED = {
  weth: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  taker: '0x4fd39C9E151e50580779bd04B1f7eCc310079fd3',
};

/** Per aggregator: its variables' <ID> and the recorded answer to the quote the api asks for. */
const AGGREGATORS = [
  { id: '0x', env: 'ZEROX', fixture: 'price-weth-usdc.json' },
  { id: '1inch', env: 'ONEINCH', fixture: 'quote-weth-usdc.json' },
  { id: 'paraswap', env: 'PARASWAP', fixture: 'prices-weth-usdc.json' },
  { id: 'odos', env: 'ODOS', fixture: 'quote-weth-usdc.json' },
  { id: 'kyberswap', env: 'KYBERSWAP', fixture: 'routes-weth-usdc.json' },
] as const;

export interface ExternalAggregatorsSetup {
  /** The api's environment enabling all five on the chain. */
  env: Record<string, string>;
  hungId: string;
  /** Requests each server received that matched no recording (0 when the api asked exactly what was recorded). */
  unmatched(): number;
  close(): Promise<void>;
}

/** Every spelling of `from` in the exchange's JSON replaced by `to` (addresses compare case-insensitively). */
function retarget(exchange: RecordedAggregatorExchange, swaps: ReadonlyMap<string, string>) {
  let text = JSON.stringify(exchange);
  for (const [from, to] of swaps) text = text.replace(new RegExp(from.slice(2), 'gi'), to.slice(2));
  return JSON.parse(text) as RecordedAggregatorExchange;
}

export async function startExternalAggregators(opts: {
  chainId: number;
  weth: string;
  usdc: string;
  swapRouter: string;
  budgetMs: number;
  hungId: (typeof AGGREGATORS)[number]['id'];
}): Promise<ExternalAggregatorsSetup> {
  const swaps = new Map([
    [RECORDED.weth, opts.weth],
    [RECORDED.usdc, opts.usdc],
    [RECORDED.taker, opts.swapRouter],
  ]);
  const servers: AggregatorReplayServer[] = [];
  const env: Record<string, string> = { EXTERNAL_QUOTE_BUDGET_MS: String(opts.budgetMs) };
  try {
    for (const aggregator of AGGREGATORS) {
      const server = await startAggregatorReplayServer();
      servers.push(server);
      const exchange = retarget(loadAggregatorExchange(aggregator.id, aggregator.fixture), swaps);
      server.add({ ...exchange, hang: aggregator.id === opts.hungId });
      env[`AGGREGATOR_${aggregator.env}_URL`] = server.url;
      env[`AGGREGATOR_${aggregator.env}_API_KEY`] = 'bench-key';
      env[`AGGREGATOR_${aggregator.env}_CHAINS`] = String(opts.chainId);
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return {
    env,
    hungId: opts.hungId,
    unmatched: () => servers.reduce((sum, s) => sum + s.unmatched().length, 0),
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
