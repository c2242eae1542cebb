import { feeFraction, percentToFraction, sumDecimals } from '../../shared/bridges/lifi/lifi-amounts';

describe('LI.FI decimal amounts', () => {
  it.each([
    ['0.5', '0.005'],
    ['1', '0.01'],
    ['0.05', '0.0005'],
    ['3.00', '0.03'],
    ['50', '0.5'],
    ['100', '1'],
    ['0', '0'],
  ])('slippage %s%% is the fraction %s', (percent, fraction) => {
    expect(percentToFraction(percent)).toBe(fraction);
  });

  it('rejects a slippage that is not a plain decimal', () => {
    expect(() => percentToFraction('1e-2')).toThrow(RangeError);
    expect(() => percentToFraction('-1')).toThrow(RangeError);
  });

  it.each([
    [1500, 25, '0.004'],
    [1500, 0, '0.0015'],
    [0, 100, '0.01'],
    [1, 0, '0.000001'],
    [10_000, 100, '0.02'],
    [0, 0, null],
  ])('protocol fee %i pips plus integrator fee %i bps is the fee fraction %s', (pips, bps, fraction) => {
    expect(feeFraction(pips, bps)).toBe(fraction);
  });

  it('sums USD amounts exactly, whatever their decimals', () => {
    expect(sumDecimals(['2.4990', '3.9984', '0.3125', '2.7636'])).toBe('9.5735');
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['0.00', '0'])).toBe('0');
    expect(sumDecimals(['12', '0.000000000000000001'])).toBe('12.000000000000000001');
    expect(sumDecimals([])).toBeNull();
  });
});
