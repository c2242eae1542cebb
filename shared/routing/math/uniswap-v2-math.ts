/**
 * Constant-product amounts exactly as UniswapV2Library computes them. The fee is in basis points; 30 bps
 * gives 9970/10000, which floors identically to the library's 997/1000 (both terms scale by 10).
 */

const BPS = 10_000n;

function feeFactor(feeBps: bigint): bigint {
  if (feeBps < 0n || feeBps >= BPS) throw new RangeError(`V2 fee must be in [0, 10000) bps, got ${feeBps}`);
  return BPS - feeBps;
}

/** getAmountOut: output for an exact input. 0n when nothing goes in or the pair is empty (no liquidity). */
export function v2AmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps = 30n): bigint {
  if (amountIn < 0n || reserveIn < 0n || reserveOut < 0n) throw new RangeError('V2 amounts must be >= 0');
  const factor = feeFactor(feeBps);
  if (amountIn === 0n || reserveIn === 0n || reserveOut === 0n) return 0n;
  const amountInWithFee = amountIn * factor;
  return (amountInWithFee * reserveOut) / (reserveIn * BPS + amountInWithFee);
}

/**
 * getAmountIn: the input that buys an exact output (rounded up by one, as the library does). Throws on an
 * empty pair or an output the pair cannot give (amountOut >= reserveOut): no input achieves it.
 */
export function v2AmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint, feeBps = 30n): bigint {
  if (amountOut < 0n || reserveIn < 0n || reserveOut < 0n) throw new RangeError('V2 amounts must be >= 0');
  const factor = feeFactor(feeBps);
  if (amountOut === 0n) return 0n;
  if (reserveIn === 0n || reserveOut === 0n)
    throw new RangeError('V2 pair has no liquidity (empty reserves)');
  if (amountOut >= reserveOut) {
    throw new RangeError(`V2 output ${amountOut} exceeds what the pair holds (${reserveOut})`);
  }
  const numerator = reserveIn * amountOut * BPS;
  const denominator = (reserveOut - amountOut) * factor;
  return numerator / denominator + 1n;
}
