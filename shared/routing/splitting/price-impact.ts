/**
 * Price impact of a split: its exact output against what the same inputs would get at each route's marginal
 * price (every hop's spot rate, net of the pool's fee). Floats: the figure bounds a quote, it is never an amount.
 */
import { estimateHop } from '../pools/pool-estimate';
import type { Split } from './best-split';

/** Output per unit of input at the route's current marginal prices, net of fees. */
export function spotRate(split: Pick<Split, 'route'>): number {
  const { pools, path } = split.route;
  let rate = 1;
  for (let i = 0; i < pools.length; i++) rate *= estimateHop(pools[i]!, path[i]!, 0);
  return rate;
}

/** The splits' total output at marginal prices (base units, float). */
export function spotAmountOut(splits: readonly Pick<Split, 'route' | 'amountIn'>[]): number {
  return splits.reduce((sum, s) => sum + Number(s.amountIn) * spotRate(s), 0);
}

/**
 * Basis points by which `amountOut` falls short of `spotOut` (0 when at or above it). A spot output that cannot be
 * told (0, not finite) is full impact: a route we cannot price at the margin is not offered.
 */
export function priceImpactBps(amountOut: bigint, spotOut: number): number {
  if (!Number.isFinite(spotOut) || spotOut <= 0) return 10_000;
  const impact = (1 - Number(amountOut) / spotOut) * 10_000;
  return impact > 0 ? impact : 0;
}
