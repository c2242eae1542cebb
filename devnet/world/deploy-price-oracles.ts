import { loadArtifact } from '../../contracts-abi/artifacts';
import type { PriceOracle } from './deploy-service-contracts';
import type { TxQueue } from './tx-queue';
import { v3PoolAddress } from './uniswap-pool-address';
import type { WorldSpec } from './world-spec';

/**
 * Each token's price source for the OrderExecutor's bound, as an operator would configure a live chain: the
 * Uniswap V3 pool of the token against the wrapped native (the 0.05 % one where there is one), else a USD feed
 * (TestPriceFeed, Chainlink's shape, 8 decimals, at the token's reference price: the SushiSwap-, Balancer- and
 * StableSwap-only tokens). The wrapped native gets a feed too: it converts between the two units.
 */
export function queuePriceOracles(
  queue: TxQueue,
  spec: WorldSpec,
  addressOf: (symbol: string) => string,
  uniswapV3Factory: string,
): PriceOracle[] {
  const feedArtifact = loadArtifact('TestPriceFeed');
  const wrapped = spec.wrapped.symbol;
  const symbols = [...new Set([wrapped, ...spec.tokens.map((t) => t.symbol)])];
  const all = [spec.wrapped, ...spec.tokens];
  return symbols.map((symbol): PriceOracle => {
    const token = addressOf(symbol);
    const pools = spec.v3Pools
      .filter(
        (p) =>
          symbol !== wrapped && [p.base, p.quote].includes(symbol) && [p.base, p.quote].includes(wrapped),
      )
      .sort((a, b) => Math.abs(a.fee - 500) - Math.abs(b.fee - 500));
    const pool = pools[0];
    if (pool) {
      return {
        token,
        kind: 'v3-weth-pool',
        source: v3PoolAddress(uniswapV3Factory, token, addressOf(wrapped), pool.fee),
      };
    }
    // micro-USD (6 decimals) to the feed's 8.
    const answer = all.find((t) => t.symbol === symbol)!.usdMicros * 100n;
    const feed = queue.deploy(`TestPriceFeed ${symbol}`, feedArtifact, [queue.address, answer]);
    return { token, kind: 'usd-feed', source: feed };
  });
}
