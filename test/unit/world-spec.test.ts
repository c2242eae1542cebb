import { devnetKeys, DEVNET_GENESIS_COINS } from '../../devnet/keys';
import { GAS_RESERVE } from '../../devnet/world/deploy-world';
import { wrappedNeeded } from '../../devnet/world/fund-accounts';
import {
  poolAmounts,
  specTokens,
  tokenSpec,
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

    it('seeds only pools of its own tokens, each side non-empty and within a V2 reserve', () => {
      for (const pool of [...spec.v2Pools, ...spec.v3Pools]) {
        expect(() => tokenSpec(spec, pool.base)).not.toThrow();
        expect(() => tokenSpec(spec, pool.quote)).not.toThrow();
        expect(pool.base).not.toBe(pool.quote);
        const amounts = poolAmounts(spec, pool);
        expect(amounts.base).toBeGreaterThan(0n);
        expect(amounts.quote).toBeGreaterThan(0n);
        expect(amounts.base).toBeLessThanOrEqual(MAX_UINT112);
        expect(amounts.quote).toBeLessThanOrEqual(MAX_UINT112);
      }
      const v2 = spec.v2Pools.map((p) => `${p.base}/${p.quote}`);
      expect(new Set(v2).size).toBe(v2.length);
      expect(v2).toContain(`${wrapped}/USDC`);
      if (native !== 'ETH') expect(v2).toContain(`WETH/${wrapped}`);
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
    });
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
      ],
      v2: [...etherV2, 'WETH/UNI:500'],
      v3,
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
    });
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
