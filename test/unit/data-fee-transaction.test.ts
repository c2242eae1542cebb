import { scaledGas } from '../../api/routes/quotes/data-fee-transaction';
import { convertAtRate, probeAmount } from '../../shared/routing/prices/pair-price';

describe('gas information arithmetic', () => {
  it('scales estimatedGas by the spec multipliers, rounding up', () => {
    expect(scaledGas(100_000n, 'NONE')).toBe(100_000n);
    expect(scaledGas(100_000n, 'LOW')).toBe(155_000n);
    expect(scaledGas(100_001n, 'LOW')).toBe(155_002n); // 155,001.55 rounds up
    expect(scaledGas(100_000n, 'MEDIUM')).toBe(200_000n);
    expect(scaledGas(100_000n, 'HIGH')).toBe(400_000n);
    expect(scaledGas(0n, 'HIGH')).toBe(0n);
  });

  it('probes 1/1000 of a token, at least a million base units where a token has them, at most one token', () => {
    expect(probeAmount(18)).toBe(10n ** 15n);
    expect(probeAmount(8)).toBe(10n ** 6n);
    expect(probeAmount(6)).toBe(10n ** 6n);
    expect(probeAmount(2)).toBe(100n);
    expect(probeAmount(0)).toBe(1n);
  });

  it('converts at a probe rate exactly, rounding a cost up to the next base unit', () => {
    const rate = { blockNumber: 1, probeIn: 10n ** 15n, probeOut: 3_000_000n, price: 3000 };
    // 1 native at 3,000,000 USDC base units per 0.001 native = 3,000 USDC exactly.
    expect(convertAtRate(10n ** 18n, rate)).toBe(3_000_000_000n);
    // 1 wei is worth 3e-9 base units: a cost rounds up to 1.
    expect(convertAtRate(1n, rate)).toBe(1n);
    expect(convertAtRate(0n, rate)).toBe(0n);
  });
});
