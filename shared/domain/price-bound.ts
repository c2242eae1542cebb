/**
 * The OrderExecutor's price bound of a pair as the contract applies it (PriceBound.minimumAtBound): the bound price
 * (Q128, out base units per in base unit) and the deviation allowed below it. The keeper plans with it; a
 * simulation run judges with it which orders the market could fill.
 */
export interface PairBound {
  priceX128: bigint;
  deviationBps: bigint;
}

const Q128 = 1n << 128n;

/** floor(floor(amountIn × price / 2^128) × (10⁴ − deviation) / 10⁴): the contract's arithmetic exactly. */
export function minimumAtBound(amountIn: bigint, bound: PairBound): bigint {
  return (((amountIn * bound.priceX128) / Q128) * (10_000n - bound.deviationBps)) / 10_000n;
}
