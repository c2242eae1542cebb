/**
 * Decimal-string arithmetic for the values LI.FI takes and gives as decimals (slippage and fee fractions, USD
 * amounts): done on digits, never through floating point, so what we send and sum is exact.
 */

const DECIMAL = /^\d+(\.\d+)?$/;

export const isDecimalString = (value: string): boolean => DECIMAL.test(value);

/** Splits a plain decimal string into an integer of units and its number of decimals. */
function toScaled(value: string): { units: bigint; scale: number } {
  if (!DECIMAL.test(value)) throw new RangeError(`not a plain decimal: ${JSON.stringify(value)}`);
  const [whole, fraction = ''] = value.split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

/** Writes units / 10^scale as the shortest plain decimal string ("0.005", "1", "0"). */
function fromScaled(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A percent as the spec sends it ("0.5") as the fraction LI.FI expects ("0.005"). */
export function percentToFraction(percent: string): string {
  const { units, scale } = toScaled(percent);
  return fromScaled(units, scale + 2);
}

/**
 * The fee LI.FI is asked to take from the input, as a fraction: our protocol fee (pips, 1/1,000,000) plus the
 * integrator's (basis points). null when both are zero, so the request carries no `fee` at all.
 */
export function feeFraction(protocolFeePips: number, integratorFeeBps: number): string | null {
  const pips = BigInt(protocolFeePips) + BigInt(integratorFeeBps) * 100n;
  return pips === 0n ? null : fromScaled(pips, 6);
}

/** The exact sum of plain decimal strings; null for an empty list. */
export function sumDecimals(values: readonly string[]): string | null {
  if (values.length === 0) return null;
  const parts = values.map(toScaled);
  const scale = Math.max(...parts.map((part) => part.scale));
  const total = parts.reduce((sum, part) => sum + part.units * 10n ** BigInt(scale - part.scale), 0n);
  return fromScaled(total, scale);
}
