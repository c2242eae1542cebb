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

/** ceil(a * b / denominator); throws where FullMath.mulDivRoundingUp reverts. */
export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  const result = mulDiv(a, b, denominator);
  if ((a * b) % denominator > 0n) {
    if (result >= MAX_UINT256) throw new RangeError('mulDivRoundingUp: result overflows uint256');
    return result + 1n;
  }
  return result;
}

/** UnsafeMath.divRoundingUp: ceil(x / y) for y > 0. */
export function divRoundingUp(x: bigint, y: bigint): bigint {
  const quotient = x / y;
  return x % y > 0n ? quotient + 1n : quotient;
}
