/**
 * A simulation scenario as a file states it (after schema validation and defaults). Prices of a market are QUOTE
 * per BASE of its pair "BASE/QUOTE"; order triggers use the spec's units: units of `buy` per 1 `sell`.
 */

/** Linear between [block, price] points; flat before the first point and after the last. */
export interface PointsPath {
  kind: 'points';
  points: Array<[number, number]>;
}

/**
 * Geometric Brownian motion from `start`, with annualized `drift` and `volatility` (0.8 = 80 % a year), one step per
 * block of `blockTimeSeconds`. `seed` defaults to the scenario's seed (and so follows `--seed`).
 */
export interface GbmPath {
  kind: 'gbm';
  start: number;
  drift: number;
  volatility: number;
  seed?: number;
}

/**
 * A CSV file (relative to the scenario file) of `block,price` or `timestamp,price` rows, with a header row naming
 * the first column `block` or `timestamp` (Unix seconds, mapped to blocks of `blockTimeSeconds` from the first row).
 * Linear between rows; flat after the last.
 */
export interface CsvPath {
  kind: 'csv';
  file: string;
}

export type PathSpec = PointsPath | GbmPath | CsvPath;

export interface MarketSpec {
  chainId: number;
  /** "BASE/QUOTE" by token symbol, e.g. "WETH/USDC". */
  pair: string;
  path: PathSpec;
}

/** Evenly spread triggers from `from` to `to` (both included) over the group's orders. */
export interface TriggerRange {
  from: string;
  to: string;
}

export interface LimitOrderGroupSpec {
  chainId: number;
  /** Token symbols; {sell, buy} must be the base and quote of one of the chain's markets, either way round. */
  sell: string;
  buy: string;
  /** Per order, human-readable units of `sell` (decimal string, as the API takes it). */
  amount: string;
  /** Units of `buy` per 1 `sell` (decimal string), or a range spread over the group. */
  trigger: string | TriggerRange;
  /** Orders in the group; default 1. */
  count: number;
  /** Distinct maker accounts the group's orders are spread over (round robin); default 1. */
  makers: number;
  /** Block at which the orders are placed through the API; default 0. */
  atBlock: number;
  /** The order's `expired` time is this many blocks after its placement; default: after the run. */
  expiresAfterBlocks?: number;
  /** Percent, decimal string; default "1". */
  slippage: string;
}

export interface DcaGroupSpec {
  chainId: number;
  sell: string;
  buy: string;
  /** Whole-strategy budget per strategy, human-readable units of `sell` (a JSON number, as the API takes it). */
  totalAmount: number;
  iterations: number;
  /** Blocks between iterations: the strategy's `frequency` is everyBlocks × blockTimeSeconds seconds. */
  everyBlocks: number;
  atBlock: number;
  /** Strategies in the group, each with its own maker; default 1. */
  count: number;
  /** Percent; default 1. */
  slippage: number;
  /** Bounds in units of `buy` per 1 `sell`, as the API takes them. */
  minPrice?: number;
  maxPrice?: number;
}

export interface Scenario {
  name: string;
  description?: string;
  chains: number[];
  blockTimeSeconds: number;
  /** Blocks the run lasts after block 0 (the block at which the run starts). */
  blocks: number;
  /** Default 1; `--seed` overrides it. */
  seed: number;
  markets: MarketSpec[];
  limitOrders: LimitOrderGroupSpec[];
  dca: DcaGroupSpec[];
}

/** A scenario with every market's price path computed: `prices[b]` is the target price at block b, 0..blocks. */
export interface ResolvedScenario extends Scenario {
  /** Absolute path of the scenario file (CSV paths are relative to its folder). */
  file: string;
  markets: Array<MarketSpec & { base: string; quote: string; prices: number[] }>;
}

/** One limit order the run places, expanded from its group. */
export interface PlannedLimitOrder {
  /** Stable key within the run: "L<group>.<index>". */
  key: string;
  group: number;
  chainId: number;
  /** The market's pair "BASE/QUOTE" and whether the order sells the base. */
  pair: string;
  sellsBase: boolean;
  sell: string;
  buy: string;
  amount: string;
  trigger: string;
  atBlock: number;
  expiresAfterBlocks?: number;
  slippage: string;
  /** Index of the maker account among all the run's makers (0-based). */
  maker: number;
}

/** One DCA strategy the run creates, expanded from its group. */
export interface PlannedDca {
  key: string;
  group: number;
  chainId: number;
  pair: string;
  sellsBase: boolean;
  sell: string;
  buy: string;
  totalAmount: number;
  iterations: number;
  everyBlocks: number;
  atBlock: number;
  slippage: number;
  minPrice?: number;
  maxPrice?: number;
  maker: number;
}

export interface PlannedOrders {
  limit: PlannedLimitOrder[];
  dca: PlannedDca[];
  /** Number of distinct maker accounts the plan needs. */
  makers: number;
}
