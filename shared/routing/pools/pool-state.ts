/**
 * In-memory pool states the router works on, and one exact hop over them. Amounts come from the exact
 * contract math (shared/routing/math), so a quote over these states is what the pools pay at that state.
 */
import { v2AmountOut } from '../math/uniswap-v2-math';
import { simulateV3ExactIn, type V3Tick } from '../math/v3-swap';

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

export type PoolState = V2PoolState | V3PoolState;

/**
 * Gas per hop, measured against the devnet contracts' order of magnitude rather than derived: a V2 pair swap
 * (transfer + swap + Sync) costs about 60k inside a multi-hop router call; a V3 swap about 80k in its
 * starting range, and each initialized tick crossed adds about 20k (ticks.cross writes plus bitmap reads).
 */
export const V2_HOP_GAS = 60_000n;
export const V3_HOP_GAS = 80_000n;
export const V3_TICK_CROSS_GAS = 20_000n;

/** Gas of one hop through `pool`; for V3, `ticksCrossed` comes from simulating the swap (poolSwap). */
export function hopGas(pool: PoolState, ticksCrossed = 0): bigint {
  return pool.kind === 'v2' ? V2_HOP_GAS : V3_HOP_GAS + V3_TICK_CROSS_GAS * BigInt(ticksCrossed);
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
  if (pool.kind === 'v2') {
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
  let result;
  try {
    result = simulateV3ExactIn(pool, zeroForOne, amountIn);
  } catch {
    // The math throws exactly where the pool reverts (overflow, empty liquidity at a bound): no quote.
    return undefined;
  }
  if (result.amountIn !== amountIn || result.amountOut === 0n) return undefined;
  const after: V3PoolState = {
    ...pool,
    sqrtPriceX96: result.sqrtPriceX96After,
    tick: result.tickAfter,
    liquidity: result.liquidityAfter,
  };
  return { amountOut: result.amountOut, gas: hopGas(pool, result.ticksCrossed), after };
}

/** Output of one exact-input hop; 0n when the pool cannot take it. */
export function poolAmountOut(pool: PoolState, tokenIn: string, amountIn: bigint): bigint {
  return poolSwap(pool, tokenIn, amountIn)?.amountOut ?? 0n;
}
