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

const LN_SQRT_1_0001 = Math.log(1.0001) / 2;
const Q96_FLOAT = 2 ** 96;
/**
 * How far from a tick boundary a float estimate must fall to be taken as it is. The estimate's error is below
 * 1e-9 ticks (a double's precision on |tick| < 2^20 and one ulp of Math.log); v3-core's boundaries differ from
 * the exact powers of 1.0001 by about 1e-33 ticks.
 */
const ESTIMATE_MARGIN = 1e-6;

/**
 * The greatest tick whose sqrt ratio is <= sqrtPriceX96, which is what v3-core's getTickAtSqrtRatio returns;
 * throws 'R' outside [MIN_SQRT_RATIO, MAX_SQRT_RATIO). The tick is estimated in floating point; an estimate
 * near a boundary is settled against getSqrtRatioAtTick, exactly.
 */
export function getTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  if (sqrtPriceX96 < MIN_SQRT_RATIO || sqrtPriceX96 >= MAX_SQRT_RATIO) {
    throw new RangeError(`sqrtPriceX96 ${sqrtPriceX96} out of range (R)`);
  }
  const estimate = Math.log(Number(sqrtPriceX96) / Q96_FLOAT) / LN_SQRT_1_0001;
  let tick = Math.floor(estimate);
  const fraction = estimate - tick;
  if (fraction > ESTIMATE_MARGIN && fraction < 1 - ESTIMATE_MARGIN && tick >= MIN_TICK && tick < MAX_TICK) {
    return tick;
  }
  tick = Math.min(Math.max(tick, MIN_TICK), MAX_TICK - 1);
  while (tick > MIN_TICK && getSqrtRatioAtTick(tick) > sqrtPriceX96) tick--;
  while (tick < MAX_TICK - 1 && getSqrtRatioAtTick(tick + 1) <= sqrtPriceX96) tick++;
  return tick;
}
