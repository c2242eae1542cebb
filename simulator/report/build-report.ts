/**
 * The report of a simulation run from its facts, pure: what the scenario asked for, what the chain recorded (the
 * OrderExecutor events the run observed) and what the public API said about every order. Prices are QUOTE per
 * BASE of the order's market; amounts stay in base units (bigint) until they are formatted.
 */
import { formatUnits } from 'ethers';
import { plainDecimalOf } from '../../shared/domain/amount-bounds';
import type { ResolvedScenario } from '../scenario/scenario-types';
import { triggeredAtBlock } from '../scenario/trigger-block';
import type {
  DcaStrategyReport,
  ExecutableSpan,
  GasByBatchSize,
  LimitTotals,
  ObservedExecution,
  Percentiles,
  PlacedDca,
  PlacedLimitOrder,
  ReportMarket,
  ReportOrder,
  SimulationFacts,
  SimulationReport,
  TokenInfo,
} from './report-types';

type Market = ResolvedScenario['markets'][number];

/** What the chain recorded for one order: its execution (if any) and its last failed attempt (if any). */
interface OrderEvents {
  executed: ObservedExecution | null;
  lastFailure: ObservedExecution | null;
}

interface Side {
  chainId: number;
  pair: string;
  sellsBase: boolean;
  sell: TokenInfo;
  buy: TokenInfo;
}

type LimitOutcome = 'filled' | 'expired' | 'failed' | 'missed' | 'never-executable' | 'untriggered';

const NO_EVENTS: OrderEvents = { executed: null, lastFailure: null };

export function buildReport(facts: SimulationFacts): SimulationReport {
  const { scenario } = facts;
  const events = eventsByOrder(facts.executions);
  const limit = facts.limitOrders.map((placed) => limitOrder(facts, placed, events));
  const dcaOrders = facts.dca.flatMap((placed) => dcaIterations(facts, placed, events));
  return {
    version: 1,
    scenario: {
      name: scenario.name,
      ...(scenario.description === undefined ? {} : { description: scenario.description }),
      file: scenario.file,
      seed: facts.seed,
      chains: [...scenario.chains],
      blockTimeSeconds: scenario.blockTimeSeconds,
      blocks: scenario.blocks,
      forked: facts.forked,
    },
    run: {
      ...facts.timings,
      secondsPer1000Blocks: round((facts.timings.wallSeconds / scenario.blocks) * 1000, 3),
    },
    markets: scenario.markets.map((market, i): ReportMarket => ({
      chainId: market.chainId,
      pair: market.pair,
      path: [...market.prices],
      realized: [...(facts.realized[i] ?? [])],
    })),
    orders: [...limit.map((entry) => entry.order), ...dcaOrders],
    totals: { limit: limitTotals(facts, limit) },
    dca: facts.dca.map((placed) => dcaStrategy(facts, placed, events)),
  };
}

function orderKey(chainId: number, onchainId: string): string {
  return `${chainId}:${onchainId.toLowerCase()}`;
}

/**
 * An order may have several events: failed attempts, then (perhaps) its execution. The execution wins; of the
 * failures the latest (by block, then as observed) is the one that explains an order that never filled.
 */
function eventsByOrder(executions: readonly ObservedExecution[]): Map<string, OrderEvents> {
  const byOrder = new Map<string, OrderEvents>();
  const ordered = executions.map((event, index) => ({ event, index }));
  ordered.sort((a, b) => a.event.block - b.event.block || a.index - b.index);
  for (const { event } of ordered) {
    const key = orderKey(event.chainId, event.onchainId);
    const entry = byOrder.get(key) ?? { executed: null, lastFailure: null };
    if (event.executed) entry.executed ??= event;
    else entry.lastFailure = event;
    byOrder.set(key, entry);
  }
  return byOrder;
}

function marketOf(scenario: ResolvedScenario, chainId: number, pair: string): Market {
  const market = scenario.markets.find((m) => m.chainId === chainId && m.pair === pair);
  if (!market) throw new Error(`the scenario has no market ${pair} on chain ${chainId}`);
  return market;
}

function tokenOf(facts: SimulationFacts, chainId: number, symbol: string): TokenInfo {
  const token = facts.tokens[chainId]?.[symbol];
  if (!token) throw new Error(`token ${symbol} on chain ${chainId} is not among the run's tokens`);
  return token;
}

function sideOf(
  facts: SimulationFacts,
  plan: { chainId: number; pair: string; sellsBase: boolean; sell: string; buy: string },
): Side {
  return {
    chainId: plan.chainId,
    pair: plan.pair,
    sellsBase: plan.sellsBase,
    sell: tokenOf(facts, plan.chainId, plan.sell),
    buy: tokenOf(facts, plan.chainId, plan.buy),
  };
}

/** Base and quote amounts of an execution, in base units of each token. */
function baseAndQuote(side: Side, event: ObservedExecution): { base: bigint; quote: bigint } {
  const amountIn = BigInt(event.amountIn);
  const amountOut = BigInt(event.amountOut);
  return side.sellsBase ? { base: amountIn, quote: amountOut } : { base: amountOut, quote: amountIn };
}

/** QUOTE per BASE of `base` and `quote` base units; null for no base (nothing to divide by). */
function priceOf(side: Side, base: bigint, quote: bigint): number | null {
  if (base === 0n) return null;
  const baseToken = side.sellsBase ? side.sell : side.buy;
  const quoteToken = side.sellsBase ? side.buy : side.sell;
  return Number(formatUnits(quote, quoteToken.decimals)) / Number(formatUnits(base, baseToken.decimals));
}

/** The fields every order takes from the chain's events. */
function chainFields(
  side: Side,
  found: OrderEvents,
): Pick<
  ReportOrder,
  | 'filledAtBlock'
  | 'executionPrice'
  | 'txHash'
  | 'gasUsed'
  | 'batchSize'
  | 'fee'
  | 'amountIn'
  | 'amountOut'
  | 'checkedOnChain'
> {
  const { executed } = found;
  // A failed attempt names its transaction too: it was mined, and its gas was spent.
  const decisive = executed ?? found.lastFailure;
  const amounts = executed ? baseAndQuote(side, executed) : null;
  return {
    filledAtBlock: executed?.block ?? null,
    executionPrice: amounts ? priceOf(side, amounts.base, amounts.quote) : null,
    txHash: decisive?.txHash ?? null,
    gasUsed: decisive?.gasUsed ?? null,
    batchSize: decisive?.batchSize ?? null,
    fee: executed ? formatUnits(BigInt(executed.fee), side.sell.decimals) : null,
    amountIn: executed ? formatUnits(BigInt(executed.amountIn), side.sell.decimals) : null,
    amountOut: executed ? formatUnits(BigInt(executed.amountOut), side.buy.decimals) : null,
    checkedOnChain: executed?.balanceChecked ?? false,
  };
}

/** The API's own reason first; else the chain's last OrderFailed reason. A filled order has none. */
function reasonOf(apiReason: string, found: OrderEvents): string | null {
  if (found.executed) return null;
  if (apiReason !== '') return apiReason;
  return found.lastFailure?.reason ?? null;
}

function isExpired(placed: PlacedLimitOrder): boolean {
  return placed.status === 'failed' && placed.reasonFail.some((r) => r.toLowerCase().includes('expired'));
}

interface LimitEntry {
  order: ReportOrder;
  outcome: LimitOutcome;
  /** The order's sold token on its chain, for the fee totals. */
  feeKey: string;
  feeUnits: bigint;
  sellDecimals: number;
}

function limitOrder(
  facts: SimulationFacts,
  placed: PlacedLimitOrder,
  events: Map<string, OrderEvents>,
): LimitEntry {
  const { plan } = placed;
  const side = sideOf(facts, plan);
  const market = marketOf(facts.scenario, plan.chainId, plan.pair);
  const found = events.get(orderKey(plan.chainId, placed.onchainId)) ?? NO_EVENTS;
  // The trigger is checked from the plan's block (the block the scenario meant the order to exist from) until the
  // order expires: a trigger reached only after its expiry never triggered it.
  const reached = triggeredAtBlock(plan, market.prices, plan.atBlock);
  const expiresAtBlock =
    plan.expiresAfterBlocks === undefined ? Infinity : plan.atBlock + plan.expiresAfterBlocks;
  const triggered = reached !== null && reached < expiresAtBlock ? reached : null;
  const span = facts.executable[placed.id];
  const chain = chainFields(side, found);
  const since = (from: number | null | undefined): number | null =>
    chain.filledAtBlock !== null && from !== null && from !== undefined ? chain.filledAtBlock - from : null;
  const reason = reasonOf(placed.reasonFail.join('; '), found);
  const outcome: LimitOutcome = found.executed
    ? 'filled'
    : placed.status === 'failed' && !isExpired(placed)
      ? 'failed'
      : span
        ? 'missed'
        : isExpired(placed)
          ? 'expired'
          : triggered !== null
            ? 'never-executable'
            : 'untriggered';
  const order: ReportOrder = {
    id: placed.id,
    kind: 'limit',
    chainId: plan.chainId,
    pair: plan.pair,
    sell: plan.sell,
    buy: plan.buy,
    amount: plan.amount,
    trigger: plan.trigger,
    status: placed.status,
    placedAtBlock: placed.placedAtBlock,
    triggeredAtBlock: triggered,
    executableAtBlock: span?.first ?? null,
    executableBlocks: span?.blocks ?? 0,
    ...chain,
    latencyBlocks: since(span?.first),
    pathLatencyBlocks: since(triggered),
    reason,
    missedBecause: outcome === 'missed' && span ? missedBecause(span, placed, reason) : null,
  };
  return {
    order,
    outcome,
    feeKey: `${plan.chainId}:${plan.sell}`,
    feeUnits: found.executed ? BigInt(found.executed.fee) : 0n,
    sellDecimals: side.sell.decimals,
  };
}

/** Why an executable order never filled, as far as the run can tell: when it was executable, and its end. */
function missedBecause(span: ExecutableSpan, placed: PlacedLimitOrder, reason: string | null): string {
  const when =
    span.blocks === 1
      ? `executable at block ${span.first} only`
      : `executable at ${span.blocks} blocks from ${span.first} to ${span.last}`;
  const end = [`ended ${placed.status}`, reason, placed.diagnosis && `diagnosis ${placed.diagnosis}`];
  return `${when}; ${end.filter(Boolean).join('; ')}`;
}

function dcaIterations(
  facts: SimulationFacts,
  placed: PlacedDca,
  events: Map<string, OrderEvents>,
): ReportOrder[] {
  const { plan } = placed;
  const side = sideOf(facts, plan);
  return placed.orders.map((dcaOrder, k): ReportOrder => {
    const found = events.get(orderKey(plan.chainId, dcaOrder.onchainId)) ?? NO_EVENTS;
    return {
      id: dcaOrder.id,
      kind: 'dca',
      chainId: plan.chainId,
      pair: plan.pair,
      sell: plan.sell,
      buy: plan.buy,
      // What the API says the iteration sells (a JSON number there).
      amount: plainDecimalOf(dcaOrder.amount),
      trigger: null,
      status: dcaOrder.status,
      placedAtBlock: placed.placedAtBlock,
      triggeredAtBlock: null,
      executableAtBlock: null,
      executableBlocks: null,
      ...chainFields(side, found),
      latencyBlocks: null,
      pathLatencyBlocks: null,
      reason: reasonOf(dcaOrder.errorMessage, found),
      missedBecause: null,
      strategyId: placed.strategyId,
      iteration: k + 1,
    };
  });
}

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: nearestRank(sorted, 50),
    p95: nearestRank(sorted, 95),
    max: sorted.length === 0 ? null : sorted[sorted.length - 1],
  };
}

/** Each transaction counted once (its events all carry its gas and size), then averaged per batch size. */
function gasByBatchSize(executions: readonly ObservedExecution[]): GasByBatchSize[] {
  const transactions = new Map<string, ObservedExecution>();
  for (const event of executions) {
    const key = `${event.chainId}:${event.txHash.toLowerCase()}`;
    if (!transactions.has(key)) transactions.set(key, event);
  }
  const bySize = new Map<number, number[]>();
  for (const tx of transactions.values()) {
    const perOrder = bySize.get(tx.batchSize) ?? [];
    perOrder.push(tx.gasUsed / tx.batchSize);
    bySize.set(tx.batchSize, perOrder);
  }
  return [...bySize.entries()]
    .sort(([a], [b]) => a - b)
    .map(([batchSize, perOrder]) => ({
      batchSize,
      batches: perOrder.length,
      gasPerOrder: Math.round(perOrder.reduce((sum, gas) => sum + gas, 0) / perOrder.length),
    }));
}

function limitTotals(facts: SimulationFacts, entries: readonly LimitEntry[]): LimitTotals {
  const count = (outcome: LimitOutcome) => entries.filter((e) => e.outcome === outcome).length;
  const triggered = entries.filter((e) => e.order.triggeredAtBlock !== null);
  const failed: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.outcome !== 'failed') continue;
    const reason = entry.order.reason ?? 'unknown';
    failed[reason] = (failed[reason] ?? 0) + 1;
  }
  const fees = new Map<string, { units: bigint; decimals: number }>();
  for (const entry of entries) {
    if (entry.outcome !== 'filled') continue;
    const sum = fees.get(entry.feeKey) ?? { units: 0n, decimals: entry.sellDecimals };
    sum.units += entry.feeUnits;
    fees.set(entry.feeKey, sum);
  }
  // Each ratio is over its own set only: an order the path never triggered that filled all the same (the pool and
  // the path can differ by a rounding) would otherwise push it past 1.
  const ratio = (set: readonly LimitEntry[]): number =>
    set.length === 0 ? 0 : round(set.filter((e) => e.outcome === 'filled').length / set.length, 4);
  const executable = entries.filter((e) => e.order.executableAtBlock !== null);
  const blocks = (pick: (o: ReportOrder) => number | null): Percentiles =>
    percentiles(entries.flatMap((e) => (pick(e.order) === null ? [] : [pick(e.order)!])));
  return {
    placed: entries.length,
    triggered: triggered.length,
    executable: executable.length,
    filled: count('filled'),
    missed: count('missed'),
    expired: count('expired'),
    failed: sortedRecord(failed),
    neverExecutable: count('never-executable'),
    untriggered: count('untriggered'),
    fillRatio: ratio(executable),
    triggeredFillRatio: ratio(triggered),
    latencyBlocks: blocks((o) => o.latencyBlocks),
    pathLatencyBlocks: blocks((o) => o.pathLatencyBlocks),
    gasPerOrderByBatchSize: gasByBatchSize(facts.executions),
    fees: Object.fromEntries(
      [...fees.entries()]
        .sort(([a], [b]) => byChainToken(a, b))
        .map(([key, sum]) => [key, formatUnits(sum.units, sum.decimals)]),
    ),
  };
}

function dcaStrategy(
  facts: SimulationFacts,
  placed: PlacedDca,
  events: Map<string, OrderEvents>,
): DcaStrategyReport {
  const { plan } = placed;
  const side = sideOf(facts, plan);
  const market = marketOf(facts.scenario, plan.chainId, plan.pair);
  let base = 0n;
  let quote = 0n;
  for (const dcaOrder of placed.orders) {
    const executed = events.get(orderKey(plan.chainId, dcaOrder.onchainId))?.executed;
    if (!executed) continue;
    const amounts = baseAndQuote(side, executed);
    base += amounts.base;
    quote += amounts.quote;
  }
  const fromBlock = placed.placedAtBlock;
  const toBlock = Math.min(
    facts.scenario.blocks,
    placed.placedAtBlock + (plan.iterations - 1) * plan.everyBlocks,
  );
  return {
    strategyId: placed.strategyId,
    chainId: plan.chainId,
    pair: plan.pair,
    sell: plan.sell,
    buy: plan.buy,
    status: placed.status,
    iterations: plan.iterations,
    executed: placed.orders.filter((o) => o.status === 'successful').length,
    // Final without a fill: the service gave up (error) or the price stayed outside the bounds (expired).
    failed: placed.orders.filter((o) => o.status === 'error' || o.status === 'expired').length,
    averagePrice: priceOf(side, base, quote),
    twap: mean(market.prices.slice(fromBlock, toBlock + 1)),
    fromBlock,
    toBlock,
  };
}

function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** "chainId:SYMBOL" keys by chain number, then symbol: 1:WETH before 137:USDC. */
export function byChainToken(a: string, b: string): number {
  const [chainA, symbolA = ''] = a.split(':');
  const [chainB, symbolB = ''] = b.split(':');
  return Number(chainA) - Number(chainB) || (symbolA < symbolB ? -1 : symbolA > symbolB ? 1 : 0);
}

function sortedRecord(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
