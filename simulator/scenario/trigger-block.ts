/**
 * The first block at or after `fromBlock` whose path price reaches the order's trigger, or null if none does.
 * Prices are QUOTE per BASE; the trigger is units of `buy` per 1 `sell`, so an order selling the base is reached
 * when price >= trigger and an order selling the quote when 1 / price >= trigger.
 */
export function triggeredAtBlock(
  order: { sellsBase: boolean; trigger: string },
  prices: readonly number[],
  fromBlock: number,
): number | null {
  const trigger = Number(order.trigger);
  if (!(trigger > 0 && Number.isFinite(trigger))) {
    throw new Error(`trigger ${JSON.stringify(order.trigger)} is not a number greater than 0`);
  }
  for (let b = Math.max(0, fromBlock); b < prices.length; b++) {
    const price = prices[b]!;
    if (order.sellsBase ? price >= trigger : 1 / price >= trigger) return b;
  }
  return null;
}
