/**
 * What a simulation run writes to report.json, and the facts it is computed from: the scenario, the chain (every
 * OrderExecutor event of the run, checked against receipts and the makers' balances) and the public API (each
 * order's and DCA order's status). Never the keeper's internals.
 */
import type { PlannedDca, PlannedLimitOrder, ResolvedScenario } from '../scenario/scenario-types';

/** One OrderExecuted or OrderFailed event, as the run read it from a receipt of the chain. */
export interface ObservedExecution {
  chainId: number;
  /**
   * The run's key of the order the event names (shared/domain/pair-authorization.ts orderKeyOf: maker, pair, integrator,
   * keccak256 of the service's limit order or DCA order id, amount; OrderExecutor.orderId binds these and the
   * order's execution index, which the run never sees): read from the batch's calldata, for the order whose
   * orderId is the event's id. Lowercase hex.
   */
  onchainId: string;
  block: number;
  txHash: string;
  /** The transaction's gas used, and how many order outcomes (executed or failed) it carried. */
  gasUsed: number;
  batchSize: number;
  executed: boolean;
  maker: string;
  /** Lowercase addresses of the tokens sold and bought; empty for a failure. */
  tokenIn: string;
  tokenOut: string;
  /** Base units; zero for a failure. */
  amountIn: string;
  fee: string;
  amountOut: string;
  reason: string | null;
  /**
   * Whether the run checked the maker's balances of both tokens across the block against the block's executions
   * of that maker (and found them equal). A mismatch fails the run, so this is true for every executed event.
   */
  balanceChecked: boolean;
}

export interface TokenInfo {
  symbol: string;
  address: string;
  decimals: number;
}

/** The blocks at whose close a limit order was executable on its own terms (simulator/run/executable-orders.ts). */
export interface ExecutableSpan {
  first: number;
  last: number;
  /** How many blocks from first to last it was executable at. */
  blocks: number;
}

/** A limit order the run placed, with what the API said about it at the end of the run. */
export interface PlacedLimitOrder {
  plan: PlannedLimitOrder;
  id: string;
  onchainId: string;
  placedAtBlock: number;
  status: string;
  txHash: string;
  reasonFail: string[];
  /** The API's diagnosis of a still pending order at the end (`code: message`), or null. */
  diagnosis: string | null;
  /** The order's `expired` time, Unix ms, and the block at whose timestamp it lies. */
  expiresAt: number;
}

export interface PlacedDcaOrder {
  id: string;
  /** Human-readable units of the sold token, as the API's DCA order states it. */
  amount: number;
  onchainId: string;
  status: string;
  transactionHash: string;
  errorMessage: string;
}

export interface PlacedDca {
  plan: PlannedDca;
  strategyId: string;
  placedAtBlock: number;
  status: string;
  /** The strategy's orders as GET /dca-order/strategies/{id}/orders listed them, oldest first. */
  orders: PlacedDcaOrder[];
}

export interface RunTimings {
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  /** Seconds spent per phase: setup (chains, world, service), place, move, mine, keeper, observe, collect. */
  phases: Record<string, number>;
}

/** Everything a report is computed from. */
export interface SimulationFacts {
  scenario: ResolvedScenario;
  seed: number;
  /** Per chain: the tokens by symbol. */
  tokens: Record<number, Record<string, TokenInfo>>;
  /** Per market (same order as scenario.markets): the pools' price after each block 0..blocks (reference pool). */
  realized: number[][];
  limitOrders: PlacedLimitOrder[];
  /** By limit order id: the blocks it was executable at, as the run measured them; absent if never. */
  executable: Record<string, ExecutableSpan>;
  dca: PlacedDca[];
  executions: ObservedExecution[];
  timings: RunTimings;
  forked: boolean;
}

export interface ReportOrder {
  /** The service's id: a limit order id, or a DCA order id. */
  id: string;
  kind: 'limit' | 'dca';
  chainId: number;
  /** The market's "BASE/QUOTE". */
  pair: string;
  sell: string;
  buy: string;
  /** Human-readable units of `sell`, as placed (a DCA iteration: totalAmount / iterations). */
  amount: string;
  /** Limit orders: as in the scenario (units of `buy` per 1 `sell`); null for DCA. */
  trigger: string | null;
  /** The API's final status (limit: pending, completed, failed, …; DCA order: successful, error, …). */
  status: string;
  placedAtBlock: number;
  /** Limit orders: the first block at or after placement whose path price reaches the trigger; DCA: null. */
  triggeredAtBlock: number | null;
  /**
   * Limit orders: the first block at whose close the order was executable on its own terms (one routed swap of it
   * and the orders asking less pays it (amount + fee) × trigger), measured by the run; null if never (and for DCA).
   */
  executableAtBlock: number | null;
  /** Limit orders: how many blocks it was executable at (0 if never); null for DCA. */
  executableBlocks: number | null;
  filledAtBlock: number | null;
  /** filledAtBlock − executableAtBlock (limit orders): the keeper's reaction, 1 at best (the next block). */
  latencyBlocks: number | null;
  /** filledAtBlock − triggeredAtBlock (limit orders): from the path's mid price touching the trigger. */
  pathLatencyBlocks: number | null;
  /** QUOTE per BASE of the market, from the amounts swapped (fee excluded). */
  executionPrice: number | null;
  txHash: string | null;
  gasUsed: number | null;
  /** Orders (limit and DCA) in the same transaction. */
  batchSize: number | null;
  /** Execution fee the order paid, human-readable units of `sell`. */
  fee: string | null;
  amountIn: string | null;
  amountOut: string | null;
  /**
   * A fill whose receipt the run read in its block (gas, the OrderExecuted event) and whose maker's balances of both
   * tokens it checked across that block against the event; false for an order that did not fill.
   */
  checkedOnChain: boolean;
  /** Why it failed or expired; null otherwise. */
  reason: string | null;
  /** A missed limit order (executable, never filled): when it was executable and what became of it; else null. */
  missedBecause: string | null;
  /** DCA iterations only. */
  strategyId?: string;
  /** DCA iterations only, 1-based. */
  iteration?: number;
}

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  max: number | null;
}

export interface GasByBatchSize {
  batchSize: number;
  batches: number;
  /** Mean gas used per order in transactions of this size. */
  gasPerOrder: number;
}

export interface LimitTotals {
  placed: number;
  /** The path's price reached the trigger (before expiry). */
  triggered: number;
  /** Executable at some block's close (executableAtBlock set). */
  executable: number;
  filled: number;
  /** Executable, and not filled (nor failed) by the end of the run: each has its missedBecause. */
  missed: number;
  /** Expired without ever being executable. */
  expired: number;
  /** Failed limit orders by reason (the API's reasonFail, or the chain's OrderFailed reason). */
  failed: Record<string, number>;
  /** Triggered by the path but never executable (the pools never paid amount + fee at the trigger), still open. */
  neverExecutable: number;
  /** Never triggered and still open at the end. */
  untriggered: number;
  /** Filled executable orders / executable orders (0 when none was executable). */
  fillRatio: number;
  /** Filled triggered orders / triggered orders (0 when nothing triggered). */
  triggeredFillRatio: number;
  /** Blocks from executable to filled. */
  latencyBlocks: Percentiles;
  /** Blocks from the path touching the trigger to filled. */
  pathLatencyBlocks: Percentiles;
  /** Over every batch of the run (limit orders and DCA iterations), by orders per transaction. */
  gasPerOrderByBatchSize: GasByBatchSize[];
  /** Execution fees paid by filled limit orders, human-readable units by token symbol (per chain: "1:WETH"). */
  fees: Record<string, string>;
}

export interface DcaStrategyReport {
  strategyId: string;
  chainId: number;
  pair: string;
  sell: string;
  buy: string;
  status: string;
  iterations: number;
  executed: number;
  failed: number;
  /** QUOTE per BASE over the executed iterations (total quote / total base); null when none executed. */
  averagePrice: number | null;
  /** Mean path price over the strategy's blocks (placement to its last scheduled iteration), QUOTE per BASE. */
  twap: number;
  fromBlock: number;
  toBlock: number;
}

export interface ReportMarket {
  chainId: number;
  pair: string;
  /** Target price per block, 0..blocks. */
  path: number[];
  /** The reference pool's price after each block. */
  realized: number[];
}

export interface SimulationReport {
  version: 1;
  scenario: {
    name: string;
    description?: string;
    file: string;
    seed: number;
    chains: number[];
    blockTimeSeconds: number;
    blocks: number;
    forked: boolean;
  };
  run: RunTimings & { secondsPer1000Blocks: number };
  markets: ReportMarket[];
  orders: ReportOrder[];
  totals: { limit: LimitTotals };
  dca: DcaStrategyReport[];
  /**
   * What the API and the chain disagree on (an order the API calls executed with a transaction whose events the run
   * did not see, or the other way round); empty on a sound run. Added by the runner after buildReport.
   */
  discrepancies?: string[];
}
