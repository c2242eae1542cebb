import type { MarketSpec } from './scenario-types';

/** "BASE/QUOTE" into its symbols; the schema guarantees exactly one "/" with text on both sides. */
export function splitPair(pair: string): { base: string; quote: string } {
  const [base = '', quote = ''] = pair.split('/');
  return { base, quote };
}

/**
 * The market of `chainId` whose base and quote are {sell, buy}, either way round, and whether the order sells the
 * base; undefined when the chain has no such market.
 */
export function marketOfOrder(
  markets: readonly MarketSpec[],
  order: { chainId: number; sell: string; buy: string },
): { market: MarketSpec; base: string; quote: string; sellsBase: boolean } | undefined {
  for (const market of markets) {
    if (market.chainId !== order.chainId) continue;
    const { base, quote } = splitPair(market.pair);
    if (base === order.sell && quote === order.buy) return { market, base, quote, sellsBase: true };
    if (base === order.buy && quote === order.sell) return { market, base, quote, sellsBase: false };
  }
  return undefined;
}
