import { v2AmountOut } from '../../shared/routing/math/uniswap-v2-math';
import { connectorsOf, QuoteEngine, SMART_ROUTER_ID } from '../../shared/routing/quote-engine';
import { PoolStateCache } from '../../shared/routing/sources/pool-state-cache';
import { NATIVE_TOKEN_KEY } from '../../shared/domain/addresses';
import { token, v2Pool } from '../helpers/routing-pools';

const WETH = token(1);
const USDC = token(2);
const LINK = token(3);
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const CHAIN_ID = 1;
const HEAD = { number: 10, hash: '0x' + '11'.repeat(32) };

const small = { ...v2Pool(WETH, USDC, 100n * E18, 300_000n * E6), sourceId: 'small' };
const deep = { ...v2Pool(WETH, USDC, 1_000n * E18, 3_000_000n * E6), sourceId: 'deep' };

function engine(cache = new PoolStateCache(), maxPriceImpactBps?: number): QuoteEngine {
  return new QuoteEngine(
    cache,
    [
      {
        chainId: CHAIN_ID,
        wrappedNative: WETH,
        connectors: connectorsOf(WETH, [
          { address: USDC, symbol: 'USDC' },
          { address: LINK, symbol: 'LINK' },
        ]),
        sources: [
          { id: 'small', name: 'Small DEX' },
          { id: 'deep', name: 'Deep DEX' },
        ],
      },
    ],
    { maxPriceImpactBps },
  );
}

function loaded(maxPriceImpactBps?: number): QuoteEngine {
  const cache = new PoolStateCache();
  cache.put(CHAIN_ID, HEAD, [small, deep]);
  return engine(cache, maxPriceImpactBps);
}

const request = { chainId: CHAIN_ID, tokenIn: WETH, tokenOut: USDC, amountIn: 10n * E18, gasPriceWei: 0n };

describe('QuoteEngine', () => {
  it('connectors are the wrapped native and the listed stables', () => {
    expect(connectorsOf(WETH, [{ address: USDC.toUpperCase().replace('0X', '0x'), symbol: 'usdc' }])).toEqual(
      [WETH, USDC],
    );
  });

  it('finds no route before the first refresh', () => {
    expect(engine().quote(request)).toBeUndefined();
  });

  it('quotes each source over its own pools and our router over all of them, best first', () => {
    const result = loaded().quote(request)!;
    expect(result.blockNumber).toBe(10);
    const byId = new Map(result.quotes.map((q) => [q.sourceId, q]));
    expect([...byId.keys()].sort()).toEqual(['deep', 'small', SMART_ROUTER_ID]);
    // One pool per source: its exact V2 output.
    const [reserveIn, reserveOut] =
      deep.token0 === WETH ? [deep.reserve0, deep.reserve1] : [deep.reserve1, deep.reserve0];
    expect(byId.get('deep')!.amountOut).toBe(v2AmountOut(10n * E18, reserveIn, reserveOut, 30n));
    // Splitting over both pools beats either alone (gas is free here).
    expect(result.quotes[0]!.sourceId).toBe(SMART_ROUTER_ID);
    expect(result.quotes[0]!.splits).toHaveLength(2);
    for (let i = 1; i < result.quotes.length; i++) {
      expect(result.quotes[i - 1]!.netAmountOut >= result.quotes[i]!.netAmountOut).toBe(true);
    }
  });

  it('answers a request repeated on one snapshot with the same frozen answer, and a new block afresh', () => {
    const cache = new PoolStateCache();
    cache.put(CHAIN_ID, HEAD, [small, deep]);
    const e = engine(cache);
    const first = e.quote(request)!;
    expect(e.quote({ ...request })).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.quotes) && Object.isFrozen(first.quotes[0])).toBe(
      true,
    );
    // Any other amount, gas price or exclusion is its own search.
    expect(e.quote({ ...request, amountIn: request.amountIn + 1n })).not.toBe(first);
    expect(e.quote({ ...request, gasPriceWei: 1n })).not.toBe(first);
    const without = e.quote({ ...request, excludeSourceIds: ['deep'] })!;
    expect(without.quotes.map((q) => q.sourceId)).not.toContain('deep');
    expect(e.quote({ ...request, excludeSourceIds: ['deep', 'deep'] })).toBe(without);
    // The next block's pools: the deep pool twice as deep, so the answer changes with them.
    const deeper = { ...deep, reserve0: deep.reserve0 * 2n, reserve1: deep.reserve1 * 2n };
    cache.put(CHAIN_ID, { number: 11, hash: '0x' + '22'.repeat(32) }, [small, deeper]);
    const next = e.quote(request)!;
    expect(next.blockNumber).toBe(11);
    expect(next.quotes[0]!.amountOut).toBeGreaterThan(first.quotes[0]!.amountOut);
  });

  it('offers no route losing more than the price-impact bound to its pools, and says what each one loses', () => {
    // 1,100 WETH into 1,100 WETH of reserves: about half the USDC side, far beyond 15%.
    const huge = { ...request, amountIn: 1_100n * E18 };
    expect(loaded().quote(huge)).toBeUndefined();
    expect(loaded().quote({ ...request, amountIn: 10n ** 30n })).toBeUndefined();
    // 10 WETH: the small pool alone loses about 9% to impact (R / (R + 10 * 0.997)), the deep one about 1%.
    const result = loaded().quote(request)!;
    const impact = new Map(result.quotes.map((q) => [q.sourceId, q.priceImpactBps]));
    expect(impact.get('small')).toBeCloseTo(10_000 * (1 - 100 / (100 + 9.97)), 0);
    expect(impact.get('deep')).toBeCloseTo(10_000 * (1 - 1_000 / (1_000 + 9.97)), 0);
    // The bound is the operator's: at 500 bps the small pool's quote is no longer offered.
    expect(
      loaded(500)
        .quote(request)!
        .quotes.map((q) => q.sourceId),
    ).toEqual([SMART_ROUTER_ID, 'deep']);
    // Marginal output at the pools' prices, net of the 0.3% fee: 10 WETH at 3,000 USDC.
    expect(result.spotAmountOut).toBeCloseTo(10 * 3_000 * 0.997 * 1e6, -3);
    expect(() => engine(new PoolStateCache(), 10_001)).toThrow(RangeError);
  });

  it('leaves excluded aggregators unasked, while our router still combines every source', () => {
    const all = loaded().quote(request)!;
    const smart = all.quotes.find((q) => q.sourceId === SMART_ROUTER_ID)!;
    const result = loaded().quote({ ...request, excludeSourceIds: ['deep'] })!;
    expect(result.quotes.map((q) => q.sourceId)).toEqual([SMART_ROUTER_ID, 'small']);
    expect(result.quotes[0]!.amountOut).toBe(smart.amountOut);
    // Every id but one excluded: that one's quote alone, our router's included.
    const onlySmart = loaded().quote({ ...request, excludeSourceIds: ['deep', 'small'] })!;
    expect(onlySmart.quotes.map((q) => q.sourceId)).toEqual([SMART_ROUTER_ID]);
    expect(onlySmart.quotes[0]!.amountOut).toBe(smart.amountOut);
    const onlySmall = loaded().quote({ ...request, excludeSourceIds: ['deep', SMART_ROUTER_ID] })!;
    expect(onlySmall.quotes.map((q) => q.sourceId)).toEqual(['small']);
    expect(
      loaded().quote({ ...request, excludeSourceIds: ['deep', 'small', SMART_ROUTER_ID] }),
    ).toBeUndefined();
  });

  it('routes the native pseudo-address as the wrapped token, and never native to wrapped', () => {
    const viaWeth = loaded().quote(request)!;
    const viaNative = loaded().quote({ ...request, tokenIn: NATIVE_TOKEN_KEY.toUpperCase() })!;
    expect(viaNative.quotes[0]!.amountOut).toBe(viaWeth.quotes[0]!.amountOut);
    expect(loaded().quote({ ...request, tokenIn: NATIVE_TOKEN_KEY, tokenOut: WETH })).toBeUndefined();
  });

  it('ranks by output net of gas priced in the output token', () => {
    const result = loaded().quote({
      ...request,
      tokenIn: USDC,
      tokenOut: WETH,
      amountIn: 3_000n * E6,
      gasPriceWei: 10n ** 9n,
    })!;
    for (const q of result.quotes) expect(q.netAmountOut).toBe(q.amountOut - q.gasEstimate * 10n ** 9n);
  });
});
