/**
 * Prices at blocks 0..blocks, linear between knots [block, price] (blocks strictly ascending), flat before the
 * first knot and after the last.
 */
export function piecewiseLinear(knots: ReadonlyArray<readonly [number, number]>, blocks: number): number[] {
  const prices = new Array<number>(blocks + 1);
  let k = 0;
  for (let b = 0; b <= blocks; b++) {
    while (k < knots.length - 1 && knots[k + 1]![0] <= b) k++;
    const [x0, y0] = knots[k]!;
    const next = knots[k + 1];
    if (b <= x0 || next === undefined) prices[b] = y0;
    else prices[b] = y0 + ((next[1] - y0) * (b - x0)) / (next[0] - x0);
  }
  return prices;
}
