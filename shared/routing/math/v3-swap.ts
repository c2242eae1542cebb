/**
 * Exact-input swap over an in-memory Uniswap V3 pool state, computed as UniswapV3Pool.swap does: the same
 * steps (next initialized tick within one bitmap word, so word boundaries split steps and their rounding),
 * the same fee per step, liquidityNet crossing rules and price limit. Exact-output is not simulated.
 */
import { addDelta } from './liquidity-math';
import { computeSwapStep } from './swap-math';
import {
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from './tick-math';

export interface V3Tick {
  /** A multiple of the pool's tick spacing. */
  index: number;
  liquidityNet: bigint;
}

export interface V3PoolState {
  sqrtPriceX96: bigint;
  tick: number;
  /** In-range liquidity (the pool's `liquidity()`). */
  liquidity: bigint;
  /** Fee in pips (3000 = 0.3%). */
  fee: number;
  tickSpacing: number;
  /**
   * Every initialized tick (bitmap bit set, even with liquidityNet 0) in the range a swap may reach, sorted
   * ascending. A swap that runs past the last known tick treats the rest as uninitialized.
   */
  ticks: readonly V3Tick[];
}

export interface V3SwapResult {
  /** Input actually taken (less than asked when the price limit stops the swap). */
  amountIn: bigint;
  amountOut: bigint;
  sqrtPriceX96After: bigint;
  tickAfter: number;
  liquidityAfter: bigint;
  /**
   * Initialized ticks the swap loop crossed (each one a `ticks.cross` on-chain). QuoterV2's
   * `initializedTicksCrossed` differs at range ends: quoterV2TicksCrossed computes it.
   */
  ticksCrossed: number;
}

/** Index of the first tick with index > value (ticks sorted ascending). */
function upperBound(ticks: readonly V3Tick[], value: number): number {
  let lo = 0;
  let hi = ticks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ticks[mid]!.index <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first tick with index >= value. */
function lowerBound(ticks: readonly V3Tick[], value: number): number {
  return upperBound(ticks, value - 1);
}

const mod256 = (x: number): number => ((x % 256) + 256) % 256;

/**
 * TickBitmap.nextInitializedTickWithinOneWord over the sorted tick array: returns the position in `ticks`
 * of the initialized tick found, or -1 with the word's edge tick written to `edge.next`.
 */
function nextInitializedTickWithinOneWord(
  ticks: readonly V3Tick[],
  tick: number,
  tickSpacing: number,
  lte: boolean,
  edge: { next: number },
): number {
  const compressed = Math.floor(tick / tickSpacing);
  if (lte) {
    const wordStart = compressed - mod256(compressed);
    const i = upperBound(ticks, compressed * tickSpacing) - 1;
    if (i >= 0 && ticks[i]!.index >= wordStart * tickSpacing) return i;
    edge.next = wordStart * tickSpacing;
    return -1;
  }
  const start = compressed + 1;
  const wordEnd = start + 255 - mod256(start);
  const i = lowerBound(ticks, start * tickSpacing);
  if (i < ticks.length && ticks[i]!.index <= wordEnd * tickSpacing) return i;
  edge.next = wordEnd * tickSpacing;
  return -1;
}

/**
 * PoolTicksCounter.countInitializedTicksCrossed as QuoterV2 runs it: initialized ticks whose compressed index
 * lies between tickBefore / tickSpacing and tickAfter / tickSpacing, both divided rounding towards zero (not
 * floor), minus an endpoint that is an initialized multiple of the spacing on the side not crossed. It
 * therefore reports 1 for a swap that stays on an initialized tick and can count a range edge not crossed.
 */
export function quoterV2TicksCrossed(
  ticks: readonly V3Tick[],
  tickSpacing: number,
  tickBefore: number,
  tickAfter: number,
): number {
  const compressedBefore = Math.trunc(tickBefore / tickSpacing);
  const compressedAfter = Math.trunc(tickAfter / tickSpacing);
  const lower = Math.min(compressedBefore, compressedAfter) * tickSpacing;
  const higher = Math.max(compressedBefore, compressedAfter) * tickSpacing;
  let count = upperBound(ticks, higher) - lowerBound(ticks, lower);
  const isInitialized = (t: number) => {
    const i = lowerBound(ticks, t);
    return i < ticks.length && ticks[i]!.index === t;
  };
  if (tickBefore > tickAfter && tickAfter % tickSpacing === 0 && isInitialized(tickAfter)) count--;
  if (tickBefore < tickAfter && tickBefore % tickSpacing === 0 && isInitialized(tickBefore)) count--;
  return count;
}

/**
 * UniswapV3Pool.swap with a positive amountSpecified. Without a limit the swap may run to the price bounds
 * (as QuoterV2 and SwapRouter pass MIN_SQRT_RATIO + 1 / MAX_SQRT_RATIO - 1). A limit on the wrong side of
 * the current price throws, as the pool reverts with 'SPL'. amountIn 0 returns the state unchanged (the
 * pool would revert with 'AS').
 */
export function simulateV3ExactIn(
  state: V3PoolState,
  zeroForOne: boolean,
  amountIn: bigint,
  sqrtPriceLimitX96?: bigint,
): V3SwapResult {
  if (amountIn < 0n) throw new RangeError('amountIn must be >= 0');
  const limit = sqrtPriceLimitX96 ?? (zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n);
  const validLimit = zeroForOne
    ? limit < state.sqrtPriceX96 && limit > MIN_SQRT_RATIO
    : limit > state.sqrtPriceX96 && limit < MAX_SQRT_RATIO;
  if (!validLimit) throw new RangeError(`sqrt price limit ${limit} is invalid for this swap (SPL)`);

  const { ticks, tickSpacing, fee } = state;
  let remaining = amountIn;
  let amountOut = 0n;
  let sqrtPriceX96 = state.sqrtPriceX96;
  let tick = state.tick;
  let liquidity = state.liquidity;
  let ticksCrossed = 0;
  const edge = { next: 0 };

  while (remaining !== 0n && sqrtPriceX96 !== limit) {
    const sqrtPriceStartX96 = sqrtPriceX96;
    const found = nextInitializedTickWithinOneWord(ticks, tick, tickSpacing, zeroForOne, edge);
    let tickNext = found >= 0 ? ticks[found]!.index : edge.next;
    if (tickNext < MIN_TICK) tickNext = MIN_TICK;
    else if (tickNext > MAX_TICK) tickNext = MAX_TICK;
    const sqrtPriceNextX96 = getSqrtRatioAtTick(tickNext);

    const target = (zeroForOne ? sqrtPriceNextX96 < limit : sqrtPriceNextX96 > limit)
      ? limit
      : sqrtPriceNextX96;
    const step = computeSwapStep(sqrtPriceX96, target, liquidity, remaining, fee);
    sqrtPriceX96 = step.sqrtRatioNextX96;
    remaining -= step.amountIn + step.feeAmount;
    amountOut += step.amountOut;

    if (sqrtPriceX96 === sqrtPriceNextX96) {
      if (found >= 0) {
        // liquidityNet is what entering the tick from below adds: moving down subtracts it.
        const net = ticks[found]!.liquidityNet;
        liquidity = addDelta(liquidity, zeroForOne ? -net : net);
        ticksCrossed++;
      }
      tick = zeroForOne ? tickNext - 1 : tickNext;
    } else if (sqrtPriceX96 !== sqrtPriceStartX96) {
      // Recomputed only when the price moved within the range: an unmoved price keeps the tick it had.
      tick = getTickAtSqrtRatio(sqrtPriceX96);
    }
  }

  return {
    amountIn: amountIn - remaining,
    amountOut,
    sqrtPriceX96After: sqrtPriceX96,
    tickAfter: tick,
    liquidityAfter: liquidity,
    ticksCrossed,
  };
}
