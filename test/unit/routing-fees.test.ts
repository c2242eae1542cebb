import fc from 'fast-check';
import { applyFees, minimumAfterSlippage } from '../../shared/routing/fees';

describe('fees as the SwapRouter takes them', () => {
  it('takes 15 bps of protocol fee and the integrator margin from the gross output, each rounded down', () => {
    expect(applyFees(3_000_000_000n, 1500, 25)).toEqual({
      protocolFeeBps: 15,
      integratorMarginBps: 25,
      protocolFeeAmount: 4_500_000n,
      integratorMarginAmount: 7_500_000n,
      amountOut: 2_988_000_000n,
    });
    // Rounding: 999 × 1500 / 1e6 = 1.4985 → 1; 999 × 25 / 1e4 = 2.4975 → 2.
    expect(applyFees(999n, 1500, 25)).toMatchObject({
      protocolFeeAmount: 1n,
      integratorMarginAmount: 2n,
      amountOut: 996n,
    });
    expect(applyFees(1_000_000n, 1234, 0)).toMatchObject({ protocolFeeBps: 12.34, protocolFeeAmount: 1234n });
  });

  it('never loses or invents a unit', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 200n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100 }),
        (gross, pips, bps) => {
          const f = applyFees(gross, pips, bps);
          expect(f.amountOut + f.protocolFeeAmount + f.integratorMarginAmount).toBe(gross);
          expect(f.amountOut).toBeGreaterThanOrEqual(0n);
        },
      ),
    );
  });

  it('refuses fees out of range', () => {
    expect(() => applyFees(1n, 10_001, 0)).toThrow('protocol fee must be 0 to 10,000 pips, got 10001');
    expect(() => applyFees(1n, 1500, 101)).toThrow('integrator fee must be 0 to 100 bps, got 101');
    expect(() => applyFees(1n, 1500, 2.5)).toThrow(RangeError);
  });
});

describe('minimum after slippage', () => {
  it('rounds down exactly for decimal percentages', () => {
    expect(minimumAfterSlippage(1_000_000n, '0.5')).toBe(995_000n);
    expect(minimumAfterSlippage(1_000_000n, '1')).toBe(990_000n);
    expect(minimumAfterSlippage(999n, '0.3')).toBe(996n); // 996.003 → 996
    expect(minimumAfterSlippage(10n ** 18n, '0.123456789')).toBe(998_765_432_110_000_000n);
    expect(minimumAfterSlippage(5n, '0')).toBe(5n);
    expect(minimumAfterSlippage(5n, '100')).toBe(0n);
  });

  it('refuses what is not a percentage', () => {
    expect(() => minimumAfterSlippage(1n, '-1')).toThrow(RangeError);
    expect(() => minimumAfterSlippage(1n, '100.1')).toThrow('slippage above 100%: 100.1');
  });
});
