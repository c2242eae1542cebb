import type { JsonRpcProvider, Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import { TxQueue } from './tx-queue';

/**
 * Where our contracts find each hop kind's pools (contracts-abi/src/RouteTypes.sol `Venues`, same field order);
 * ZeroAddress for a venue the chain lacks (its hops then revert BadPath).
 */
export interface VenueAddresses {
  uniswapV2Factory: string;
  sushiswapV2Factory: string;
  uniswapV3Factory: string;
  uniswapV4PoolManager: string;
  balancerVault: string;
  balancerWeightedPoolFactory: string;
  stableSwapFactory: string;
}

export interface ServiceContractsOptions {
  /** Wrapped native token (WETH9-compatible) of the chain. */
  weth: string;
  venues: VenueAddresses;
  feeCollector: string;
  protocolFeeRecipient: string;
  executors: readonly string[];
  /** SwapRouter protocol fee in pips (1 pip = 1/100 bp); default DEFAULT_PROTOCOL_FEE_PIPS (15 bps). */
  protocolFeePips?: number;
  /** OrderExecutor's cap on the execution fee per order; default 500 bps. */
  maxFeeBps?: number;
  /** The PriceOracle's settings and the OrderExecutor's deviation below its prices; default DEFAULT_PRICE_BOUND. */
  priceBound?: PriceBoundConfig;
  /** Each token's price source for the OrderExecutor's bound (PriceOracle.setOracle); none: no bound, no execution. */
  oracles?: readonly PriceOracle[];
}

/** A token's price source: a Chainlink-shaped USD feed, or the Uniswap V3 pool of the token and the wrapped native. */
export interface PriceOracle {
  token: string;
  kind: 'usd-feed' | 'v3-weth-pool';
  source: string;
}

/** PriceOracle's ORACLE_* constants. */
const ORACLE_KIND = { 'usd-feed': 1, 'v3-weth-pool': 2 } as const;

/** The PriceOracle's OracleConfig and the OrderExecutor's maxDeviationBps. */
export interface PriceBoundConfig {
  /** Seconds the Uniswap V3 average spans (shortened to a pool's history). */
  twapWindow: number;
  /** A pool with less history than this is not used. */
  minTwapWindow: number;
  /** The widest an execution may fall below the bound price, in basis points. */
  maxDeviationBps: number;
  /** A feed answer older than this (seconds) is not used. */
  feedMaxAge: number;
}

/**
 * Half an hour of Uniswap V3 history, 5% below it at most, feeds a day old at most. minTwapWindow is one second so
 * a devnet just started (pools seeded seconds ago) has a bound at once; a real deployment sets minutes.
 */
export const DEFAULT_PRICE_BOUND: PriceBoundConfig = {
  twapWindow: 1800,
  minTwapWindow: 1,
  maxDeviationBps: 500,
  feedMaxAge: 86_400,
};

export interface ServiceContracts {
  spender: string;
  swapRouter: string;
  orderExecutor: string;
  /** The OrderExecutor's PriceOracle (also its `priceOracle()`). */
  priceOracle: string;
}

export const DEFAULT_MAX_FEE_BPS = 500;

/** The Venues struct as the constructors' ABI encoding takes it: a tuple in declaration order. */
function venuesTuple(v: VenueAddresses): string[] {
  return [
    v.uniswapV2Factory,
    v.sushiswapV2Factory,
    v.uniswapV3Factory,
    v.uniswapV4PoolManager,
    v.balancerVault,
    v.balancerWeightedPoolFactory,
    v.stableSwapFactory,
  ];
}

/**
 * Queues our contracts against the given wrapped token and venues, owned by the queue's sender:
 * TokenSpender (the SwapRouter is its only caller), SwapRouter, OrderExecutor with every executor registered.
 */
export function queueServiceContracts(queue: TxQueue, opts: ServiceContractsOptions): ServiceContracts {
  const owner = queue.address;
  const spenderArtifact = loadArtifact('TokenSpender');
  const routerArtifact = loadArtifact('SwapRouter');
  const executorArtifact = loadArtifact('OrderExecutor');
  const spender = queue.deploy('TokenSpender', spenderArtifact, [owner]);
  const swapRouter = queue.deploy('SwapRouter', routerArtifact, [
    owner,
    opts.weth,
    venuesTuple(opts.venues),
    spender,
    opts.protocolFeeRecipient,
    opts.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
  ]);
  const bound = opts.priceBound ?? DEFAULT_PRICE_BOUND;
  const oracleArtifact = loadArtifact('PriceOracle');
  const priceOracle = queue.deploy('PriceOracle', oracleArtifact, [
    owner,
    opts.weth,
    opts.venues.uniswapV3Factory,
    [bound.twapWindow, bound.minTwapWindow, bound.feedMaxAge],
  ]);
  const orderExecutor = queue.deploy('OrderExecutor', executorArtifact, [
    owner,
    opts.weth,
    venuesTuple(opts.venues),
    opts.feeCollector,
    opts.maxFeeBps ?? DEFAULT_MAX_FEE_BPS,
    priceOracle,
    bound.maxDeviationBps,
  ]);
  queue.call(
    'TokenSpender.setCaller(SwapRouter)',
    spender,
    spenderArtifact.abi,
    'setCaller',
    [swapRouter, true],
    100_000n,
  );
  for (const executor of opts.executors) {
    queue.call(
      `OrderExecutor.setExecutor(${executor})`,
      orderExecutor,
      executorArtifact.abi,
      'setExecutor',
      [executor, true],
      100_000n,
    );
  }
  for (const oracle of opts.oracles ?? []) {
    queue.call(
      `PriceOracle.setOracle(${oracle.token}, ${oracle.kind})`,
      priceOracle,
      oracleArtifact.abi,
      'setOracle',
      [oracle.token, ORACLE_KIND[oracle.kind], oracle.source],
      150_000n,
    );
  }
  return { spender, swapRouter, orderExecutor, priceOracle };
}

/**
 * Deploys our contracts alone, e.g. on a forked chain whose wrapped token and Uniswap factories are the real
 * ones; deployWorld queues the same transactions after the fixture world.
 */
export async function deployServiceContracts(
  opts: ServiceContractsOptions & { provider: JsonRpcProvider; deployer: Wallet },
): Promise<ServiceContracts> {
  const queue = await TxQueue.create(opts.provider, opts.deployer);
  const contracts = queueServiceContracts(queue, opts);
  await queue.flush();
  return contracts;
}
