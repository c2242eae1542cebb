/**
 * Cheap float estimates for ranking candidates only (never for amounts): each pool is seen as a constant
 * product over its virtual reserves. For V2 these are the reserves; for V3, L / sqrtP and L * sqrtP of the
 * current range, which is exact until the price leaves that range.
 */
import type { PoolState } from './pool-state';

const Q96 = 2 ** 96;

interface VirtualReserves {
  reserveIn: number;
  reserveOut: number;
  /** 1 - fee. */
  feeFactor: number;
}

function virtualReserves(pool: PoolState, tokenIn: string): VirtualReserves {
  const zeroForOne = tokenIn === pool.token0;
  if (pool.kind === 'v2') {
    const r0 = Number(pool.reserve0);
    const r1 = Number(pool.reserve1);
    const feeFactor = 1 - Number(pool.feeBps) / 10_000;
    return zeroForOne
      ? { reserveIn: r0, reserveOut: r1, feeFactor }
      : { reserveIn: r1, reserveOut: r0, feeFactor };
  }
  const sqrtP = Number(pool.sqrtPriceX96) / Q96;
  const liquidity = Number(pool.liquidity);
  const x = sqrtP > 0 ? liquidity / sqrtP : 0;
  const y = liquidity * sqrtP;
  const feeFactor = 1 - pool.fee / 1_000_000;
  return zeroForOne ? { reserveIn: x, reserveOut: y, feeFactor } : { reserveIn: y, reserveOut: x, feeFactor };
}

/**
 * Estimated output of `amountIn` (a float in base units) through one hop; with amountIn 0 it is the marginal
 * rate at the current price (output per unit of input), so chaining rates gives a route's spot rate.
 */
export function estimateHop(pool: PoolState, tokenIn: string, amountIn: number): number {
  const { reserveIn, reserveOut, feeFactor } = virtualReserves(pool, tokenIn);
  if (reserveIn <= 0 || reserveOut <= 0) return 0;
  if (amountIn <= 0) return (reserveOut / reserveIn) * feeFactor;
  const withFee = amountIn * feeFactor;
  return (reserveOut * withFee) / (reserveIn + withFee);
}

/** Liquidity depth in sqrt(token0 * token1) units, comparable between V2 and V3 pools of one pair. */
export function poolDepth(pool: PoolState): number {
  if (pool.kind === 'v3') return Number(pool.liquidity);
  return Math.sqrt(Number(pool.reserve0) * Number(pool.reserve1));
}
