/**
 * In-memory pool states the router works on, and one exact hop over them. Amounts come from the exact
 * contract math (shared/routing/math), so a quote over these states is what the pools pay at that state.
 */
import { weightedAmountOut } from '../math/balancer-weighted-math';
import { stableSwapAmountOut } from '../math/stable-swap-math';
import { v2AmountOut } from '../math/uniswap-v2-math';
import { simulateV3ExactIn, type V3Tick } from '../math/v3-swap';
import { HOP_KIND_SUSHISWAP_V2, HOP_KIND_V2 } from '../sources/liquidity-source';

export interface V2PoolState {
  kind: 'v2';
  /** The liquidity source (aggregator adapter) the pool belongs to. */
  sourceId: string;
  /** Lowercase addresses throughout. */
  address: string;
  token0: string;
  token1: string;
  reserve0: bigint;
  reserve1: bigint;
  /** 30n for Uniswap V2 (0.3%). */
  feeBps: bigint;
  /** Which factory the contracts look the pair up in: Uniswap V2's (default) or Sushiswap's. */
  hopKind?: typeof HOP_KIND_V2 | typeof HOP_KIND_SUSHISWAP_V2;
}

export interface V3PoolState {
  kind: 'v3';
  sourceId: string;
  address: string;
  token0: string;
  token1: string;
  /** Fee in pips (3000 = 0.3%). */
  fee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  /** Initialized ticks sorted ascending, as simulateV3ExactIn expects. */
  ticks: readonly V3Tick[];
}

/**
 * A hooks-free Uniswap V4 pool of the PoolManager singleton: the same concentrated-liquidity math as V3 (static
 * fee, no protocol fee), its state read from the manager's storage.
 */
export interface V4PoolState {
  kind: 'v4';
  sourceId: string;
  /** The PoolId (keccak256 of the PoolKey), 0x + 64 hex lowercase: unique per pool, as an address is. */
  address: string;
  token0: string;
  token1: string;
  /** LP fee in pips (3000 = 0.3%). */
  fee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  ticks: readonly V3Tick[];
}

/** A two-token Balancer V2 weighted pool, as its Vault holds it. */
export interface WeightedPoolState {
  kind: 'balancer-weighted';
  sourceId: string;
  /** The pool contract (lowercase). */
  address: string;
  /** Its Vault pool id (bytes32, lowercase): what a swap names. */
  poolId: string;
  token0: string;
  token1: string;
  /** Vault balances in token base units. */
  balance0: bigint;
  balance1: bigint;
  /** Normalized weights, 18-decimal fixed point (0.8 = 8e17); they sum to 1e18. */
  weight0: bigint;
  weight1: bigint;
  /** 1e18 * 10^(18 - decimals): base units to the pool's 18-decimal scale. */
  scalingFactor0: bigint;
  scalingFactor1: bigint;
  /** 18-decimal fixed point (0.003 = 3e15). */
  swapFee: bigint;
}

/** A two-coin pool of our StableSwap (contracts-abi/src/StableSwapPool.sol, Curve's invariant). */
export interface StablePoolState {
  kind: 'stable';
  sourceId: string;
  address: string;
  token0: string;
  token1: string;
  /** Coin balances in base units. */
  balance0: bigint;
  balance1: bigint;
  /** 10^(18 - decimals): base units to 18 decimals. */
  rate0: bigint;
  rate1: bigint;
  /** Amplification A times A_PRECISION (100), as the pool stores it. */
  amp: bigint;
  /** Swap fee on the output, out of 1e10 (4e6 = 0.04%), as Curve counts it. */
  fee: bigint;
  /** The invariant D of these balances, computed with them at refresh (absent: computed when needed). */
  invariant?: bigint;
}

export type PoolState = V2PoolState | V3PoolState | V4PoolState | WeightedPoolState | StablePoolState;

/**
 * Gas per hop, measured against the devnet contracts' order of magnitude rather than derived: a V2 pair swap
 * (transfer + swap + Sync) costs about 60k inside a multi-hop router call; a V3 swap about 80k in its
 * starting range, and each initialized tick crossed adds about 20k (ticks.cross writes plus bitmap reads).
 * Measured the same way inside SwapRouter.swap (a second swap on a warm pool, against V2's 60k): a V4 hop
 * (unlock, swap, sync, settle, take) about 70k, a Balancer weighted hop (Vault accounting, the pool's power
 * function) about 100k, a StableSwap hop (Newton iterations for D and y) about 88k.
 */
export const V2_HOP_GAS = 60_000n;
export const V3_HOP_GAS = 80_000n;
export const V3_TICK_CROSS_GAS = 20_000n;
export const V4_HOP_GAS = 70_000n;
export const BALANCER_WEIGHTED_HOP_GAS = 100_000n;
export const STABLE_SWAP_HOP_GAS = 88_000n;

/** Gas of one hop through `pool`; for V3 and V4, `ticksCrossed` comes from simulating the swap (poolSwap). */
export function hopGas(pool: PoolState, ticksCrossed = 0): bigint {
  switch (pool.kind) {
    case 'v2':
      return V2_HOP_GAS;
    case 'v3':
      return V3_HOP_GAS + V3_TICK_CROSS_GAS * BigInt(ticksCrossed);
    case 'v4':
      return V4_HOP_GAS + V3_TICK_CROSS_GAS * BigInt(ticksCrossed);
    case 'balancer-weighted':
      return BALANCER_WEIGHTED_HOP_GAS;
    case 'stable':
      return STABLE_SWAP_HOP_GAS;
  }
}

export interface PoolSwap {
  amountOut: bigint;
  gas: bigint;
  /** The pool's state after the swap, so routes sharing a pool can be simulated one after the other. */
  after: PoolState;
}

/** The token a hop from `tokenIn` yields, or undefined when the pool does not hold `tokenIn`. */
export function otherToken(pool: PoolState, tokenIn: string): string | undefined {
  if (tokenIn === pool.token0) return pool.token1;
  if (tokenIn === pool.token1) return pool.token0;
  return undefined;
}

/**
 * Exact-input swap of `amountIn` of `tokenIn` through `pool`. Undefined when the pool cannot take it: the
 * token is not in the pool, nothing comes out, or a V3 swap would stop at the price bound with input left
 * (the pool would take only part of it, which a route cannot rely on).
 */
export function poolSwap(pool: PoolState, tokenIn: string, amountIn: bigint): PoolSwap | undefined {
  if (amountIn <= 0n || otherToken(pool, tokenIn) === undefined) return undefined;
  const zeroForOne = tokenIn === pool.token0;
  switch (pool.kind) {
    case 'v2':
      return v2Swap(pool, zeroForOne, amountIn);
    case 'v3':
    case 'v4':
      return concentratedSwap(pool, zeroForOne, amountIn);
    case 'balancer-weighted':
      return weightedSwap(pool, zeroForOne, amountIn);
    case 'stable':
      return stableSwap(pool, zeroForOne, amountIn);
  }
}

function v2Swap(pool: V2PoolState, zeroForOne: boolean, amountIn: bigint): PoolSwap | undefined {
  const [reserveIn, reserveOut] = zeroForOne
    ? [pool.reserve0, pool.reserve1]
    : [pool.reserve1, pool.reserve0];
  const amountOut = v2AmountOut(amountIn, reserveIn, reserveOut, pool.feeBps);
  if (amountOut === 0n) return undefined;
  const after: V2PoolState = zeroForOne
    ? { ...pool, reserve0: reserveIn + amountIn, reserve1: reserveOut - amountOut }
    : { ...pool, reserve0: reserveOut - amountOut, reserve1: reserveIn + amountIn };
  return { amountOut, gas: V2_HOP_GAS, after };
}

function concentratedSwap<P extends V3PoolState | V4PoolState>(
  pool: P,
  zeroForOne: boolean,
  amountIn: bigint,
): PoolSwap | undefined {
  let result;
  try {
    result = simulateV3ExactIn(pool, zeroForOne, amountIn);
  } catch {
    // The math throws exactly where the pool reverts (overflow, empty liquidity at a bound): no quote.
    return undefined;
  }
  if (result.amountIn !== amountIn || result.amountOut === 0n) return undefined;
  const after: P = {
    ...pool,
    sqrtPriceX96: result.sqrtPriceX96After,
    tick: result.tickAfter,
    liquidity: result.liquidityAfter,
  };
  return { amountOut: result.amountOut, gas: hopGas(pool, result.ticksCrossed), after };
}

/** Balances move by the whole input and the output: the swap fee stays in the pool. */
function withBalances<P extends WeightedPoolState | StablePoolState>(
  pool: P,
  zeroForOne: boolean,
  amountIn: bigint,
  amountOut: bigint,
): P {
  return zeroForOne
    ? { ...pool, balance0: pool.balance0 + amountIn, balance1: pool.balance1 - amountOut }
    : { ...pool, balance0: pool.balance0 - amountOut, balance1: pool.balance1 + amountIn };
}

function weightedSwap(pool: WeightedPoolState, zeroForOne: boolean, amountIn: bigint): PoolSwap | undefined {
  const amountOut = weightedAmountOut(pool, zeroForOne, amountIn);
  if (amountOut === undefined || amountOut <= 0n) return undefined;
  return {
    amountOut,
    gas: BALANCER_WEIGHTED_HOP_GAS,
    after: withBalances(pool, zeroForOne, amountIn, amountOut),
  };
}

function stableSwap(pool: StablePoolState, zeroForOne: boolean, amountIn: bigint): PoolSwap | undefined {
  const amountOut = stableSwapAmountOut(pool, zeroForOne, amountIn);
  if (amountOut === undefined || amountOut <= 0n) return undefined;
  // The fee left in the pool moves D: the state after the swap has its own, computed when needed.
  const after: StablePoolState = {
    ...withBalances(pool, zeroForOne, amountIn, amountOut),
    invariant: undefined,
  };
  return { amountOut, gas: STABLE_SWAP_HOP_GAS, after };
}

/** Output of one exact-input hop; 0n when the pool cannot take it. */
export function poolAmountOut(pool: PoolState, tokenIn: string, amountIn: bigint): bigint {
  return poolSwap(pool, tokenIn, amountIn)?.amountOut ?? 0n;
}
