import { stableSwapInvariant } from '../../shared/routing/math/stable-swap-math';
import { HOP_KIND_STABLE_SWAP } from '../../shared/routing/sources/liquidity-source';
import {
  StableSwapSource,
  stableSwapFactoryInterface,
  stableSwapPoolInterface,
} from '../../shared/routing/sources/stable-swap-source';
import { FakeChain, addr } from './venue-source-fake-chain';

const FACTORY = addr(0x55f);
const [USDC, USDT, DAI, WETH] = [addr(0x1c), addr(0x2d), addr(0x3e), addr(0x4f)];
const E18 = 10n ** 18n;

interface FakeStablePool {
  address: string;
  coins: [string, string];
  balances: [bigint, bigint];
  amp: bigint;
  fee: bigint;
}

function setup(pools: FakeStablePool[]) {
  const chain = new FakeChain();
  const decimals: Record<string, number> = { [USDC]: 6, [USDT]: 6, [DAI]: 18, [WETH]: 18 };
  chain.on(FACTORY, stableSwapFactoryInterface, 'getPool', ([a, b]) => {
    const pool = pools.find(
      (p) => p.coins.includes(String(a).toLowerCase()) && p.coins.includes(String(b).toLowerCase()),
    );
    return [pool?.address ?? addr(0)];
  });
  for (const pool of pools) {
    chain.on(pool.address, stableSwapPoolInterface, 'coins', ([i]) => [pool.coins[Number(i)]]);
    chain.on(pool.address, stableSwapPoolInterface, 'balances', ([i]) => [pool.balances[Number(i)]]);
    chain.on(pool.address, stableSwapPoolInterface, 'A', () => [pool.amp]);
    chain.on(pool.address, stableSwapPoolInterface, 'fee', () => [pool.fee]);
    chain.on(pool.address, stableSwapPoolInterface, 'rates', ([i]) => [
      10n ** BigInt(18 - decimals[pool.coins[Number(i)]]!),
    ]);
  }
  const source = new StableSwapSource({
    client: chain.client(),
    factory: FACTORY,
    multicall: FakeChain.MULTICALL,
  });
  return { chain, source };
}

const usdcUsdt: FakeStablePool = {
  address: addr(0x5001),
  coins: [USDC, USDT],
  balances: [10_000_000n * 10n ** 6n, 9_000_000n * 10n ** 6n],
  amp: 200_000n,
  fee: 4_000_000n,
};
const usdcDai: FakeStablePool = {
  address: addr(0x5002),
  coins: [USDC, DAI],
  balances: [5_000_000n * 10n ** 6n, 5_000_000n * E18],
  amp: 100_000n,
  fee: 1_000_000n,
};

describe('StableSwapSource', () => {
  it('has the StableSwap id, name and hop kind', () => {
    const { source } = setup([]);
    expect([source.id, source.name, source.hopKind]).toEqual([
      'stableswap',
      'TAS StableSwap',
      HOP_KIND_STABLE_SWAP,
    ]);
  });

  it('discovers the factory pools among the token pairs and reads balances, A and fee at the block', async () => {
    const { chain, source } = setup([usdcUsdt, usdcDai]);
    await source.discover([WETH, DAI, USDT.toUpperCase().replace('0X', '0x'), USDC]);
    await source.refresh(77);
    const { blockNumber, pools } = source.snapshot();
    expect(blockNumber).toBe(77);
    expect(pools).toEqual([
      {
        kind: 'stable',
        sourceId: 'stableswap',
        address: usdcUsdt.address,
        token0: USDC,
        token1: USDT,
        rate0: 10n ** 12n,
        rate1: 10n ** 12n,
        balance0: 10_000_000n * 10n ** 6n,
        balance1: 9_000_000n * 10n ** 6n,
        amp: 200_000n,
        fee: 4_000_000n,
        // D once per refresh, as the pool computes it (the math's own tests check D itself).
        invariant: stableSwapInvariant({
          balance0: 10_000_000n * 10n ** 6n,
          balance1: 9_000_000n * 10n ** 6n,
          rate0: 10n ** 12n,
          rate1: 10n ** 12n,
          amp: 200_000n,
          fee: 4_000_000n,
        }),
      },
      {
        kind: 'stable',
        sourceId: 'stableswap',
        address: usdcDai.address,
        token0: USDC,
        token1: DAI,
        rate0: 10n ** 12n,
        rate1: 1n,
        balance0: 5_000_000n * 10n ** 6n,
        balance1: 5_000_000n * E18,
        amp: 100_000n,
        fee: 1_000_000n,
        // Balanced coins: D is their sum at 18 decimals.
        invariant: 10_000_000n * E18,
      },
    ]);
    // Coins and rates at the block getPool answered at (the head), the state at the refresh block.
    const blocksOf = (fns: string[]) => [
      ...new Set(chain.calls.filter((c) => fns.includes(c.fn)).map((c) => c.blockNumber)),
    ];
    expect([blocksOf(['coins', 'rates']), blocksOf(['balances', 'A', 'fee'])]).toEqual([[100], [77]]);

    // A second discovery asks the factory again but reads nothing of the pools it knows.
    const before = chain.calls.length;
    await source.discover([USDC, USDT, DAI, WETH]);
    expect(chain.calls.slice(before).every((c) => c.fn === 'getPool')).toBe(true);
  });

  it('skips a pool whose coins are not the pair asked about', async () => {
    const odd: FakeStablePool = { ...usdcUsdt, coins: [USDT, USDC] };
    const { source } = setup([odd]);
    await source.discover([USDC, USDT]);
    await source.refresh(100);
    expect(source.snapshot().pools).toEqual([]);
  });
});
