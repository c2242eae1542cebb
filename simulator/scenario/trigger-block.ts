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
    if (inTriggerUnits(order.sellsBase, prices[b]!) >= trigger) return b;
  }
  return null;
}

/** A path price (QUOTE per BASE) in a trigger's units (`buy` per 1 `sell`): itself for a base seller, else 1 / price. */
export function inTriggerUnits(sellsBase: boolean, price: number): number {
  return sellsBase ? price : 1 / price;
}
