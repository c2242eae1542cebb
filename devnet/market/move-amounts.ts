import { isqrt } from '../world/v3-math';

/** Fixed-point scale of the move factor (1 + by). */
export const FACTOR_SCALE = 10n ** 18n;

/** 1 + by as a FACTOR_SCALE fixed-point integer; by is a fraction (0.05 = +5 %), > -1 and not 0. */
export function moveFactor(by: number): bigint {
  if (!Number.isFinite(by) || by <= -1 || by === 0)
    throw new Error(`by must be a non-zero fraction > -1, got ${by}`);
  return BigInt(Math.round((1 + by) * 1e18));
}

/**
 * Input amount that takes a Uniswap V2 pool (0.3 % fee, γ = 997/1000) from reserves (rIn, rOut) to
 * rIn'/rOut' = k · rIn/rOut with k = kNum/kDen > 1. With Δ in and γΔ effective:
 *   rIn' = rIn + Δ, rOut' = rOut · rIn / (rIn + γΔ)  ⇒  (rIn + Δ)(rIn + γΔ) = k · rIn²
 *   ⇒ γΔ² + (1+γ) rIn Δ + (1−k) rIn² = 0
 *   ⇒ Δ = rIn · (√((1+γ)² + 4γ(k−1)) − (1+γ)) / (2γ), in integers with γ = g/d.
 */
export function v2AmountInForRatio(reserveIn: bigint, kNum: bigint, kDen: bigint): bigint {
  if (kNum <= kDen) throw new Error('the ratio of the input reserve must grow');
  const g = 997n;
  const d = 1000n;
  // Everything under the root is multiplied by (d·kDen)² so it stays an integer.
  const root = isqrt((d + g) ** 2n * kDen ** 2n + 4n * g * d * (kNum - kDen) * kDen);
  return (reserveIn * (root - (d + g) * kDen)) / (2n * g * kDen);
}

/** The V3 sqrtPriceX96 at which the price of token0 in token1 is `factor` (fixed point) times the current one. */
export function v3TargetSqrtPrice(sqrtPriceX96: bigint, factor: bigint): bigint {
  return (sqrtPriceX96 * isqrt(factor * FACTOR_SCALE)) / FACTOR_SCALE;
}

/** The V3 sqrtPriceX96 at which the price of token0 in token1 is the current one divided by `factor`. */
export function v3TargetSqrtPriceInverse(sqrtPriceX96: bigint, factor: bigint): bigint {
  return (sqrtPriceX96 * FACTOR_SCALE) / isqrt(factor * FACTOR_SCALE);
}
