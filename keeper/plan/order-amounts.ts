import { parseUnits } from 'ethers';
import { minimumAfterSlippage } from '../../shared/routing/fees';

/** A non-negative decimal string as an integer and its scale: "12.345" → (12345n, 3). */
function scaled(decimal: string): { value: bigint; scale: number } {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(decimal.trim());
  if (!match) throw new RangeError(`not a decimal: ${decimal}`);
  const fraction = match[2] ?? '';
  return { value: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

/** Human amount (a decimal string) in base units; more decimals than the token has is an error, never rounding. */
export function baseUnitsOf(amount: string, decimals: number): bigint {
  return parseUnits(amount, decimals);
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
  const p = scaled(price);
  const numerator = amountIn * p.value * 10n ** BigInt(decimalsOut);
  const denominator = 10n ** BigInt(decimalsIn + p.scale);
  return rounding === 'down' ? numerator / denominator : (numerator + denominator - 1n) / denominator;
}

/** The least a limit order may receive: amount × priceTrigger × (1 − slippage%), rounded down. */
export function limitOrderMinimumOut(
  amountIn: bigint,
  priceTrigger: string,
  slippagePercent: string,
  decimalsIn: number,
  decimalsOut: number,
): bigint {
  return minimumAfterSlippage(valueAtPrice(amountIn, priceTrigger, decimalsIn, decimalsOut), slippagePercent);
}

/** A JSON number (DCA amounts, prices and slippage are doubles) as a plain decimal string, never an exponent. */
export function decimalOf(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative number: ${value}`);
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}
