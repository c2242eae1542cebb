/**
 * npm run bench:quote — single-chain quotes on a devnet chain with warm pool state: quotes per second and
 * p50/p99 latency of the QuoteEngine (the work of POST /quotes minus HTTP) for a direct, a 2-hop and a split
 * pair, next to Uniswap's `@uniswap/v2-sdk` Trade.bestTradeExactIn over the same V2 pairs in the same run, and
 * the outputs of both. A report, not a test: it exits 0 whatever the targets say, non-zero on errors only.
 * Then the same pairs through POST /quotes over HTTP, for the end-to-end figure.
 * QUOTE_BENCH_COUNT (default 2000) sets the timed engine quotes per line, QUOTE_BENCH_HTTP_COUNT (default 300,
 * 0 skips the HTTP part) the timed requests per pair class.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseUnits } from 'ethers';
import { loadDevnetConfig } from '../devnet/devnet-config';
import type { ManifestChain } from '../devnet/manifest';
import { startDevnet, type RunningDevnet } from '../devnet/start-devnet';
import { ChainClients } from '../shared/chain/chain-clients';
import { ChainRegistry } from '../shared/chain/chain-registry';
import { createLogger } from '../shared/log/create-logger';
import type { PoolState, V2PoolState } from '../shared/routing/pools/pool-state';
import type { QuoteEngine, QuoteRequestInput, SourceQuote } from '../shared/routing/quote-engine';
import { startQuoting, type QuotingService } from '../shared/routing/quoting-service';
import { HttpQuoteApi, type HttpQuoteParams } from './quote-bench/http-quotes';
import { measureInterleaved, measureInterleavedAsync, type LatencyStats } from './quote-bench/latency';
import { startExternalAggregators } from './quote-bench/external-aggregators';
import { printHttpReport, printReport, type HttpReportRow, type ReportRow } from './quote-bench/report-table';
import { V2SdkRouter, type BenchToken } from './quote-bench/v2-sdk-router';

const CHAIN_ID = 1;
/** What the e2e tests and a typical integrator send as `gasPrice`: routes are ranked net of this gas. */
const GAS_PRICE_WEI = 30n * 10n ** 9n;
const WARMUP = 200;
const HTTP_WARMUP = 50;
/** Alternating blocks of timed quotes per pair class (ours, ours V2-only, the sdk's). */
const ROUNDS = 8;
const WARM_STATE_TIMEOUT_MS = 60_000;
/** Our V2-only line: the Uniswap V2 source asked alone, over exactly the pairs the sdk sees. */
const V2_ONLY = 'uniswap-v2';
/** The external aggregators' latency budget in the HTTP line, and the one left hung. */
const EXTERNAL_BUDGET_MS = 400;
const HUNG_AGGREGATOR = 'odos';
/** A quote with a hung aggregator must answer within the budget plus this. */
const BUDGET_SLACK_MS = 50;

interface PairClass {
  name: string;
  tokenIn: string;
  tokenOut: string;
  /** Human units of tokenIn. */
  amount: string;
  /** The property that makes the pair belong to its class, checked on our all-sources quote. */
  expect: 'single-hop' | 'two-hop' | 'split';
  /** The source that must give the best quote, when the class is about one. */
  source?: string;
}

// LINK has a single V2 pool (LINK/WETH) on the devnet and no LINK/USDC pool: every route goes through WETH.
// 300 WETH is 15% of each WETH/USDC pool's depth: too much for one pool at the price impact it causes.
// USDC/USDT is a stable pair (the StableSwap pool beats every constant-product pool); BAL trades only on Balancer
// and SUSHI only on SushiSwap, so the v2-sdk over Uniswap V2 finds no trade for them.
const CLASSES: readonly PairClass[] = [
  { name: 'direct', tokenIn: 'WETH', tokenOut: 'USDC', amount: '1', expect: 'single-hop' },
  { name: '2-hop', tokenIn: 'LINK', tokenOut: 'USDC', amount: '100', expect: 'two-hop' },
  { name: 'split', tokenIn: 'WETH', tokenOut: 'USDC', amount: '300', expect: 'split' },
  {
    name: 'stable',
    tokenIn: 'USDC',
    tokenOut: 'USDT',
    amount: '100000',
    expect: 'single-hop',
    source: 'stableswap',
  },
  {
    name: 'balancer-only',
    tokenIn: 'BAL',
    tokenOut: 'WETH',
    amount: '500',
    expect: 'single-hop',
    source: 'balancer-v2',
  },
  {
    name: 'cross-venue',
    tokenIn: 'SUSHI',
    tokenOut: 'BAL',
    amount: '1000',
    expect: 'two-hop',
    source: 'tas-smart',
  },
];

function countFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name] ?? String(fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return n;
}

function tokenBySymbol(chain: ManifestChain, symbol: string): BenchToken {
  const token = chain.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`devnet chain ${chain.chainId} lists no ${symbol}`);
  return token;
}

function bestQuote(engine: QuoteEngine, input: QuoteRequestInput): SourceQuote {
  const result = engine.quote(input);
  if (!result) throw new Error(`no route for ${input.tokenIn} -> ${input.tokenOut}`);
  return result.quotes[0]!;
}

function poolLabel(pool: PoolState): string {
  switch (pool.kind) {
    case 'v2':
      return pool.sourceId === 'uniswap-v2' ? 'V2' : pool.sourceId;
    case 'v3':
    case 'v4':
      return `${pool.kind.toUpperCase()} ${pool.fee / 10_000}%`;
    case 'balancer-weighted':
      return `Balancer ${Number(pool.weight0 / 10n ** 16n)}/${Number(pool.weight1 / 10n ** 16n)}`;
    case 'stable':
      return 'StableSwap';
  }
}

/** "60% WETH>USDC [V3 0.05%] + 40% ...": what the best quote does with the amount. */
function describeSplits(quote: SourceQuote, symbolOf: (address: string) => string): string {
  const total = quote.splits.reduce((sum, s) => sum + s.amountIn, 0n);
  return quote.splits
    .map((s) => {
      const pct = Number((s.amountIn * 10_000n) / total) / 100;
      const pools = s.route.pools.map(poolLabel).join(', ');
      return `${pct}% ${s.route.path.map(symbolOf).join('>')} [${pools}]`;
    })
    .join(' + ');
}

function checkClass(pair: PairClass, quote: SourceQuote): string | undefined {
  if (pair.source && quote.sourceId !== pair.source)
    return `expected ${pair.source} to win, got ${quote.sourceId}`;
  const hops = quote.splits.map((s) => s.route.pools.length);
  switch (pair.expect) {
    case 'single-hop':
      return hops.every((h) => h === 1)
        ? undefined
        : `expected single-hop routes, got hops ${hops.join(',')}`;
    case 'two-hop':
      return hops.every((h) => h >= 2) ? undefined : `expected multi-hop routes, got hops ${hops.join(',')}`;
    case 'split':
      return quote.splits.length > 1 ? undefined : 'expected the amount split across several routes, got one';
  }
}

async function waitForWarmState(engine: QuoteEngine, inputs: readonly QuoteRequestInput[]): Promise<number> {
  const started = Date.now();
  while (!inputs.every((input) => engine.quote(input) !== undefined)) {
    if (Date.now() - started > WARM_STATE_TIMEOUT_MS)
      throw new Error(
        `pool state not warm after ${WARM_STATE_TIMEOUT_MS} ms: some pairs still have no route`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

/** Lets the chain and the block follower run between timed loops, which block the event loop. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The same pair classes through POST /quotes over HTTP: the end-to-end figure an integrator sees. */
async function httpSection(devnet: RunningDevnet, count: number): Promise<void> {
  const chain = devnet.manifest.chains[0]!;
  const started = Date.now();
  const api = await HttpQuoteApi.start(devnet.chains);
  try {
    const paramsOf = (pair: PairClass): HttpQuoteParams => ({
      chainId: CHAIN_ID,
      inTokenAddress: tokenBySymbol(chain, pair.tokenIn).address,
      outTokenAddress: tokenBySymbol(chain, pair.tokenOut).address,
      amount: pair.amount,
      gasPrice: String(GAS_PRICE_WEI / 10n ** 9n),
    });
    await api.waitUntilQuotable(CLASSES.map(paramsOf), WARM_STATE_TIMEOUT_MS);
    console.log(
      `\nPOST /quotes over HTTP (api on loopback, SQLite store, signed requests, one in flight), ready ` +
        `${Date.now() - started} ms after start; ${HTTP_WARMUP} warm-up + ${count} timed requests per class, classes alternating:\n`,
    );
    const runs: Record<string, () => Promise<void>> = {};
    const rows: Omit<HttpReportRow, 'stats'>[] = [];
    for (const pair of CLASSES) {
      const params = paramsOf(pair);
      const sample = await api.quote(params);
      if (sample.status !== 200 || sample.outAmount === undefined)
        throw new Error(`POST /quotes for ${pair.name} answered ${sample.status} ${sample.errorCode}`);
      runs[pair.name] = async () => {
        const answer = await api.quote(params);
        if (answer.status !== 200)
          throw new Error(`POST /quotes answered ${answer.status} ${answer.errorCode}`);
      };
      rows.push({
        pairClass: pair.name,
        outAmount: BigInt(sample.outAmount),
        tokenOut: tokenBySymbol(chain, pair.tokenOut),
      });
    }
    const stats = await measureInterleavedAsync(runs, { warmup: HTTP_WARMUP, count, rounds: ROUNDS });
    printHttpReport(rows.map((row) => ({ ...row, stats: stats[row.pairClass]! })));
  } finally {
    await api.close();
  }
}

/**
 * POST /quotes with the five external aggregators enabled against local replay servers, one of them hung: every
 * answer must come within the aggregators' budget plus BUDGET_SLACK_MS, with the quotes of those that answered.
 */
async function externalsSection(devnet: RunningDevnet, count: number): Promise<void> {
  const chain = devnet.manifest.chains[0]!;
  const weth = tokenBySymbol(chain, 'WETH');
  const usdc = tokenBySymbol(chain, 'USDC');
  const externals = await startExternalAggregators({
    chainId: CHAIN_ID,
    weth: weth.address,
    usdc: usdc.address,
    swapRouter: chain.contracts.swapRouter,
    budgetMs: EXTERNAL_BUDGET_MS,
    hungId: HUNG_AGGREGATOR,
  });
  try {
    const api = await HttpQuoteApi.start(devnet.chains, externals.env);
    try {
      const params: HttpQuoteParams = {
        chainId: CHAIN_ID,
        inTokenAddress: weth.address,
        outTokenAddress: usdc.address,
        amount: '1',
        gasPrice: String(GAS_PRICE_WEI / 10n ** 9n),
      };
      await api.waitUntilQuotable([params], WARM_STATE_TIMEOUT_MS);
      const sample = await api.quote(params);
      if (sample.status !== 200)
        throw new Error(`POST /quotes answered ${sample.status} ${sample.errorCode}`);
      const answered = sample.aggregatorOrder ?? [];
      const stats = await measureInterleavedAsync(
        {
          externals: async () => {
            const answer = await api.quote(params);
            if (answer.status !== 200)
              throw new Error(`POST /quotes answered ${answer.status} ${answer.errorCode}`);
          },
        },
        { warmup: 20, count, rounds: 2 },
      );
      const s = stats.externals!;
      const bound = EXTERNAL_BUDGET_MS + BUDGET_SLACK_MS;
      console.log(
        `\nPOST /quotes with 0x, 1inch, ParaSwap, Odos and KyberSwap enabled against local replay servers ` +
          `(${externals.hungId} hung: it never answers), budget ${EXTERNAL_BUDGET_MS} ms; 1 WETH -> USDC, ` +
          `${count} timed requests:\n  aggregatorOrder: ${answered.join(', ')}\n  p50 ${s.p50Ms.toFixed(1)} ms, ` +
          `p99 ${s.p99Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms; every answer within budget + ` +
          `${BUDGET_SLACK_MS} ms (${bound} ms): ${s.maxMs <= bound ? 'PASS' : 'FAIL'}; recordings not matched: ` +
          `${externals.unmatched()}`,
      );
      if (s.maxMs > bound || answered.includes(externals.hungId)) process.exitCode = 1;
    } finally {
      await api.close();
    }
  } finally {
    await externals.close();
  }
}

async function run(): Promise<void> {
  const count = countFromEnv('QUOTE_BENCH_COUNT', 2000, 10);
  const httpCount = countFromEnv('QUOTE_BENCH_HTTP_COUNT', 300, 0);
  const log = createLogger('error', 'bench-quote');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-bench-quote-'));
  let devnet: RunningDevnet | undefined;
  let clients: ChainClients | undefined;
  let quoting: QuotingService | undefined;
  try {
    const t0 = Date.now();
    devnet = await startDevnet(
      loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: String(CHAIN_ID), DEVNET_PORTS: '0' }),
      log,
    );
    const chain = devnet.manifest.chains[0]!;
    const chainConfig = devnet.chains[0]!;
    console.log(`devnet chain ${CHAIN_ID} with the fixture world ready in ${Date.now() - t0} ms`);

    clients = new ChainClients(new ChainRegistry([chainConfig]), { timeoutMs: 30_000, retries: 2, log });
    quoting = startQuoting({
      chains: [chainConfig],
      clients,
      tokens: { tokensOf: () => chain.tokens },
      log,
    });
    const engine = quoting.engine;
    const symbols = new Map(chain.tokens.map((t) => [t.address.toLowerCase(), t.symbol]));
    const symbolOf = (address: string): string => symbols.get(address.toLowerCase()) ?? address;

    const inputOf = (pair: PairClass, excludeSourceIds: readonly string[] = []): QuoteRequestInput => {
      const tokenIn = tokenBySymbol(chain, pair.tokenIn);
      return {
        chainId: CHAIN_ID,
        tokenIn: tokenIn.address,
        tokenOut: tokenBySymbol(chain, pair.tokenOut).address,
        amountIn: parseUnits(pair.amount, tokenIn.decimals),
        excludeSourceIds,
        gasPriceWei: GAS_PRICE_WEI,
      };
    };
    const v2Excludes = engine.sourceIds(CHAIN_ID).filter((id) => id !== V2_ONLY);
    const warmMs = await waitForWarmState(
      engine,
      CLASSES.map((c) => inputOf(c)),
    );
    const cached = quoting.cache.get(CHAIN_ID)!;
    const v2Pools = cached.pools.filter((p): p is V2PoolState => p.kind === 'v2' && p.sourceId === V2_ONLY);
    const sdk = new V2SdkRouter(CHAIN_ID, chain.tokens, v2Pools);
    const bySource = new Map<string, number>();
    for (const pool of cached.pools) bySource.set(pool.sourceId, (bySource.get(pool.sourceId) ?? 0) + 1);
    console.log(
      `pool state warm ${warmMs} ms after quoting started: block ${cached.blockNumber}, ${cached.pools.length} pools ` +
        `(${[...bySource].map(([id, n]) => `${n} ${id}`).join(', ')}); ${engine.sourceIds(CHAIN_ID).length} ` +
        `aggregatorIds; v2-sdk over the same ${sdk.pairCount} Uniswap V2 pairs, maxHops 3; gas price ` +
        `${GAS_PRICE_WEI / 10n ** 9n} gwei; ${WARMUP} warm-up + ${count} timed quotes per line\n`,
    );

    const rows: ReportRow[] = [];
    const problems: string[] = [];
    let splitRoutes = 0;
    for (const pair of CLASSES) {
      const tokenIn = tokenBySymbol(chain, pair.tokenIn);
      const tokenOut = tokenBySymbol(chain, pair.tokenOut);
      const amountIn = parseUnits(pair.amount, tokenIn.decimals);
      const sdkQuote = sdk.quote(tokenIn.address, tokenOut.address, amountIn);
      const allInput = inputOf(pair);
      const v2Input = inputOf(pair, v2Excludes);
      const all = bestQuote(engine, allInput);
      // A pair the Uniswap V2 pools do not hold has neither a V2-only line nor an sdk trade.
      const v2 = sdkQuote ? bestQuote(engine, v2Input) : undefined;
      const problem = checkClass(pair, all);
      if (problem) problems.push(`${pair.name}: ${problem}`);
      if (pair.expect === 'split') splitRoutes = all.splits.length;
      console.log(`${pair.name}: ${pair.amount} ${pair.tokenIn} -> ${pair.tokenOut}`);
      console.log(`  v2-sdk best trade: ${sdkQuote ? sdkQuote.path.join('>') : 'none (no Uniswap V2 pool)'}`);
      const lines: [string, SourceQuote | undefined][] = [
        ['all sources', all],
        ['V2 only', v2],
      ];
      for (const [label, quote] of lines) {
        if (!quote) continue;
        console.log(
          `  ours (${label}): ${engine.sourceName(CHAIN_ID, quote.sourceId)}, ${quote.splits.length} ` +
            `route(s): ${describeSplits(quote, symbolOf)}`,
        );
      }
      await yieldToEventLoop();
      const runs: Record<string, () => unknown> = { all: () => engine.quote(allInput) };
      if (sdkQuote) {
        runs.v2 = () => engine.quote(v2Input);
        runs.sdk = () => sdk.quote(tokenIn.address, tokenOut.address, amountIn);
      }
      const stats: Partial<Record<string, LatencyStats>> = measureInterleaved(runs, {
        warmup: WARMUP,
        count,
        rounds: ROUNDS,
      });
      rows.push({
        pairClass: pair.name,
        engine: 'all sources',
        ours: stats.all!,
        sdk: stats.sdk,
        ourOut: all.amountOut,
        sdkOut: sdkQuote?.amountOut,
        tokenOut,
      });
      if (v2 && stats.v2) {
        rows.push({
          pairClass: pair.name,
          engine: 'V2 only',
          ours: stats.v2,
          sdk: stats.sdk,
          ourOut: v2.amountOut,
          sdkOut: sdkQuote?.amountOut,
          tokenOut,
        });
      }
    }
    console.log('');
    printReport(rows);
    if (problems.length === 0) {
      console.log(
        `\nPair classes as intended: direct quotes take one hop, 2-hop quotes go through a connector, and the ` +
          `split quote divides the amount across ${splitRoutes} routes.`,
      );
    } else {
      // Figures for the wrong kind of quote would mislead: the run fails, after printing what it measured.
      console.error(`\nPair classes not as intended (devnet world changed?):\n  ${problems.join('\n  ')}`);
      process.exitCode = 1;
    }
    if (httpCount > 0) {
      await httpSection(devnet, httpCount);
      await externalsSection(devnet, Math.min(httpCount, 200));
    }
  } finally {
    await quoting?.stop();
    clients?.close();
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

run().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
