/**
 * The bounds every amount and price must keep before anything executes it: what the api refuses is what the
 * keeper could not encode on-chain (a uint256) or read exactly (finer than the token's base unit).
 */

/** Every on-chain amount is a uint256 of base units. */
export const UINT256_MAX = 2n ** 256n - 1n;

/**
 * Prices (units of the bought token per unit of the sold token) above this are refused: no real pair comes near
 * it, so a larger value is a unit mistake, and it keeps the JSON numbers the api returns far from overflow.
 */
export const MAX_PRICE = 10n ** 36n;
export const MAX_PRICE_TEXT = '10^36';

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A plain non-negative decimal string ("12.340") as an integer and its scale, trailing zeros dropped: (1234n, 2). */
export function scaledDecimal(decimal: string): { value: bigint; scale: number } {
  const match = PLAIN_DECIMAL.exec(decimal);
  if (!match) throw new RangeError(`not a plain decimal string: ${decimal}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return { value: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

/** Fractional digits that count (trailing zeros do not): "1.500" → 1. */
export function fractionDigits(decimal: string): number {
  return scaledDecimal(decimal).scale;
}

/** Base units of a decimal string, exactly; a fraction finer than `decimals` is an error, never rounded. */
export function toBaseUnits(decimal: string, decimals: number): bigint {
  const { value, scale } = scaledDecimal(decimal);
  if (scale > decimals) throw new RangeError(`${decimal} has more than ${decimals} decimal places`);
  return value * 10n ** BigInt(decimals - scale);
}

/**
 * Output base units worth `amountIn` base units at `price` (human units of out per 1 in, a decimal string),
 * rounded down or up. Exact integer arithmetic: no double ever touches a maker's amounts.
 */
export function valueAtPrice(
  amountIn: bigint,
  price: string,
  decimalsIn: number,
  decimalsOut: number,
  rounding: 'down' | 'up' = 'down',
): bigint {
  const p = scaledDecimal(price);
  const numerator = amountIn * p.value * 10n ** BigInt(decimalsOut);
  const denominator = 10n ** BigInt(decimalsIn + p.scale);
  return rounding === 'down' ? numerator / denominator : (numerator + denominator - 1n) / denominator;
}

/** Whether a plain decimal string is above `limit` (an integer), compared exactly. */
export function decimalAbove(decimal: string, limit: bigint): boolean {
  const { value, scale } = scaledDecimal(decimal);
  return value > limit * 10n ** BigInt(scale);
}

/**
 * A JSON number (DCA amounts, prices and slippage are doubles) as a plain decimal string: at most 20 fractional
 * digits, never an exponent. The api checks and the keeper executes this same string.
 */
export function plainDecimalOf(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative number: ${value}`);
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}
