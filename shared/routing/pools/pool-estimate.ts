/**
 * Cheap float estimates for ranking candidates and bounding price impact (never for amounts): V2, V3 and V4
 * pools are seen as a constant product over their virtual reserves (for V2 the reserves; for V3 and V4, L / sqrtP
 * and L * sqrtP of the current range, exact until the price leaves that range); a weighted pool by its own
 * invariant; a StableSwap pool by its exact math (its curve is no constant product).
 */
import { stableSwapAmountOut } from '../math/stable-swap-math';
import type { PoolState, StablePoolState, WeightedPoolState } from './pool-state';

const Q96 = 2 ** 96;

interface VirtualReserves {
  reserveIn: number;
  reserveOut: number;
  /** 1 - fee. */
  feeFactor: number;
}

function virtualReserves(
  pool: Exclude<PoolState, WeightedPoolState | StablePoolState>,
  tokenIn: string,
): VirtualReserves {
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
  if (pool.kind === 'balancer-weighted') return estimateWeightedHop(pool, tokenIn, amountIn);
  if (pool.kind === 'stable') return estimateStableHop(pool, tokenIn, amountIn);
  const { reserveIn, reserveOut, feeFactor } = virtualReserves(pool, tokenIn);
  if (reserveIn <= 0 || reserveOut <= 0) return 0;
  if (amountIn <= 0) return (reserveOut / reserveIn) * feeFactor;
  const withFee = amountIn * feeFactor;
  return (reserveOut * withFee) / (reserveIn + withFee);
}

/** out = Bout * (1 - (Bin / (Bin + in * (1 - fee)))^(wIn / wOut)); at the margin (Bout / wOut) / (Bin / wIn). */
function estimateWeightedHop(pool: WeightedPoolState, tokenIn: string, amountIn: number): number {
  const zeroForOne = tokenIn === pool.token0;
  const [balanceIn, balanceOut] = zeroForOne
    ? [Number(pool.balance0), Number(pool.balance1)]
    : [Number(pool.balance1), Number(pool.balance0)];
  const [weightIn, weightOut] = zeroForOne
    ? [Number(pool.weight0), Number(pool.weight1)]
    : [Number(pool.weight1), Number(pool.weight0)];
  if (balanceIn <= 0 || balanceOut <= 0 || weightIn <= 0 || weightOut <= 0) return 0;
  const feeFactor = 1 - Number(pool.swapFee) / 1e18;
  if (amountIn <= 0) return (balanceOut / weightOut / (balanceIn / weightIn)) * feeFactor;
  const base = balanceIn / (balanceIn + amountIn * feeFactor);
  return balanceOut * (1 - base ** (weightIn / weightOut));
}

/** Probe of the margin: a millionth of the input side's balance (at least one unit). */
const STABLE_PROBE_SHARE = 1_000_000n;

function estimateStableHop(pool: StablePoolState, tokenIn: string, amountIn: number): number {
  const zeroForOne = tokenIn === pool.token0;
  if (amountIn > 0) {
    const exact = BigInt(Math.floor(amountIn));
    return exact > 0n ? Number(stableSwapAmountOut(pool, zeroForOne, exact) ?? 0n) : 0;
  }
  const balanceIn = zeroForOne ? pool.balance0 : pool.balance1;
  const probe = balanceIn / STABLE_PROBE_SHARE > 0n ? balanceIn / STABLE_PROBE_SHARE : 1n;
  return Number(stableSwapAmountOut(pool, zeroForOne, probe) ?? 0n) / Number(probe);
}

/**
 * Liquidity depth in sqrt(token0 * token1) units, comparable between the pools of one pair: a StableSwap pool's
 * counts its amplification, as its price holds over that much more volume near the peg.
 */
export function poolDepth(pool: PoolState): number {
  switch (pool.kind) {
    case 'v3':
    case 'v4':
      return Number(pool.liquidity);
    case 'v2':
      return Math.sqrt(Number(pool.reserve0) * Number(pool.reserve1));
    case 'balancer-weighted':
      return Math.sqrt(Number(pool.balance0) * Number(pool.balance1));
    case 'stable':
      return Math.sqrt(Number(pool.balance0) * Number(pool.balance1)) * (Number(pool.amp) / 100);
  }
}
