import fc from 'fast-check';
import { parseUnits } from 'ethers';
import {
  decimalAbove,
  fractionDigits,
  plainDecimalOf,
  toBaseUnits,
  UINT256_MAX,
  valueAtPrice,
} from '../../shared/domain/amount-bounds';

describe('amount bounds', () => {
  it('converts decimal strings to base units exactly, trailing zeros not counting', () => {
    expect(toBaseUnits('1.5', 6)).toBe(1_500_000n);
    expect(toBaseUnits('1.500000000', 6)).toBe(1_500_000n);
    expect(toBaseUnits('0.000001', 6)).toBe(1n);
    expect(toBaseUnits('7', 0)).toBe(7n);
    expect(() => toBaseUnits('0.0000001', 6)).toThrow(RangeError);
    expect(() => toBaseUnits('1e5', 6)).toThrow(RangeError);
    expect(fractionDigits('12.3400')).toBe(2);
    expect(fractionDigits('12')).toBe(0);
  });

  it('holds base units far beyond a uint256 without losing a digit', () => {
    const max = UINT256_MAX.toString();
    expect(toBaseUnits(`${max.slice(0, -18)}.${max.slice(-18)}`, 18)).toBe(UINT256_MAX);
    expect(toBaseUnits('9'.repeat(100), 18)).toBe(10n ** 118n - 10n ** 18n);
  });

  it('compares a decimal string with an integer bound exactly', () => {
    expect(decimalAbove('1000', 1000n)).toBe(false);
    expect(decimalAbove('1000.000', 1000n)).toBe(false);
    expect(decimalAbove('1000.0000000000000000000001', 1000n)).toBe(true);
    expect(decimalAbove('999.99', 1000n)).toBe(false);
  });

  it('values an amount at a price exactly, rounded up at most one base unit above rounding down', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.stringMatching(/^\d{1,6}(\.\d{1,12})?$/),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 24 }),
        (amountIn, price, decimalsIn, decimalsOut) => {
          const up = valueAtPrice(amountIn, price, decimalsIn, decimalsOut, 'up');
          const down = valueAtPrice(amountIn, price, decimalsIn, decimalsOut, 'down');
          expect(up - down === 0n || up - down === 1n).toBe(true);
          const padded = price.includes('.') ? `${price}000` : `${price}.000`;
          expect(valueAtPrice(amountIn, padded, decimalsIn, decimalsOut)).toBe(down);
        },
      ),
    );
  });

  it('writes a double as a plain decimal that converts to base units exactly as ethers parses it', () => {
    expect(plainDecimalOf(1e-7)).toBe('0.0000001');
    expect(plainDecimalOf(1e21)).toBe('1000000000000000000000');
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e50, noNaN: true }),
        fc.integer({ min: 0, max: 18 }),
        (value, d) => {
          const decimal = plainDecimalOf(value);
          if (fractionDigits(decimal) <= d) expect(parseUnits(decimal, d)).toBe(toBaseUnits(decimal, d));
        },
      ),
    );
  });

  it('refuses non-finite and negative doubles', () => {
    expect(() => plainDecimalOf(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => plainDecimalOf(Number.NaN)).toThrow(RangeError);
    expect(() => plainDecimalOf(-1)).toThrow(RangeError);
  });
});
