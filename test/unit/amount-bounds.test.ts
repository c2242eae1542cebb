import fc from 'fast-check';
import { baseUnitsOf, decimalOf, valueAtPrice } from '../../keeper/plan/order-amounts';
import {
  decimalAbove,
  fractionDigits,
  outputAtPrice,
  plainDecimalOf,
  toBaseUnits,
  UINT256_MAX,
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

  it('rounds the output at a price up, never below what the keeper computes', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.stringMatching(/^\d{1,6}(\.\d{1,12})?$/),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 24 }),
        (amountIn, price, decimalsIn, decimalsOut) => {
          const ours = outputAtPrice(amountIn, price, decimalsIn, decimalsOut);
          expect(ours).toBe(valueAtPrice(amountIn, price, decimalsIn, decimalsOut, 'up'));
          expect(ours >= valueAtPrice(amountIn, price, decimalsIn, decimalsOut, 'down')).toBe(true);
        },
      ),
    );
  });

  it("writes a double exactly as the keeper's decimalOf does, so the api checks what the keeper will read", () => {
    const doubles = fc.oneof(
      fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(1e308, 1e-7, 1e-21, 0.1 + 0.2, 123.456789, 5e-324, Number.MAX_VALUE),
    );
    fc.assert(
      fc.property(doubles, (value) => {
        expect(plainDecimalOf(value)).toBe(decimalOf(value));
      }),
    );
    // And what passes the api's decimals rule converts in the keeper without an error.
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e50, noNaN: true }),
        fc.integer({ min: 0, max: 18 }),
        (value, d) => {
          const decimal = plainDecimalOf(value);
          if (fractionDigits(decimal) <= d) expect(baseUnitsOf(decimal, d)).toBe(toBaseUnits(decimal, d));
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
