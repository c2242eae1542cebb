import {
  STABLE_A_PRECISION,
  STABLE_FEE_DENOMINATOR,
  stableSwapAmountOut,
  type StableSwapMathState,
} from '../../shared/routing/math/stable-swap-math';

const E6 = 10n ** 6n;
const E18 = 10n ** 18n;
const RATE_6 = 10n ** 12n;

/** USDC(6) as coin 0, DAI(18) as coin 1, 10M a side, A = 2000, fee 0.04%: the devnet's stable pools. */
const USDC_DAI: StableSwapMathState = {
  balance0: 10_000_000n * E6,
  balance1: 10_000_000n * E18,
  rate0: RATE_6,
  rate1: 1n,
  amp: 2000n * STABLE_A_PRECISION,
  fee: 4_000_000n,
};

/** The same pool with both coins at 18 decimals. */
const DAI_DAI: StableSwapMathState = { ...USDC_DAI, balance0: 10_000_000n * E18, rate0: 1n };

/**
 * An independent reference: the invariant 4·x0·x1·(Ann·S + (1 - Ann)·D) = D³ (Ann = amp·2/100, the whitepaper's
 * A·n^n) solved by bisection on integers scaled by SCALE, where the contract uses Newton's method.
 */
const SCALE = 10n ** 6n;

function bisect(lo: bigint, hi: bigint, below: (v: bigint) => boolean): bigint {
  // Largest v in [lo, hi] with below(v).
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if (below(mid)) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
}

function referenceOut(pool: StableSwapMathState, zeroForOne: boolean, dx: bigint): bigint {
  const ann = pool.amp * 2n;
  const x0 = pool.balance0 * pool.rate0 * SCALE;
  const x1 = pool.balance1 * pool.rate1 * SCALE;
  // g(D) = 4·x0·x1·(ann·S + 100·D - ann·D) - 100·D³ falls as D grows.
  const g = (a: bigint, b: bigint, d: bigint): bigint =>
    4n * a * b * (ann * (a + b) + 100n * d - ann * d) - 100n * d ** 3n;
  const d = bisect(0n, x0 + x1, (v) => g(x0, x1, v) >= 0n);
  const [xIn, xOut, rateIn, rateOut] = zeroForOne
    ? [x0, x1, pool.rate0, pool.rate1]
    : [x1, x0, pool.rate1, pool.rate0];
  const x = xIn + dx * rateIn * SCALE;
  // With D fixed, g rises with the other balance y.
  const y = bisect(0n, xOut, (v) => g(x, v, d) < 0n) + 1n;
  const dy = xOut - y;
  return (dy - (dy * pool.fee) / STABLE_FEE_DENOMINATOR) / (rateOut * SCALE);
}

describe('stableSwapAmountOut (StableSwapPool.getDy)', () => {
  it('gives the exact outputs of the contract on the devnet pool', () => {
    // Pinned from StableSwapPool.getDy on anvil (test/e2e/contracts/stable-swap.test.ts checks the mirror there).
    expect(stableSwapAmountOut(USDC_DAI, true, 1n)).toBe(999_600_000_000n);
    expect(stableSwapAmountOut(USDC_DAI, true, E6)).toBe(999_599_999_950_044_978n);
    expect(stableSwapAmountOut(USDC_DAI, true, 100_000n * E6)).toBe(99_959_500_402_362_262_749_135n);
    expect(stableSwapAmountOut(USDC_DAI, false, E18)).toBe(999_599n);
    expect(stableSwapAmountOut(USDC_DAI, false, 100_000n * E18)).toBe(99_959_500_402n);
  });

  it.each([
    ['balanced, 1 USDC', USDC_DAI, true, E6],
    ['balanced, 1M USDC', USDC_DAI, true, 1_000_000n * E6],
    ['balanced, 50M DAI (five times the pool)', USDC_DAI, false, 50_000_000n * E18],
    ['skewed 9:1, 100k of the scarce coin', { ...USDC_DAI, balance1: 1_000_000n * E18 }, true, 100_000n * E6],
    [
      'skewed 9:1, 100k of the plentiful coin',
      { ...USDC_DAI, balance1: 1_000_000n * E18 },
      false,
      100_000n * E18,
    ],
    ['A = 1, fee 0', { ...DAI_DAI, amp: 100n, fee: 0n }, true, 3_000_000n * E18],
    ['A = 1e6, fee 1%', { ...DAI_DAI, amp: 10n ** 8n, fee: 10n ** 8n }, false, 7_000_000n * E18],
  ])(
    'matches a bisection solution of the invariant within a few units: %s',
    (_label, pool, zeroForOne, dx) => {
      const out = stableSwapAmountOut(pool, zeroForOne, dx)!;
      const reference = referenceOut(pool, zeroForOne, dx);
      // Newton stops within 1 of each root (D, then y) and the pool keeps 1 more: a few units at 18 decimals,
      // which 6 decimals round away.
      const tolerance = (zeroForOne ? pool.rate1 : pool.rate0) === 1n ? 4n : 1n;
      const diff = out > reference ? out - reference : reference - out;
      expect(diff).toBeLessThanOrEqual(tolerance);
    },
  );

  it('never pays more for less, and pays less per unit as the trade grows', () => {
    let previousOut = 0n;
    let previousPrice = Infinity;
    for (let k = 0; k <= 60; k++) {
      const dx = E6 * 10n ** BigInt(Math.floor(k / 6)) * BigInt((k % 6) + 1);
      const out = stableSwapAmountOut(USDC_DAI, true, dx)!;
      expect(out).toBeGreaterThanOrEqual(previousOut);
      const price = Number((out * 10n ** 9n) / (dx * RATE_6)) / 1e9;
      expect(price).toBeLessThanOrEqual(previousPrice);
      previousOut = out;
      previousPrice = price;
    }
    // Never the whole balance, however large the input.
    expect(stableSwapAmountOut(USDC_DAI, true, 10n ** 30n)!).toBeLessThan(USDC_DAI.balance1);
  });

  it('is symmetric in the coins of a balanced pool', () => {
    for (const dx of [1n, E18, 12_345n * E18, 9_000_000n * E18]) {
      expect(stableSwapAmountOut(DAI_DAI, true, dx)).toBe(stableSwapAmountOut(DAI_DAI, false, dx));
    }
    const skewed = { ...DAI_DAI, balance0: 3_000_000n * E18 };
    const mirrored = { ...skewed, balance0: skewed.balance1, balance1: skewed.balance0 };
    expect(stableSwapAmountOut(skewed, true, 777n * E18)).toBe(
      stableSwapAmountOut(mirrored, false, 777n * E18),
    );
  });

  it('treats a 6-decimal coin exactly as its 18-decimal equivalent', () => {
    for (const usdc of [1n, 3n * E6, 250_000n * E6, 4_000_000n * E6]) {
      // 6 decimals in: the same 18-decimal balances and input, the same 18-decimal output.
      expect(stableSwapAmountOut(USDC_DAI, true, usdc)).toBe(
        stableSwapAmountOut(DAI_DAI, true, usdc * RATE_6),
      );
      // 6 decimals out: the 18-decimal output, floored to 6 decimals.
      expect(stableSwapAmountOut(USDC_DAI, false, usdc * RATE_6)).toBe(
        stableSwapAmountOut(DAI_DAI, false, usdc * RATE_6)! / RATE_6,
      );
    }
  });

  it('loses about the 4 bps fee on a 100,000 trade against 10M a side', () => {
    const out = stableSwapAmountOut(USDC_DAI, true, 100_000n * E6)!;
    const lossPpm = 1_000_000n - out / ((100_000n * E18) / 1_000_000n);
    expect(lossPpm).toBeGreaterThanOrEqual(400n);
    expect(lossPpm).toBeLessThan(410n);
  });

  it('is undefined exactly where the pool reverts', () => {
    expect(stableSwapAmountOut(USDC_DAI, true, 0n)).toBeUndefined();
    expect(stableSwapAmountOut(USDC_DAI, true, -1n)).toBeUndefined();
    // xp + dx overflows uint256.
    expect(stableSwapAmountOut(USDC_DAI, true, (1n << 256n) - 1n)).toBeUndefined();
    expect(stableSwapAmountOut(USDC_DAI, true, 1n << 256n)).toBeUndefined();
    // An empty pool: y = 0 and xp - y - 1 underflows. A pool with one coin empty divides by zero.
    expect(stableSwapAmountOut({ ...USDC_DAI, balance0: 0n, balance1: 0n }, true, E6)).toBeUndefined();
    expect(stableSwapAmountOut({ ...USDC_DAI, balance1: 0n }, true, E6)).toBeUndefined();
    // Less than the rounding the pool keeps: 1 wei of DAI is worth nothing in USDC, not a revert.
    expect(stableSwapAmountOut(USDC_DAI, false, 1n)).toBe(0n);
  });
});
