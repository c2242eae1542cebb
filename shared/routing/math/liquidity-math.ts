/** LiquidityMath of v3-core: adds a signed liquidity delta to a uint128, throwing where the pool reverts. */

const MAX_UINT128 = (1n << 128n) - 1n;

export function addDelta(x: bigint, y: bigint): bigint {
  const z = x + y;
  if (z < 0n) throw new RangeError('addDelta: liquidity underflow (LS)');
  if (z > MAX_UINT128) throw new RangeError('addDelta: liquidity overflow (LA)');
  return z;
}
