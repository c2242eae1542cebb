/**
 * Exact Balancer V2 weighted pool swap, given in, in bigint: what the Vault gets from the pool's onSwap
 * (BaseMinimalSwapInfoPool of the weighted pool versions 2 and later). The weighted formula itself comes from
 * @balancer-labs/balancer-maths, whose fixed-point helpers and LogExpMath are a line-by-line port of the V2
 * Solidity ones (Balancer V3 kept them); its powUp has the exponent 1, 2 and 4 shortcuts that V2's
 * FixedPoint.powUp has since the weighted pool V2 (the 2021 V1 pool lacks them: an 80/20 pool's 4.0 exponent
 * would differ by rounding there).
 */
import { _computeOutGivenExactIn } from '@balancer-labs/balancer-maths';

export interface WeightedMathState {
  balance0: bigint;
  balance1: bigint;
  weight0: bigint;
  weight1: bigint;
  scalingFactor0: bigint;
  scalingFactor1: bigint;
  swapFee: bigint;
}

const ONE = 10n ** 18n;

/** FixedPoint.mulUp: rounds towards the pool (a larger fee). */
export function mulUp(a: bigint, b: bigint): bigint {
  const product = a * b;
  return product === 0n ? 0n : (product - 1n) / ONE + 1n;
}

export function mulDown(a: bigint, b: bigint): bigint {
  return (a * b) / ONE;
}

export function divDown(a: bigint, b: bigint): bigint {
  return (a * ONE) / b;
}

/**
 * Output of `amountIn` of token 0 (zeroForOne) or token 1; undefined where the pool would revert (input above
 * 30% of the balance in, MAX_IN_RATIO; the power out of LogExpMath's bounds) or for an empty pool.
 */
export function weightedAmountOut(
  pool: WeightedMathState,
  zeroForOne: boolean,
  amountIn: bigint,
): bigint | undefined {
  const [balanceIn, balanceOut, weightIn, weightOut, scalingIn, scalingOut] = zeroForOne
    ? [pool.balance0, pool.balance1, pool.weight0, pool.weight1, pool.scalingFactor0, pool.scalingFactor1]
    : [pool.balance1, pool.balance0, pool.weight1, pool.weight0, pool.scalingFactor1, pool.scalingFactor0];
  if (amountIn <= 0n || balanceIn <= 0n || balanceOut <= 0n || weightIn <= 0n || weightOut <= 0n)
    return undefined;
  if (scalingIn <= 0n || scalingOut <= 0n) return undefined;
  // The fee comes off the raw amount before scaling, rounded up (_subtractSwapFeeAmount).
  const afterFee = amountIn - mulUp(amountIn, pool.swapFee);
  let amountOutScaled: bigint;
  try {
    amountOutScaled = _computeOutGivenExactIn(
      mulDown(balanceIn, scalingIn),
      weightIn,
      mulDown(balanceOut, scalingOut),
      weightOut,
      mulDown(afterFee, scalingIn),
    );
  } catch {
    // MaxInRatio, or LogExpMath's bounds: the pool's _require reverts the swap.
    return undefined;
  }
  // _downscaleDown: tokens leaving the pool round down.
  return divDown(amountOutScaled, scalingOut);
}
