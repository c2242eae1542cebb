/**
 * Base units iteration k spends. Every iteration spends floor(total / iterations) and the last one also takes
 * the remainder, so the iterations sum to the total exactly and no iteration spends more than the budget.
 */
export function iterationAmount(totalAmountBaseUnits: bigint, iterations: number, k: number): bigint {
  if (totalAmountBaseUnits < 0n)
    throw new RangeError(`DCA total amount must be >= 0, got ${totalAmountBaseUnits}`);
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new RangeError(`DCA iterations must be an integer >= 1, got ${iterations}`);
  }
  if (!Number.isInteger(k) || k < 0 || k >= iterations) {
    throw new RangeError(`DCA iteration index must be in [0, ${iterations}), got ${k}`);
  }
  const n = BigInt(iterations);
  const base = totalAmountBaseUnits / n;
  return k === iterations - 1 ? base + (totalAmountBaseUnits % n) : base;
}
