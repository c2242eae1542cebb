/**
 * FullMath of v3-core with uint256 semantics. bigint never overflows, so the checks the 512-bit Solidity code
 * gets from its preconditions are explicit here: the same inputs that revert on-chain throw.
 */

export const MAX_UINT256 = (1n << 256n) - 1n;

/** floor(a * b / denominator); throws where FullMath.mulDiv reverts (zero denominator, result >= 2^256). */
export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('mulDiv: denominator must be positive');
  const result = (a * b) / denominator;
  if (result > MAX_UINT256) throw new RangeError('mulDiv: result overflows uint256');
  return result;
}

/**
 * ceil(a * b / denominator); throws where FullMath.mulDivRoundingUp reverts. The product is formed once, and a
 * remainder is told by multiplying back (a bigint division costs several multiplications; operands are never
 * negative, so a floor quotient times the denominator equals the product exactly when nothing remains).
 */
export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('mulDiv: denominator must be positive');
  const product = a * b;
  const result = product / denominator;
  if (result > MAX_UINT256) throw new RangeError('mulDiv: result overflows uint256');
  if (result * denominator !== product) {
    if (result >= MAX_UINT256) throw new RangeError('mulDivRoundingUp: result overflows uint256');
    return result + 1n;
  }
  return result;
}

/** UnsafeMath.divRoundingUp: ceil(x / y) for y > 0 (the remainder told by multiplying back, as above). */
export function divRoundingUp(x: bigint, y: bigint): bigint {
  const quotient = x / y;
  return quotient * y !== x ? quotient + 1n : quotient;
}
