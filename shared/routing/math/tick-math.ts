/**
 * TickMath of v3-core, bit for bit: the same fixed-point constants and shifts, so prices and ticks equal the
 * pool's (tick indices are numbers: int24 fits; prices are bigint).
 */

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;

const MAX_UINT256 = (1n << 256n) - 1n;

/** Multipliers for each bit of |tick|: 2^128 / sqrt(1.0001)^(2^i), as in getSqrtRatioAtTick. */
const BIT_RATIOS: readonly bigint[] = [
  0xfff97272373d413259a46990580e213an,
  0xfff2e50f5f656932ef12357cf3c7fdccn,
  0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n,
  0xff973b41fa98c081472e6896dfb254c0n,
  0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n,
  0xfcbe86c7900a88aedcffc83b479aa3a4n,
  0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n,
  0xe7159475a2c29b7443b29c7fa6e889d9n,
  0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n,
  0x70d869a156d2a1b890bb3df62baf32f7n,
  0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n,
  0x5d6af8dedb81196699c329225ee604n,
  0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
];

/** sqrt(1.0001^tick) * 2^96, rounded up like the pool; throws 'T' outside [MIN_TICK, MAX_TICK]. */
export function getSqrtRatioAtTick(tick: number): bigint {
  if (!Number.isInteger(tick)) throw new RangeError(`tick must be an integer, got ${tick}`);
  const absTick = Math.abs(tick);
  if (absTick > MAX_TICK) throw new RangeError(`tick ${tick} out of range (T)`);

  let ratio = absTick & 0x1 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 0x100000000000000000000000000000000n;
  for (let i = 0; i < BIT_RATIOS.length; i++) {
    if (absTick & (2 << i)) ratio = (ratio * BIT_RATIOS[i]!) >> 128n;
  }
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  // Q128.128 -> Q128.96 rounding up, so getTickAtSqrtRatio of the result is always consistent.
  return (ratio >> 32n) + (ratio & 0xffffffffn ? 1n : 0n);
}

/** The greatest tick whose sqrt ratio is <= sqrtPriceX96; throws 'R' outside [MIN_SQRT_RATIO, MAX_SQRT_RATIO). */
export function getTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  if (sqrtPriceX96 < MIN_SQRT_RATIO || sqrtPriceX96 >= MAX_SQRT_RATIO) {
    throw new RangeError(`sqrtPriceX96 ${sqrtPriceX96} out of range (R)`);
  }
  const ratio = sqrtPriceX96 << 32n;

  // Most significant bit: ratio < 2^192, so bit length - 1 is exactly the assembly's binary search result.
  const msb = BigInt(ratio.toString(2).length - 1);
  let r = msb >= 128n ? ratio >> (msb - 127n) : ratio << (127n - msb);
  let log2 = (msb - 128n) << 64n;

  // 14 fractional bits of log2 by repeated squaring, exactly as the assembly blocks (bits 63 down to 50).
  for (let bit = 63n; bit >= 50n; bit--) {
    r = (r * r) >> 127n;
    const f = r >> 128n;
    log2 |= f << bit;
    r >>= f;
  }

  const logSqrt10001 = log2 * 255738958999603826347141n; // 128.128 number
  const tickLow = Number((logSqrt10001 - 3402992956809132418596140100660247210n) >> 128n);
  const tickHi = Number((logSqrt10001 + 291339464771989622907027621153398088495n) >> 128n);

  if (tickLow === tickHi) return tickLow;
  return getSqrtRatioAtTick(tickHi) <= sqrtPriceX96 ? tickHi : tickLow;
}
