import fc from 'fast-check';
import {
  dueIterations,
  nextSlotAt,
  priceWithinBounds,
  slotAt,
  slotPassed,
} from '../../keeper/dca/dca-schedule';
import { iterationAmount } from '../../shared/domain/dca-iteration-amount';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('DCA slots', () => {
  it('puts slot k at createdAt + k × frequency seconds', () => {
    expect(slotAt(T0, 3600, 0)).toBe(T0);
    expect(slotAt(T0, 3600, 1)).toBe(T0 + 3_600_000);
    expect(slotAt(T0, 3, 7)).toBe(T0 + 21_000);
  });

  it('makes the first iteration due at once, at the creation instant', () => {
    const s = { createdAt: T0, frequency: 86_400, iterations: 3, iterationsCreated: 0 };
    expect(dueIterations(s, T0 - 1)).toEqual([]);
    expect(dueIterations(s, T0)).toEqual([0]);
    expect(dueIterations(s, T0 + 86_399_999)).toEqual([0]);
    expect(dueIterations({ ...s, iterationsCreated: 1 }, T0 + 86_399_999)).toEqual([]);
    expect(dueIterations({ ...s, iterationsCreated: 1 }, T0 + 86_400_000)).toEqual([1]);
  });

  it('works with a frequency of a few seconds, slot by slot', () => {
    const s = { createdAt: T0, frequency: 2, iterations: 3, iterationsCreated: 0 };
    const created: number[] = [];
    // A keeper ticking every 500 ms creates each iteration exactly at its slot.
    for (let now = T0; now <= T0 + 10_000; now += 500) {
      for (const k of dueIterations({ ...s, iterationsCreated: created.length }, now)) {
        expect(slotAt(T0, 2, k)).toBe(now);
        created.push(k);
      }
    }
    expect(created).toEqual([0, 1, 2]);
  });

  it('hands out at most `limit` due iterations per call, the rest at the next', () => {
    const s = { createdAt: T0, frequency: 0, iterations: 1e9, iterationsCreated: 0 };
    expect(dueIterations(s, T0, 100)).toEqual(Array.from({ length: 100 }, (_, k) => k));
    expect(dueIterations({ ...s, iterationsCreated: 100 }, T0, 2)).toEqual([100, 101]);
  });

  it('does not let a late iteration push the later slots back', () => {
    const s = { createdAt: T0, frequency: 60, iterations: 5, iterationsCreated: 0 };
    // Iteration 0 created 45 s late; iteration 1 is still due at T0 + 60 s, not at T0 + 105 s.
    expect(dueIterations(s, T0 + 45_000)).toEqual([0]);
    expect(dueIterations({ ...s, iterationsCreated: 1 }, T0 + 59_999)).toEqual([]);
    expect(dueIterations({ ...s, iterationsCreated: 1 }, T0 + 60_000)).toEqual([1]);
    expect(nextSlotAt({ ...s, iterationsCreated: 1 })).toBe(T0 + 60_000);
  });

  it('returns every missed slot after a keeper was down for several slots, never past the last iteration', () => {
    const s = { createdAt: T0, frequency: 10, iterations: 6, iterationsCreated: 1 };
    // Down from just after slot 0 until 42.5 s later: slots 1-4 have passed.
    expect(dueIterations(s, T0 + 42_500)).toEqual([1, 2, 3, 4]);
    expect(dueIterations(s, T0 + 365 * 86_400_000)).toEqual([1, 2, 3, 4, 5]);
    expect(dueIterations({ ...s, iterationsCreated: 6 }, T0 + 365 * 86_400_000)).toEqual([]);
    expect(nextSlotAt({ ...s, iterationsCreated: 6 })).toBeNull();
    // Those whose next slot has passed are out of their price-wait window already.
    expect(slotPassed(slotAt(T0, 10, 3), 10, T0 + 42_500)).toBe(true);
    expect(slotPassed(slotAt(T0, 10, 4), 10, T0 + 42_500)).toBe(false);
  });

  it('agrees with the slot definition for any schedule and time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: -1_000_000, max: 5_000_000_000 }),
        (frequency, iterations, created, offset) => {
          const iterationsCreated = Math.min(created, iterations);
          const now = T0 + offset;
          const expected: number[] = [];
          for (let k = iterationsCreated; k < iterations; k++)
            if (T0 + k * frequency * 1000 <= now) expected.push(k);
          expect(dueIterations({ createdAt: T0, frequency, iterations, iterationsCreated }, now)).toEqual(
            expected,
          );
        },
      ),
    );
  });

  it('treats a zero frequency as every slot at creation, and rejects a negative one', () => {
    expect(dueIterations({ createdAt: T0, frequency: 0, iterations: 3, iterationsCreated: 1 }, T0)).toEqual([
      1, 2,
    ]);
    expect(() =>
      dueIterations({ createdAt: T0, frequency: -1, iterations: 3, iterationsCreated: 0 }, T0),
    ).toThrow(RangeError);
    expect(() => slotPassed(T0, Number.NaN, T0)).toThrow(RangeError);
  });
});

describe('DCA price-bound wait', () => {
  it('ends when the next slot arrives, for the last iteration one frequency after its slot', () => {
    const slot2 = slotAt(T0, 5, 2);
    expect(slotPassed(slot2, 5, slot2)).toBe(false);
    expect(slotPassed(slot2, 5, slot2 + 4_999)).toBe(false);
    expect(slotPassed(slot2, 5, slot2 + 5_000)).toBe(true);
    expect(slotPassed(slot2, 5, slotAt(T0, 5, 3))).toBe(true);
  });

  it('checks the price against inclusive bounds, a null bound being open', () => {
    expect(priceWithinBounds(3000, null, null)).toBe(true);
    expect(priceWithinBounds(3000, 3000, 3000)).toBe(true);
    expect(priceWithinBounds(2999.99, 3000, null)).toBe(false);
    expect(priceWithinBounds(3000.01, null, 3000)).toBe(false);
    expect(priceWithinBounds(0.0005, 0.0004, 0.0006)).toBe(true);
    expect(priceWithinBounds(Number.NaN, null, null)).toBe(false);
  });
});

describe('DCA iteration amounts', () => {
  it('splits exactly, the remainder going to the last iteration', () => {
    expect([0, 1, 2].map((k) => iterationAmount(10n, 3, k))).toEqual([3n, 3n, 4n]);
    expect([0, 1, 2, 3].map((k) => iterationAmount(1_000_000n, 4, k))).toEqual([
      250_000n,
      250_000n,
      250_000n,
      250_000n,
    ]);
    expect([0, 1, 2].map((k) => iterationAmount(2n, 3, k))).toEqual([0n, 0n, 2n]);
    expect(iterationAmount(7n, 1, 0)).toBe(7n);
    // 100 tokens of 18 decimals in 7 iterations.
    const total = 100n * 10n ** 18n;
    expect(iterationAmount(total, 7, 0)).toBe(14_285_714_285_714_285_714n);
    expect(iterationAmount(total, 7, 6)).toBe(14_285_714_285_714_285_716n);
  });

  it('sums to the total for any amount and count', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.integer({ min: 1, max: 500 }),
        (total, n) => {
          let sum = 0n;
          for (let k = 0; k < n; k++) {
            const a = iterationAmount(total, n, k);
            expect(a).toBeGreaterThanOrEqual(total / BigInt(n));
            sum += a;
          }
          expect(sum).toBe(total);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects an index outside the strategy, a bad count or a negative total', () => {
    expect(() => iterationAmount(10n, 3, 3)).toThrow(RangeError);
    expect(() => iterationAmount(10n, 3, -1)).toThrow(RangeError);
    expect(() => iterationAmount(10n, 0, 0)).toThrow(RangeError);
    expect(() => iterationAmount(10n, 2.5, 0)).toThrow(RangeError);
    expect(() => iterationAmount(-1n, 3, 0)).toThrow(RangeError);
  });
});
