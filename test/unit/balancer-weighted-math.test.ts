import { weightedAmountOut, type WeightedMathState } from '../../shared/routing/math/balancer-weighted-math';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

/** WETH (18 decimals) / USDC (6 decimals), 50/50, 100 WETH and 200,000 USDC, 0.3% fee. */
const wethUsdc: WeightedMathState = {
  balance0: 100n * E18,
  balance1: 200_000n * E6,
  weight0: E18 / 2n,
  weight1: E18 / 2n,
  scalingFactor0: E18,
  scalingFactor1: E18 * 10n ** 12n,
  swapFee: 3n * 10n ** 15n,
};

/** BAL / WETH 80/20 (both 18 decimals), 400,000 BAL and 200 WETH, 0.3% fee. */
const balWeth: WeightedMathState = {
  balance0: 400_000n * E18,
  balance1: 200n * E18,
  weight0: 8n * 10n ** 17n,
  weight1: 2n * 10n ** 17n,
  scalingFactor0: E18,
  scalingFactor1: E18,
  swapFee: 3n * 10n ** 15n,
};

/** The weighted formula in floating point, fee off the input: what the exact result must be close to. */
function approximateOut(
  pool: WeightedMathState,
  zeroForOne: boolean,
  amountIn: bigint,
  decimalsIn: number,
  decimalsOut: number,
): number {
  const [bIn, bOut, wIn, wOut] = zeroForOne
    ? [pool.balance0, pool.balance1, pool.weight0, pool.weight1]
    : [pool.balance1, pool.balance0, pool.weight1, pool.weight0];
  const scale = (x: bigint, d: number) => Number(x) / 10 ** d;
  const fee = Number(pool.swapFee) / 1e18;
  const aIn = scale(amountIn, decimalsIn) * (1 - fee);
  const out =
    scale(bOut, decimalsOut) *
    (1 - (scale(bIn, decimalsIn) / (scale(bIn, decimalsIn) + aIn)) ** (Number(wIn) / Number(wOut)));
  return out * 10 ** decimalsOut;
}

describe('Balancer V2 weighted pool swap, given in (onSwap)', () => {
  // Expected values worked out by hand from the pool's steps: fee = mulUp(amount, fee); upscale with mulDown;
  // base = divUp(balanceIn, balanceIn + in); power = base^(wIn/wOut) with the 1.0 / 4.0 shortcuts of powUp;
  // out = mulDown(balanceOut, 1 − power), downscaled rounding down.
  it('50/50 across decimals: the exponent 1 path, both directions', () => {
    expect(weightedAmountOut(wethUsdc, true, E18)).toBe(1_974_316_068n);
    expect(weightedAmountOut(wethUsdc, false, 2_000n * E6)).toBe(987_158_034_397_061_200n);
  });

  it('80/20 from the heavy token: the exponent 4 path (two rounded-up squarings)', () => {
    expect(weightedAmountOut(balWeth, true, 1_000n * E18)).toBe(1_981_636_557_588_253_400n);
    expect(weightedAmountOut(balWeth, true, 123_456_789_012_345_678_901n)).toBe(245_983_575_446_700_800n);
  });

  it('80/20 from the light token: LogExpMath.pow, within its error bound of the real power', () => {
    // powUp adds 1e-14 of the power (MAX_POW_RELATIVE_ERROR) and LogExpMath is good to about 1e-18: the output
    // may fall short of the real formula by about 1e-14 of the balance out, never exceed it.
    const bound = (Number(balWeth.balance0) * 2) / 1e14;
    for (const amountIn of [10n ** 15n, E18, 17n * E18, 59n * E18]) {
      const out = Number(weightedAmountOut(balWeth, false, amountIn)!);
      const expected = approximateOut(balWeth, false, amountIn, 18, 18);
      expect(expected - out).toBeLessThan(bound);
      expect(out - expected).toBeLessThan(expected * 1e-12);
    }
  });

  it('is monotonic in the amount and never pays out the whole balance', () => {
    let last = 0n;
    for (let amountIn = 10n ** 12n; amountIn <= 60n * E18; amountIn *= 3n) {
      const out = weightedAmountOut(balWeth, false, amountIn)!;
      expect(out).toBeGreaterThan(last);
      expect(out).toBeLessThan(balWeth.balance0);
      last = out;
    }
  });

  it('enforces MAX_IN_RATIO (30% of the balance in) on the input after the fee', () => {
    const noFee: WeightedMathState = {
      ...balWeth,
      balance0: 1_000n * E18,
      balance1: 1_000n * E18,
      weight0: E18 / 2n,
      weight1: E18 / 2n,
      swapFee: 0n,
    };
    expect(weightedAmountOut(noFee, true, 300n * E18)).toBe(230_769_230_769_230_769_000n);
    expect(weightedAmountOut(noFee, true, 300n * E18 + 1n)).toBeUndefined();
    // With a fee the raw input may exceed 30% as long as what is left after the fee does not.
    const withFee = { ...noFee, swapFee: 10n ** 16n };
    expect(weightedAmountOut(withFee, true, 303n * E18)).toBeDefined();
    expect(weightedAmountOut(withFee, true, 304n * E18)).toBeUndefined();
  });

  it('takes the fee rounded up off the raw amount: 1 wei in at a non-zero fee is all fee', () => {
    const pool = { ...balWeth, swapFee: 10n ** 16n };
    expect(weightedAmountOut(pool, true, 1n)).toBe(0n);
  });

  it('answers undefined for no input or an empty side', () => {
    expect(weightedAmountOut(balWeth, true, 0n)).toBeUndefined();
    expect(weightedAmountOut({ ...balWeth, balance1: 0n }, true, E18)).toBeUndefined();
    expect(weightedAmountOut({ ...balWeth, balance0: 0n }, true, E18)).toBeUndefined();
  });
});
