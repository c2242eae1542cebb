/**
 * SqrtPriceMath of v3-core. The two-stage roundings and the overflow fallbacks are kept as in Solidity: they
 * change the last unit of results, and the simulation must equal the pool to the unit.
 */
import { divRoundingUp, MAX_UINT256, mulDiv, mulDivRoundingUp } from './full-math';

const RESOLUTION = 96n;
const Q96 = 1n << 96n;
const MAX_UINT160 = (1n << 160n) - 1n;

function toUint160(x: bigint): bigint {
  if (x > MAX_UINT160) throw new RangeError('sqrt price overflows uint160');
  return x;
}

function requirePositive(sqrtPX96: bigint, liquidity: bigint): void {
  if (sqrtPX96 <= 0n) throw new RangeError('sqrt price must be positive');
  if (liquidity <= 0n) throw new RangeError('liquidity must be positive');
}

/** Next price after adding (or removing) `amount` of token0, rounded up. */
export function getNextSqrtPriceFromAmount0RoundingUp(
  sqrtPX96: bigint,
  liquidity: bigint,
  amount: bigint,
  add: boolean,
): bigint {
  // The pool short-circuits zero: the formula would not return the input price exactly.
  if (amount === 0n) return sqrtPX96;
  const numerator1 = liquidity << RESOLUTION;
  const product = amount * sqrtPX96;
  if (add) {
    // Solidity takes the mulDiv form only when amount * sqrtP and numerator1 + product fit in 256 bits.
    if (product <= MAX_UINT256 && numerator1 + product <= MAX_UINT256) {
      return mulDivRoundingUp(numerator1, sqrtPX96, numerator1 + product);
    }
    return divRoundingUp(numerator1, numerator1 / sqrtPX96 + amount);
  }
  if (product > MAX_UINT256 || numerator1 <= product) {
    throw new RangeError('output exceeds the token0 the liquidity holds');
  }
  return toUint160(mulDivRoundingUp(numerator1, sqrtPX96, numerator1 - product));
}

/** Next price after adding (or removing) `amount` of token1, rounded down. */
export function getNextSqrtPriceFromAmount1RoundingDown(
  sqrtPX96: bigint,
  liquidity: bigint,
  amount: bigint,
  add: boolean,
): bigint {
  // (amount << 96) / L and mulDiv(amount, Q96, L) are the same floor; only the overflow check matters.
  if (add) return toUint160(sqrtPX96 + mulDiv(amount, Q96, liquidity));
  const quotient = mulDivRoundingUp(amount, Q96, liquidity);
  if (sqrtPX96 <= quotient) throw new RangeError('output exceeds the token1 the liquidity holds');
  return sqrtPX96 - quotient;
}

export function getNextSqrtPriceFromInput(
  sqrtPX96: bigint,
  liquidity: bigint,
  amountIn: bigint,
  zeroForOne: boolean,
): bigint {
  requirePositive(sqrtPX96, liquidity);
  return zeroForOne
    ? getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96, liquidity, amountIn, true)
    : getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96, liquidity, amountIn, true);
}

export function getNextSqrtPriceFromOutput(
  sqrtPX96: bigint,
  liquidity: bigint,
  amountOut: bigint,
  zeroForOne: boolean,
): bigint {
  requirePositive(sqrtPX96, liquidity);
  return zeroForOne
    ? getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96, liquidity, amountOut, false)
    : getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96, liquidity, amountOut, false);
}

/** Token0 between two prices for `liquidity` (unsigned form), rounded in two stages like the pool. */
export function getAmount0Delta(
  sqrtRatioAX96: bigint,
  sqrtRatioBX96: bigint,
  liquidity: bigint,
  roundUp: boolean,
): bigint {
  let a = sqrtRatioAX96;
  let b = sqrtRatioBX96;
  if (a > b) [a, b] = [b, a];
  if (a <= 0n) throw new RangeError('sqrt price must be positive');
  const numerator1 = liquidity << RESOLUTION;
  const numerator2 = b - a;
  return roundUp
    ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, b), a)
    : mulDiv(numerator1, numerator2, b) / a;
}

/** Token1 between two prices for `liquidity` (unsigned form). */
export function getAmount1Delta(
  sqrtRatioAX96: bigint,
  sqrtRatioBX96: bigint,
  liquidity: bigint,
  roundUp: boolean,
): bigint {
  const diff = sqrtRatioAX96 > sqrtRatioBX96 ? sqrtRatioAX96 - sqrtRatioBX96 : sqrtRatioBX96 - sqrtRatioAX96;
  return roundUp ? mulDivRoundingUp(liquidity, diff, Q96) : mulDiv(liquidity, diff, Q96);
}
