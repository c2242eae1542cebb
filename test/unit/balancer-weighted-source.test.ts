import { Interface, id, toBeHex, zeroPadValue } from 'ethers';
import { HOP_KIND_BALANCER_WEIGHTED } from '../../shared/routing/sources/liquidity-source';
import {
  BalancerWeightedSource,
  createdPools,
  scalingFactorOf,
  vaultInterface,
  weightedPoolInterface,
} from '../../shared/routing/sources/balancer-weighted-source';
import { FakeChain, addr } from './venue-source-fake-chain';

const VAULT = addr(0xba12);
const FACTORY = addr(0xfac);
const [BAL, WETH, USDC, DAI] = [addr(0x1b), addr(0x2e), addr(0x3c), addr(0x4d)];
const POOL_CREATED = id('PoolCreated(address)');
const E18 = 10n ** 18n;
const erc20Interface = new Interface(['function decimals() view returns (uint8)']);

interface FakePool {
  address: string;
  tokens: string[];
  weights: bigint[];
  balances: bigint[];
  fee: bigint;
  paused: boolean;
  createdAt: number;
  /** undefined: the pool has no getScalingFactors (the first weighted pool version). */
  scalingFactors?: bigint[];
}

const poolIdOf = (address: string) => `${address}0002${'0'.repeat(20)}`;

function setup(pools: FakePool[], decimals: Record<string, number> = {}) {
  const chain = new FakeChain();
  const vault = { paused: false };
  for (const [token, d] of Object.entries({ [BAL]: 18, [WETH]: 18, [USDC]: 6, [DAI]: 18, ...decimals }))
    chain.on(token, erc20Interface, 'decimals', () => [d]);
  chain.on(VAULT, vaultInterface, 'getPausedState', () => [vault.paused, 0n, 0n]);
  chain.on(VAULT, vaultInterface, 'getPoolTokens', ([poolId]) => {
    const pool = pools.find((p) => poolIdOf(p.address) === poolId);
    return pool && [pool.tokens, pool.balances, 1n];
  });
  for (const pool of pools) {
    chain.on(pool.address, weightedPoolInterface, 'getPoolId', () => [poolIdOf(pool.address)]);
    chain.on(pool.address, weightedPoolInterface, 'getNormalizedWeights', () => [pool.weights]);
    chain.on(pool.address, weightedPoolInterface, 'getSwapFeePercentage', () => [pool.fee]);
    chain.on(pool.address, weightedPoolInterface, 'getPausedState', () => [pool.paused, 0n, 0n]);
    chain.on(pool.address, weightedPoolInterface, 'getScalingFactors', () =>
      pool.scalingFactors ? [pool.scalingFactors] : undefined,
    );
  }
  chain.logs = (filter) => {
    const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
    return pools
      .filter((p) => p.createdAt >= from && p.createdAt <= to && filter.address === FACTORY)
      .map((p) => ({ topics: [POOL_CREATED, zeroPadValue(p.address, 32)] }));
  };
  return { chain, vault };
}

const balWeth: FakePool = {
  address: addr(0xb001),
  tokens: [BAL, WETH],
  weights: [8n * 10n ** 17n, 2n * 10n ** 17n],
  balances: [400_000n * E18, 200n * E18],
  fee: 3n * 10n ** 15n,
  paused: false,
  createdAt: 10,
  scalingFactors: [E18, E18],
};
const usdcDai: FakePool = {
  address: addr(0xb002),
  tokens: [USDC, DAI],
  weights: [E18 / 2n, E18 / 2n],
  balances: [1_000_000n * 10n ** 6n, 1_000_000n * E18],
  fee: 10n ** 15n,
  paused: false,
  createdAt: 20,
};
const threeTokens: FakePool = {
  address: addr(0xb003),
  tokens: [BAL, WETH, USDC],
  weights: [E18 / 3n, E18 / 3n, E18 / 3n + 1n],
  balances: [1n, 1n, 1n],
  fee: 10n ** 15n,
  paused: false,
  createdAt: 30,
};

describe('BalancerWeightedSource', () => {
  it('decodes PoolCreated logs and scaling factors', () => {
    expect(createdPools([{ topics: [POOL_CREATED, zeroPadValue(addr(0xabc), 32)] }])).toEqual([addr(0xabc)]);
    expect(createdPools([{ topics: [id('Other(address)'), zeroPadValue(addr(0xabc), 32)] }])).toEqual([]);
    expect([scalingFactorOf(18), scalingFactorOf(6), scalingFactorOf(0)]).toEqual([
      E18,
      10n ** 30n,
      10n ** 36n,
    ]);
    expect(() => scalingFactorOf(19)).toThrow(RangeError);
  });

  it('finds the two-token pools of the factory whose tokens are listed, and reads their state at the block', async () => {
    const { chain } = setup([balWeth, usdcDai, threeTokens]);
    const source = new BalancerWeightedSource({
      client: chain.client(),
      vault: VAULT,
      weightedPoolFactory: FACTORY,
      multicall: FakeChain.MULTICALL,
    });
    expect([source.id, source.name, source.hopKind]).toEqual([
      'balancer-v2',
      'Balancer V2',
      HOP_KIND_BALANCER_WEIGHTED,
    ]);
    await source.discover([BAL, WETH, USDC]);
    expect(chain.logFilters).toEqual([
      { address: FACTORY, topics: [POOL_CREATED], fromBlock: '0x0', toBlock: toBeHex(100) },
    ]);
    await source.refresh(100);
    expect(source.snapshot()).toEqual({
      blockNumber: 100,
      pools: [
        {
          kind: 'balancer-weighted',
          sourceId: 'balancer-v2',
          address: balWeth.address,
          poolId: poolIdOf(balWeth.address),
          token0: BAL,
          token1: WETH,
          balance0: 400_000n * E18,
          balance1: 200n * E18,
          weight0: 8n * 10n ** 17n,
          weight1: 2n * 10n ** 17n,
          scalingFactor0: E18,
          scalingFactor1: E18,
          swapFee: 3n * 10n ** 15n,
        },
      ],
    });

    // DAI listed later: the pool already seen joins without a new log scan of old blocks; scaling factors
    // come from decimals where the pool has no getScalingFactors.
    chain.head = 150;
    await source.discover([BAL, WETH, USDC, DAI]);
    expect(chain.logFilters.at(-1)).toMatchObject({ fromBlock: toBeHex(101), toBlock: toBeHex(150) });
    await source.refresh(150);
    expect(source.snapshot().pools.find((p) => p.address === usdcDai.address)).toMatchObject({
      token0: USDC,
      token1: DAI,
      scalingFactor0: 10n ** 30n,
      scalingFactor1: E18,
      swapFee: 10n ** 15n,
    });
  });

  it('scans the log history in ranges from fromBlock', async () => {
    const { chain } = setup([balWeth]);
    const source = new BalancerWeightedSource({
      client: chain.client(),
      vault: VAULT,
      weightedPoolFactory: FACTORY,
      multicall: FakeChain.MULTICALL,
      fromBlock: 5,
      logBlockRange: 40,
    });
    await source.discover([BAL, WETH]);
    expect(chain.logFilters.map((f) => [Number(f.fromBlock), Number(f.toBlock)])).toEqual([
      [5, 44],
      [45, 84],
      [85, 100],
    ]);
    await source.refresh(100);
    expect(source.snapshot().pools).toHaveLength(1);
  });

  it('leaves out a paused pool, and every pool while the Vault is paused', async () => {
    const paused = { ...balWeth, paused: true };
    const { chain, vault } = setup([paused, { ...usdcDai, scalingFactors: [10n ** 30n, E18] }]);
    const source = new BalancerWeightedSource({
      client: chain.client(),
      vault: VAULT,
      weightedPoolFactory: FACTORY,
      multicall: FakeChain.MULTICALL,
    });
    await source.discover([BAL, WETH, USDC, DAI]);
    await source.refresh(100);
    expect(source.snapshot().pools.map((p) => p.address)).toEqual([usdcDai.address]);
    vault.paused = true;
    await source.refresh(101);
    expect(source.snapshot()).toEqual({ blockNumber: 101, pools: [] });
  });

  it('uses the scaling factors the pool reports (rate providers) over the decimals', async () => {
    const rated = { ...balWeth, scalingFactors: [E18, (E18 * 105n) / 100n] };
    const { chain } = setup([rated]);
    const source = new BalancerWeightedSource({
      client: chain.client(),
      vault: VAULT,
      weightedPoolFactory: FACTORY,
      multicall: FakeChain.MULTICALL,
    });
    await source.discover([BAL, WETH]);
    await source.refresh(100);
    expect(source.snapshot().pools[0]).toMatchObject({
      scalingFactor0: E18,
      scalingFactor1: (E18 * 105n) / 100n,
    });
  });
});
