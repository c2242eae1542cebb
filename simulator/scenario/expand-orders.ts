import { marketOfOrder } from './market-lookup';
import { ScenarioError } from './scenario-error';
import type { PlannedDca, PlannedLimitOrder, PlannedOrders, Scenario, TriggerRange } from './scenario-types';

// Plain digits at any magnitude (the API takes no exponent); 10 significant digits hide the float's noise.
const triggerFormat = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 10, useGrouping: false });

/** The trigger of order `i` of `count`: a range spread evenly from `from` to `to`, both included. */
export function spreadTrigger(trigger: string | TriggerRange, i: number, count: number): string {
  if (typeof trigger === 'string') return trigger;
  if (count === 1) return trigger.from;
  const from = Number(trigger.from);
  const to = Number(trigger.to);
  return triggerFormat.format(from + ((to - from) * i) / (count - 1));
}

function marketOf(s: Scenario, group: { chainId: number; sell: string; buy: string }, at: string) {
  const found = marketOfOrder(s.markets, group);
  // parseScenario refuses such a group; a scenario built in code may not have been through it.
  if (!found) {
    const pair = `${JSON.stringify(group.sell)} against ${JSON.stringify(group.buy)}`;
    throw new ScenarioError(`${at}: no market on chain ${group.chainId} trades ${pair}`);
  }
  return found;
}

/**
 * Every order and strategy the run places, with its maker. Makers are numbered across the whole run: each
 * limit-order group gets its own `makers` accounts (its orders take them in turn), then each DCA strategy one of its
 * own, so no two groups share a maker's balances and allowances.
 */
export function expandOrders(s: Scenario): PlannedOrders {
  let nextMaker = 0;
  const limit: PlannedLimitOrder[] = [];
  s.limitOrders.forEach((group, g) => {
    const { market, sellsBase } = marketOf(s, group, `limitOrders[${g}]`);
    const firstMaker = nextMaker;
    nextMaker += group.makers;
    for (let i = 0; i < group.count; i++) {
      limit.push({
        key: `L${g}.${i}`,
        group: g,
        chainId: group.chainId,
        pair: market.pair,
        sellsBase,
        sell: group.sell,
        buy: group.buy,
        amount: group.amount,
        trigger: spreadTrigger(group.trigger, i, group.count),
        atBlock: group.atBlock,
        ...(group.expiresAfterBlocks !== undefined ? { expiresAfterBlocks: group.expiresAfterBlocks } : {}),
        slippage: group.slippage,
        maker: firstMaker + (i % group.makers),
      });
    }
  });
  const dca: PlannedDca[] = [];
  s.dca.forEach((group, g) => {
    const { market, sellsBase } = marketOf(s, group, `dca[${g}]`);
    for (let i = 0; i < group.count; i++) {
      dca.push({
        key: `D${g}.${i}`,
        group: g,
        chainId: group.chainId,
        pair: market.pair,
        sellsBase,
        sell: group.sell,
        buy: group.buy,
        totalAmount: group.totalAmount,
        iterations: group.iterations,
        everyBlocks: group.everyBlocks,
        atBlock: group.atBlock,
        slippage: group.slippage,
        ...(group.minPrice !== undefined ? { minPrice: group.minPrice } : {}),
        ...(group.maxPrice !== undefined ? { maxPrice: group.maxPrice } : {}),
        maker: nextMaker++,
      });
    }
  });
  return { limit, dca, makers: nextMaker };
}
