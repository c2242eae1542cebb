import { loadArtifact } from '../../contracts-abi/artifacts';
import type { TxQueue } from './tx-queue';
import type { WorldSpec } from './world-spec';

/**
 * One USD feed (TestPriceFeed, Chainlink's shape, 8 decimals) per token of the world at its reference price: the
 * OrderExecutor's price bound for pairs that no Uniswap V3 pool prices (the SushiSwap-, Balancer- and
 * StableSwap-only tokens), as Chainlink's feeds serve them on a real chain.
 */
export function queuePriceFeeds(
  queue: TxQueue,
  spec: WorldSpec,
  addressOf: (symbol: string) => string,
): Array<{ token: string; feed: string }> {
  const artifact = loadArtifact('TestPriceFeed');
  const symbols = [...new Set([spec.wrapped.symbol, ...spec.tokens.map((t) => t.symbol)])];
  const all = [spec.wrapped, ...spec.tokens];
  return symbols.map((symbol) => {
    const token = all.find((t) => t.symbol === symbol)!;
    // micro-USD (6 decimals) to the feed's 8.
    const answer = token.usdMicros * 100n;
    const feed = queue.deploy(`TestPriceFeed ${symbol}`, artifact, [queue.address, answer]);
    return { token: addressOf(symbol), feed };
  });
}
