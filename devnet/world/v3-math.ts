/** The integer math of Uniswap V3 prices that the devnet needs: sqrtPriceX96 and full-range ticks. */

export const Q96 = 2n ** 96n;
const MIN_TICK = -887272;
const MAX_TICK = 887272;

/** Tick spacing per fee tier of the V3 factory (the tiers enabled at deployment). */
export const V3_TICK_SPACING: Readonly<Record<number, number>> = { 500: 10, 3000: 60, 10000: 200 };

/** floor(sqrt(n)) for non-negative bigints: Newton's method from a power of two above the root. */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new Error('isqrt of a negative number');
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** sqrt(amount1 / amount0) in Q64.96: the pool price at which the two raw amounts are worth the same. */
export function sqrtPriceX96FromAmounts(amount0: bigint, amount1: bigint): bigint {
  if (amount0 <= 0n || amount1 <= 0n) throw new Error('amounts must be positive');
  return isqrt((amount1 << 192n) / amount0);
}

/** The widest position a fee tier allows: the min and max ticks rounded inwards to the tick spacing. */
export function fullRangeTicks(fee: number): { tickLower: number; tickUpper: number } {
  const spacing = V3_TICK_SPACING[fee];
  if (!spacing) throw new Error(`no tick spacing known for fee tier ${fee}`);
  return fullRangeTicksForSpacing(spacing);
}

/** The widest position a tick spacing allows (Uniswap V4 pools name their spacing instead of a fee tier). */
export function fullRangeTicksForSpacing(spacing: number): { tickLower: number; tickUpper: number } {
  if (!Number.isInteger(spacing) || spacing <= 0) throw new Error(`invalid tick spacing ${spacing}`);
  return {
    tickLower: Math.ceil(MIN_TICK / spacing) * spacing,
    tickUpper: Math.floor(MAX_TICK / spacing) * spacing,
  };
}
