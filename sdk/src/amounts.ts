import { parseUnits } from 'ethers';
import { TasError } from './errors';

/** A human-readable decimal string in base units; more fractional digits than the token has is an error. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  try {
    const value = parseUnits(amount.trim(), decimals);
    if (value <= 0n) throw new Error('not above 0');
    return value;
  } catch {
    throw new TasError({
      code: 'INVALID_AMOUNT',
      status: 0,
      message: `amount ${JSON.stringify(amount)} is not a positive decimal with at most ${decimals} fractional digits`,
    });
  }
}

/**
 * A JSON number amount (DCA bodies carry numbers) in base units, rounded up: what is approved must cover what the
 * service will spend, whatever the last digit of a double.
 */
export function numberToBaseUnitsCeil(amount: number, decimals: number): bigint {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new TasError({
      code: 'INVALID_AMOUNT',
      status: 0,
      message: `amount ${amount} is not a positive number`,
    });
  }
  // Every double from 2^53 up is an integer, so only small values reach the decimal text below.
  if (Number.isInteger(amount)) return BigInt(amount) * 10n ** BigInt(decimals);
  const text = plainDecimal(String(amount));
  const [whole = '0', fraction = ''] = text.split('.');
  const kept = fraction.slice(0, decimals).padEnd(decimals, '0');
  const dropped = fraction.slice(decimals);
  const units = BigInt(whole + kept);
  return /[1-9]/.test(dropped) ? units + 1n : units;
}

/** String() of a double (the shortest text that reads back as it) without the exponent: `1.5e-7` is `0.00000015`. */
function plainDecimal(text: string): string {
  const [mantissa = '0', exponent = '0'] = text.toLowerCase().split('e');
  const [intPart = '0', fracPart = ''] = mantissa.split('.');
  const shift = Number(exponent);
  if (shift === 0) return mantissa;
  const digits = intPart + fracPart;
  const point = intPart.length + shift;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
