import { devnetKeys, DEVNET_GENESIS_COINS } from '../../devnet/keys';
import { GAS_RESERVE } from '../../devnet/world/deploy-world';
import { wrappedNeeded } from '../../devnet/world/fund-accounts';
import {
  fundAmount,
  poolAmounts,
  reserveTotals,
  seededPools,
  specTokens,
  tokenSpec,
  weightedPoolAmounts,
  WORLD_CHAIN_IDS,
  worldSpec,
  type WorldSpec,
} from '../../devnet/world/world-spec';
import { SPEC_CHAINS as CHAINS } from '../helpers/spec-chains';

/** The fixture worlds of the spec's chains: pure data, checked without a chain. */

/** What start-devnet funds: the manifest's test accounts and the market mover. */
const FUNDED = devnetKeys(0).accounts.length + 1;
const MAX_UINT112 = 2n ** 112n - 1n;

describe('the fixture world of each chain of the spec', () => {
  it('exists for exactly the eight enabled chains', () => {
    expect([...WORLD_CHAIN_IDS].sort((a, b) => a - b)).toEqual(CHAINS.map(([id]) => id));
  });

  describe.each(CHAINS)('chain %i', (chainId, native, wrapped, wrappedName) => {
    const spec = worldSpec(chainId);

    it(`has ${native} as native coin and ${wrapped} ("${wrappedName}", 18 decimals) as wrapped native`, () => {
      expect(spec.nativeSymbol).toBe(native);
      expect(spec.wrapped).toMatchObject({ symbol: wrapped, name: wrappedName, decimals: 18 });
    });

    it('lists every token once, with WETH as a TestToken where the native coin is not ether', () => {
      const symbols = specTokens(spec).map((t) => t.symbol);
      expect(new Set(symbols).size).toBe(symbols.length);
      expect(symbols).toEqual(expect.arrayContaining(['WETH', 'USDC', 'USDT', 'DAI', 'WBTC']));
      expect(spec.tokens.some((t) => t.symbol === 'WETH')).toBe(native !== 'ETH');
    });

    it('seeds only pools of its own tokens on every venue, each side non-empty and within a V2 reserve', () => {
      for (const pool of seededPools(spec)) {
        expect(() => tokenSpec(spec, pool.base)).not.toThrow();
        expect(() => tokenSpec(spec, pool.quote)).not.toThrow();
        expect(pool.base).not.toBe(pool.quote);
        expect(pool.amounts.base).toBeGreaterThan(0n);
        expect(pool.amounts.quote).toBeGreaterThan(0n);
        expect(pool.amounts.base).toBeLessThanOrEqual(MAX_UINT112);
        expect(pool.amounts.quote).toBeLessThanOrEqual(MAX_UINT112);
      }
      const v2 = spec.v2Pools.map((p) => `${p.base}/${p.quote}`);
      expect(new Set(v2).size).toBe(v2.length);
      expect(v2).toContain(`${wrapped}/USDC`);
      if (native !== 'ETH') expect(v2).toContain(`WETH/${wrapped}`);
    });

    it('has every venue: SushiSwap, Uniswap V4, Balancer and StableSwap pools of the stablecoins', () => {
      const pairs = (list: ReadonlyArray<{ base: string; quote: string }>) =>
        list.map((p) => `${p.base}/${p.quote}`);
      expect(pairs(spec.sushiPools)).toContain('WETH/USDC');
      expect(spec.v4Pools).toContainEqual(
        expect.objectContaining({ base: 'WETH', quote: 'USDC', fee: 3000, tickSpacing: 60 }),
      );
      expect(pairs(spec.balancerPools)).toContain('WETH/DAI');
      expect(pairs(spec.stablePools)).toEqual(['USDC/USDT', 'USDC/DAI', 'USDT/DAI']);
      for (const pool of spec.stablePools) {
        expect(pool).toMatchObject({ baseAmount: 10_000_000n, amp: 2_000n, fee: 4_000_000n });
        const amounts = poolAmounts(spec, pool);
        // 10M USD a side in each token's own decimals (18 on BNB Smart Chain's stablecoins).
        expect(amounts.base).toBe(10_000_000n * 10n ** BigInt(tokenSpec(spec, pool.base).decimals));
        expect(amounts.quote).toBe(10_000_000n * 10n ** BigInt(tokenSpec(spec, pool.quote).decimals));
      }
      const hasOwnTokens = native === 'ETH';
      expect(spec.tokens.some((t) => t.symbol === 'SUSHI')).toBe(hasOwnTokens);
      expect(spec.tokens.some((t) => t.symbol === 'BAL')).toBe(hasOwnTokens);
    });

    it('funds each account with a share of every venue’s largest reserve of a token', () => {
      const totals = reserveTotals(spec);
      for (const token of specTokens(spec)) {
        const largest = seededPools(spec)
          .flatMap((p) => [
            ...(p.base === token.symbol ? [p.amounts.base] : []),
            ...(p.quote === token.symbol ? [p.amounts.quote] : []),
          ])
          .reduce((a, b) => (b > a ? b : a), 0n);
        expect(totals.get(token.symbol)?.largest).toBe(largest);
        expect(fundAmount(spec, token.symbol) * 5n).toBeGreaterThanOrEqual(largest * 2n);
      }
    });

    it('wraps no more native coins than the deployer holds at genesis, gas reserve kept', () => {
      const needed = wrappedNeeded(spec, FUNDED) + GAS_RESERVE;
      expect(needed).toBeLessThanOrEqual(DEVNET_GENESIS_COINS * 10n ** 18n);
    });
  });

  it('keeps the token sets and pool depths of chains 1 and 137 that other tests build on', () => {
    const summary = (spec: WorldSpec) => ({
      tokens: specTokens(spec).map((t) => `${t.symbol}:${t.decimals}:${t.usdMicros}`),
      v2: spec.v2Pools.map((p) => `${p.base}/${p.quote}:${p.baseAmount}`),
      v3: spec.v3Pools.map((p) => `${p.base}/${p.quote}:${p.fee}:${p.baseAmount}`),
      sushi: spec.sushiPools.map((p) => `${p.base}/${p.quote}:${p.baseAmount}`),
      v4: spec.v4Pools.map((p) => `${p.base}/${p.quote}:${p.fee}/${p.tickSpacing}:${p.baseAmount}`),
      balancer: spec.balancerPools.map(
        (p) => `${p.base}/${p.quote}:${p.baseWeightPercent}%:${p.swapFee}:${p.baseAmount}`,
      ),
      stable: spec.stablePools.map((p) => `${p.base}/${p.quote}:${p.amp}:${p.fee}:${p.baseAmount}`),
    });
    const stable = [
      'USDC/USDT:2000:4000000:10000000',
      'USDC/DAI:2000:4000000:10000000',
      'USDT/DAI:2000:4000000:10000000',
    ];
    const v3 = ['WETH/USDC:500:2000', 'WBTC/WETH:500:100', 'WETH/USDC:3000:2000', 'WBTC/WETH:3000:100'];
    const etherV2 = [
      'WETH/USDC:2000',
      'WETH/USDT:2000',
      'WETH/DAI:2000',
      'WBTC/WETH:100',
      'USDC/USDT:6000000',
      'DAI/USDC:2000000',
      'WETH/LINK:500',
    ];
    expect(summary(worldSpec(1))).toEqual({
      tokens: [
        'WETH:18:3000000000',
        'USDC:6:1000000',
        'USDT:6:1000000',
        'DAI:18:1000000',
        'WBTC:8:60000000000',
        'LINK:18:15000000',
        'UNI:18:8000000',
        'SUSHI:18:1200000',
        'BAL:18:4000000',
      ],
      v2: [...etherV2, 'WETH/UNI:500'],
      v3,
      sushi: ['WETH/USDC:300', 'SUSHI/WETH:750000'],
      v4: ['WETH/UNI:500/10:1000', 'WETH/USDC:3000/60:1000'],
      balancer: ['BAL/WETH:80%:3000000000000000:400000', 'WETH/DAI:50%:1000000000000000:500'],
      stable,
    });
    expect(summary(worldSpec(137))).toEqual({
      tokens: [
        'WPOL:18:500000',
        'WETH:18:3000000000',
        'USDC:6:1000000',
        'USDT:6:1000000',
        'DAI:18:1000000',
        'WBTC:8:60000000000',
        'LINK:18:15000000',
      ],
      v2: [...etherV2, 'WPOL/USDC:1000000', 'WETH/WPOL:300'],
      v3,
      sushi: ['WETH/USDC:300'],
      v4: ['WETH/USDC:3000/60:1000'],
      balancer: ['WETH/DAI:50%:1000000000000000:500'],
      stable,
    });
  });

  it('prices the 80/20 BAL/WETH pool at the reference price: 400,000 BAL (1.6M USD) against 400,000 USD of WETH', () => {
    const spec = worldSpec(1);
    const pool = spec.balancerPools[0]!;
    const { base, quote } = weightedPoolAmounts(spec, pool);
    expect(base).toBe(400_000n * 10n ** 18n);
    // 400,000 USD / 3,000 USD = 133.33… WETH, rounded down to the wei.
    expect(quote).toBe(133_333_333_333_333_333_333n);
    // Spot price (quote/weight) / (base/weight) = 4 USD / 3,000 USD per BAL in WETH.
    const spot = Number(quote) / 0.2 / (Number(base) / 0.8);
    expect(spot).toBeCloseTo(4 / 3000, 12);
    expect(() => weightedPoolAmounts(spec, { ...pool, baseWeightPercent: 100n })).toThrow(
      'not between 0 and 100',
    );
  });

  it('prices the native coins near their markets: BNB 600, POL 0.5, AVAX 30 USD', () => {
    expect(worldSpec(56).wrapped.usdMicros).toBe(600_000_000n);
    expect(worldSpec(137).wrapped.usdMicros).toBe(500_000n);
    expect(worldSpec(43114).wrapped.usdMicros).toBe(30_000_000n);
    for (const chainId of [1, 10, 8453, 42161, 59144])
      expect(worldSpec(chainId).wrapped.usdMicros).toBe(3_000_000_000n);
  });

  it('gives a chain id outside the spec the Ethereum world', () => {
    expect(worldSpec(31337)).toEqual(worldSpec(1));
  });
});
