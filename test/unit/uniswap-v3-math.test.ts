import fc from 'fast-check';
import { isqrt } from '../../devnet/world/v3-math';
import { MAX_UINT256, mulDiv, mulDivRoundingUp } from '../../shared/routing/math/full-math';
import { addDelta } from '../../shared/routing/math/liquidity-math';
import { getAmount0Delta, getAmount1Delta } from '../../shared/routing/math/sqrt-price-math';
import { computeSwapStep } from '../../shared/routing/math/swap-math';
import {
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from '../../shared/routing/math/tick-math';
import { simulateV3ExactIn, type V3PoolState } from '../../shared/routing/math/v3-swap';

const Q96 = 2n ** 96n;
const Q128 = 2n ** 128n;
const E18 = 10n ** 18n;
/** v3-core's encodePriceSqrt: floor(sqrt(reserve1 / reserve0) * 2^96). */
const encodePriceSqrt = (reserve1: bigint, reserve0: bigint) => isqrt((reserve1 << 192n) / reserve0);

describe('TickMath', () => {
  it('maps the known ticks to v3-core values', () => {
    expect(getSqrtRatioAtTick(MIN_TICK)).toBe(4295128739n);
    expect(getSqrtRatioAtTick(MIN_TICK + 1)).toBe(4295343490n);
    expect(getSqrtRatioAtTick(MAX_TICK - 1)).toBe(1461373636630004318706518188784493106690254656249n);
    expect(getSqrtRatioAtTick(MAX_TICK)).toBe(1461446703485210103287273052203988822378723970342n);
    expect(getSqrtRatioAtTick(MIN_TICK)).toBe(MIN_SQRT_RATIO);
    expect(getSqrtRatioAtTick(MAX_TICK)).toBe(MAX_SQRT_RATIO);
    expect(getSqrtRatioAtTick(0)).toBe(Q96);
  });

  it('maps the known sqrt ratios to v3-core ticks', () => {
    expect(getTickAtSqrtRatio(MIN_SQRT_RATIO)).toBe(MIN_TICK);
    expect(getTickAtSqrtRatio(4295343490n)).toBe(MIN_TICK + 1);
    expect(getTickAtSqrtRatio(1461373636630004318706518188784493106690254656249n)).toBe(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(MAX_SQRT_RATIO - 1n)).toBe(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(Q96)).toBe(0);
    expect(getTickAtSqrtRatio(Q96 - 1n)).toBe(-1);
  });

  it('rejects ticks and ratios out of range as the library reverts', () => {
    expect(() => getSqrtRatioAtTick(MIN_TICK - 1)).toThrow(/\(T\)/);
    expect(() => getSqrtRatioAtTick(MAX_TICK + 1)).toThrow(/\(T\)/);
    expect(() => getTickAtSqrtRatio(MIN_SQRT_RATIO - 1n)).toThrow(/\(R\)/);
    expect(() => getTickAtSqrtRatio(MAX_SQRT_RATIO)).toThrow(/\(R\)/);
  });

  it('stays within 1e-6 of sqrt(1.0001^tick) * 2^96 for ticks v3-core checks', () => {
    for (const absTick of [
      50, 100, 250, 500, 1000, 2500, 3000, 4000, 5000, 50000, 150000, 250000, 500000, 738203,
    ]) {
      for (const tick of [-absTick, absTick]) {
        const expected = Math.sqrt(1.0001 ** tick) * 2 ** 96;
        const actual = Number(getSqrtRatioAtTick(tick));
        expect(Math.abs(actual - expected) / expected).toBeLessThan(1e-6);
      }
    }
  });

  it('inverts getSqrtRatioAtTick: the tick of a tick ratio is that tick, one unit below is the tick before', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TICK, max: MAX_TICK - 1 }), (tick) => {
        const ratio = getSqrtRatioAtTick(tick);
        expect(getTickAtSqrtRatio(ratio)).toBe(tick);
        if (tick > MIN_TICK) expect(getTickAtSqrtRatio(ratio - 1n)).toBe(tick - 1);
        expect(getSqrtRatioAtTick(tick + 1)).toBeGreaterThan(ratio);
      }),
      { numRuns: 2000 },
    );
  });

  it('brackets any ratio between its tick and the next', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_SQRT_RATIO, max: MAX_SQRT_RATIO - 1n }), (ratio) => {
        const tick = getTickAtSqrtRatio(ratio);
        expect(getSqrtRatioAtTick(tick)).toBeLessThanOrEqual(ratio);
        if (tick < MAX_TICK) expect(getSqrtRatioAtTick(tick + 1)).toBeGreaterThan(ratio);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('FullMath', () => {
  it('throws where mulDiv reverts', () => {
    expect(() => mulDiv(Q128, 5n, 0n)).toThrow(RangeError);
    expect(() => mulDiv(Q128, Q128, 0n)).toThrow(RangeError);
    expect(() => mulDiv(Q128, Q128, 1n)).toThrow(/overflows/);
    expect(() => mulDiv(MAX_UINT256, MAX_UINT256, MAX_UINT256 - 1n)).toThrow(/overflows/);
  });

  it('computes v3-core mulDiv cases, including phantom overflow', () => {
    expect(mulDiv(MAX_UINT256, MAX_UINT256, MAX_UINT256)).toBe(MAX_UINT256);
    expect(mulDiv(Q128, (50n * Q128) / 100n, (150n * Q128) / 100n)).toBe(Q128 / 3n);
    expect(mulDiv(Q128, 35n * Q128, 8n * Q128)).toBe((4375n * Q128) / 1000n);
    expect(mulDiv(Q128, 1000n * Q128, 3000n * Q128)).toBe(Q128 / 3n);
  });

  it('rounds up and throws where mulDivRoundingUp reverts', () => {
    expect(mulDivRoundingUp(MAX_UINT256, MAX_UINT256, MAX_UINT256)).toBe(MAX_UINT256);
    expect(mulDivRoundingUp(Q128, (50n * Q128) / 100n, (150n * Q128) / 100n)).toBe(Q128 / 3n + 1n);
    expect(mulDivRoundingUp(Q128, 35n * Q128, 8n * Q128)).toBe((4375n * Q128) / 1000n);
    expect(mulDivRoundingUp(Q128, 1000n * Q128, 3000n * Q128)).toBe(Q128 / 3n + 1n);
    expect(() =>
      mulDivRoundingUp(
        535006138814359n,
        432862656469423142931042426214547535783388063929571229938474969n,
        2n,
      ),
    ).toThrow(/overflows/);
    expect(() =>
      mulDivRoundingUp(
        115792089237316195423570985008687907853269984659341747863450311749907997002549n,
        115792089237316195423570985008687907853269984659341747863450311749907997002550n,
        115792089237316195423570985008687907853269984653042931687443039491902864365164n,
      ),
    ).toThrow(/overflows/);
  });

  it('matches floor and ceil of the exact quotient', () => {
    const uint = fc.bigInt({ min: 0n, max: MAX_UINT256 });
    fc.assert(
      fc.property(uint, uint, fc.bigInt({ min: 1n, max: MAX_UINT256 }), (a, b, d) => {
        const exact = (a * b) / d;
        fc.pre(exact < MAX_UINT256);
        expect(mulDiv(a, b, d)).toBe(exact);
        expect(mulDivRoundingUp(a, b, d)).toBe((a * b) % d === 0n ? exact : exact + 1n);
      }),
    );
  });
});

describe('SqrtPriceMath and LiquidityMath', () => {
  it('computes v3-core amount deltas', () => {
    const p1 = encodePriceSqrt(1n, 1n);
    const p121 = encodePriceSqrt(121n, 100n);
    expect(getAmount0Delta(p1, p121, E18, true)).toBe(90909090909090910n);
    expect(getAmount0Delta(p1, p121, E18, false)).toBe(90909090909090909n);
    expect(getAmount1Delta(p1, p121, E18, true)).toBe(100000000000000000n);
    expect(getAmount1Delta(p1, p121, E18, false)).toBe(99999999999999999n);
    expect(getAmount0Delta(p1, p1, E18, true)).toBe(0n);
  });

  it('adds liquidity deltas and throws on under/overflow', () => {
    expect(addDelta(1n, -1n)).toBe(0n);
    expect(addDelta(1n, 2n)).toBe(3n);
    expect(() => addDelta(0n, -1n)).toThrow(/LS/);
    expect(() => addDelta(2n ** 128n - 15n, 15n)).toThrow(/LA/);
  });
});

describe('SwapMath.computeSwapStep (v3-core cases)', () => {
  const price = encodePriceSqrt(1n, 1n);

  it('exact in capped at the price target, one for zero', () => {
    const target = encodePriceSqrt(101n, 100n);
    const step = computeSwapStep(price, target, 2n * E18, E18, 600);
    expect(step).toEqual({
      sqrtRatioNextX96: target,
      amountIn: 9975124224178055n,
      amountOut: 9925619580021728n,
      feeAmount: 5988667735148n,
    });
  });

  it('exact out capped at the price target, one for zero', () => {
    const target = encodePriceSqrt(101n, 100n);
    const step = computeSwapStep(price, target, 2n * E18, -E18, 600);
    expect(step).toEqual({
      sqrtRatioNextX96: target,
      amountIn: 9975124224178055n,
      amountOut: 9925619580021728n,
      feeAmount: 5988667735148n,
    });
  });

  it('exact in fully spent, one for zero', () => {
    const target = encodePriceSqrt(1000n, 100n);
    const step = computeSwapStep(price, target, 2n * E18, E18, 600);
    expect(step.amountIn).toBe(999400000000000000n);
    expect(step.feeAmount).toBe(600000000000000n);
    expect(step.amountOut).toBe(666399946655997866n);
    expect(step.sqrtRatioNextX96).toBeLessThan(target);
    expect(step.amountIn + step.feeAmount).toBe(E18);
  });

  it('exact out fully received, one for zero', () => {
    const target = encodePriceSqrt(10000n, 100n);
    const step = computeSwapStep(price, target, 2n * E18, -E18, 600);
    expect(step.amountIn).toBe(2000000000000000000n);
    expect(step.feeAmount).toBe(1200720432259356n);
    expect(step.amountOut).toBe(E18);
    expect(step.sqrtRatioNextX96).toBeLessThan(target);
  });

  it('caps the amount out at the desired amount out', () => {
    const step = computeSwapStep(
      417332158212080721273783715441582n,
      1452870262520218020823638996n,
      159344665391607089467575320103n,
      -1n,
      1,
    );
    expect(step).toEqual({
      sqrtRatioNextX96: 417332158212080721273783715441581n,
      amountIn: 1n,
      amountOut: 1n,
      feeAmount: 1n,
    });
  });

  it('uses part of the input at a target price of 1', () => {
    const step = computeSwapStep(2n, 1n, 1n, 3915081100057732413702495386755767n, 1);
    expect(step).toEqual({
      sqrtRatioNextX96: 1n,
      amountIn: 39614081257132168796771975168n,
      amountOut: 0n,
      feeAmount: 39614120871253040049813n,
    });
  });

  it('takes the entire input as fee', () => {
    const step = computeSwapStep(2413n, 79887613182836312n, 1985041575832132834610021537970n, 10n, 1872);
    expect(step).toEqual({ sqrtRatioNextX96: 2413n, amountIn: 0n, amountOut: 0n, feeAmount: 10n });
  });

  it('handles intermediate insufficient liquidity in exact output, zero for one and one for zero', () => {
    const sqrtP = 20282409603651670423947251286016n;
    const up = computeSwapStep(sqrtP, (sqrtP * 11n) / 10n, 1024n, -4n, 3000);
    expect(up).toEqual({
      sqrtRatioNextX96: (sqrtP * 11n) / 10n,
      amountIn: 26215n,
      amountOut: 0n,
      feeAmount: 79n,
    });
    const down = computeSwapStep(sqrtP, (sqrtP * 9n) / 10n, 1024n, -263000n, 3000);
    expect(down).toEqual({
      sqrtRatioNextX96: (sqrtP * 9n) / 10n,
      amountIn: 1n,
      amountOut: 26214n,
      feeAmount: 1n,
    });
  });
});

describe('simulateV3ExactIn', () => {
  const pool = (ticks: V3PoolState['ticks'], liquidity = 10n ** 20n): V3PoolState => ({
    sqrtPriceX96: Q96,
    tick: 0,
    liquidity,
    fee: 3000,
    tickSpacing: 60,
    ticks,
  });

  it('equals one swap step within a range', () => {
    const state = pool([
      { index: -600, liquidityNet: 10n ** 20n },
      { index: 600, liquidityNet: -(10n ** 20n) },
    ]);
    const result = simulateV3ExactIn(state, true, 10n ** 15n);
    const step = computeSwapStep(Q96, getSqrtRatioAtTick(-600), 10n ** 20n, 10n ** 15n, 3000);
    expect(result.amountOut).toBe(step.amountOut);
    expect(result.sqrtPriceX96After).toBe(step.sqrtRatioNextX96);
    expect(result.tickAfter).toBe(getTickAtSqrtRatio(step.sqrtRatioNextX96));
    expect(result.ticksCrossed).toBe(0);
    expect(result.amountIn).toBe(10n ** 15n);
  });

  it('crosses ticks with the liquidityNet sign of the direction and stops at the limit', () => {
    const L = 10n ** 20n;
    const state = pool([
      { index: -120, liquidityNet: L },
      { index: -60, liquidityNet: L },
      { index: 60, liquidityNet: -L },
      { index: 120, liquidityNet: -L },
    ]);
    state.liquidity = 2n * L;
    const down = simulateV3ExactIn(state, true, 10n ** 30n, getSqrtRatioAtTick(-90));
    expect(down.ticksCrossed).toBe(1);
    expect(down.liquidityAfter).toBe(L);
    expect(down.sqrtPriceX96After).toBe(getSqrtRatioAtTick(-90));
    expect(down.amountIn).toBeLessThan(10n ** 30n);
    const up = simulateV3ExactIn(state, false, 10n ** 30n, getSqrtRatioAtTick(150));
    expect(up.ticksCrossed).toBe(2);
    expect(up.liquidityAfter).toBe(0n);
    expect(up.tickAfter).toBe(150);
  });

  it('rejects a limit on the wrong side of the price (SPL)', () => {
    expect(() => simulateV3ExactIn(pool([]), true, 1n, Q96 + 1n)).toThrow(/SPL/);
    expect(() => simulateV3ExactIn(pool([]), false, 1n, MAX_SQRT_RATIO)).toThrow(/SPL/);
  });
});
