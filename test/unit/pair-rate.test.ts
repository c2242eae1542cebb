import { pairRate } from '../../shared/routing/prices/pair-price';
import { connectorsOf, QuoteEngine } from '../../shared/routing/quote-engine';
import { PoolStateCache } from '../../shared/routing/sources/pool-state-cache';
import { fullRange, token, v3Pool } from '../helpers/routing-pools';

const WETH = token(1);
const USDC = token(2);
const CHAIN_ID = 1;
const HEAD = { number: 10, hash: '0x' + '11'.repeat(32) };

/**
 * WETH/USDC on one Uniswap V3 pool at 0.05 %, about 3,000 USDC per WETH (token0 is WETH: the tick prices USDC base
 * units per wei, ln(1 / 3.33e8) / ln(1.0001) ≈ −196,250) and about 6M USD deep.
 */
function market(): QuoteEngine {
  const cache = new PoolStateCache();
  cache.put(CHAIN_ID, HEAD, [v3Pool(WETH, USDC, -196_250, [fullRange(110n * 10n ** 15n, 10)], 500, 10)]);
  return new QuoteEngine(cache, [
    {
      chainId: CHAIN_ID,
      wrappedNative: WETH,
      connectors: connectorsOf(WETH, [{ address: USDC, symbol: 'USDC' }]),
      sources: [{ id: 'uniswap-v3', name: 'Uniswap V3' }],
    },
  ]);
}

describe('pairRate', () => {
  it('never rates a 6-decimal token below what a real order of it gets: the pool fee rounds on the probe too', () => {
    const engine = market();
    const rate = pairRate(engine, CHAIN_ID, { address: USDC, decimals: 6 }, { address: WETH, decimals: 18 })!;
    const amountIn = 600n * 10n ** 6n;
    const out = engine.quote({ chainId: CHAIN_ID, tokenIn: USDC, tokenOut: WETH, amountIn, gasPriceWei: 0n })!
      .quotes[0]!.amountOut;
    // The keeper's screen of limit orders compares triggers with this rate: below the real rate of an order's own
    // amount it would hold back orders the market pays (a 1/1000-USDC probe paid a whole base unit of fee, 0.1 %).
    expect(rate.probeOut * amountIn).toBeGreaterThanOrEqual(out * rate.probeIn);
    // And it stays a market rate: within the pool's fee of the spot, not above it.
    expect(rate.price).toBeGreaterThan(1 / 3100);
    expect(rate.price).toBeLessThan(1 / 2900);
  });
});
