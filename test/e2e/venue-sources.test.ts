import { stableSwapInvariant } from '../../shared/routing/math/stable-swap-math';
import { Contract, ContractFactory, MaxUint256, ZeroHash, type Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { ChainClient } from '../../shared/chain/chain-client';
import {
  poolSwap,
  V3_TICK_CROSS_GAS,
  V4_HOP_GAS,
  type PoolState,
  type StablePoolState,
  type V4PoolState,
  type WeightedPoolState,
} from '../../shared/routing/pools/pool-state';
import { BalancerWeightedSource } from '../../shared/routing/sources/balancer-weighted-source';
import {
  HOP_KIND_BALANCER_WEIGHTED,
  HOP_KIND_STABLE_SWAP,
  HOP_KIND_SUSHISWAP_V2,
  HOP_KIND_V4,
} from '../../shared/routing/sources/liquidity-source';
import { SourceRegistry } from '../../shared/routing/sources/source-registry';
import { StableSwapSource } from '../../shared/routing/sources/stable-swap-source';
import { sushiSwapV2Source } from '../../shared/routing/sources/sushiswap-v2-source';
import { UniswapV4Source } from '../../shared/routing/sources/uniswap-v4-source';
import {
  V2_PAIR_ABI,
  V4_MODIFY_LIQUIDITY_ABI,
  V4_POOL_MANAGER_ABI,
  V4_SWAP_TEST_ABI,
} from '../../devnet/world/abis';
import { loadNpmArtifact } from '../../devnet/world/npm-artifacts';
import { readV4Slot0 } from '../../devnet/world/v4-pool-state';
import { fullRangeTicksForSpacing } from '../../devnet/world/v3-math';
import { worldSpec } from '../../devnet/world/world-spec';
import { GAS_LIMIT, mined, startContractsWorld, type ContractsWorld } from './contracts/contracts-fixture';
import { v4Key, venueKit, type VenueKit } from './contracts/venues-fixture';

// World deployment takes a while; jest's per-project testTimeout does not apply to hooks run this way.
jest.setTimeout(300_000);

const CHAIN_ID = 1;
const E18 = 10n ** 18n;
const MIN_SQRT_PRICE_LIMIT = 4295128740n;
const MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341n;
const VAULT_SWAP_ABI = [
  'function swap((bytes32 poolId, uint8 kind, address assetIn, address assetOut, uint256 amount, bytes userData) singleSwap, (address sender, bool fromInternalBalance, address recipient, bool toInternalBalance) funds, uint256 limit, uint256 deadline) payable returns (uint256)',
];
const PAIR_SWAP_ABI = [
  ...V2_PAIR_ABI,
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
];

/** A node refusing every eth_getLogs (as providers capping log ranges do): the V4 source scans bitmaps. */
class RefusingLogsClient extends ChainClient {
  refused = 0;
  override send(method: string, params?: readonly unknown[]): Promise<unknown> {
    if (method !== 'eth_getLogs') return super.send(method, params);
    this.refused++;
    return Promise.reject(new Error('query returned more than 10000 results'));
  }
}

let ctx: ContractsWorld;
let client: ChainClient;
let registry: SourceRegistry;
let kit: VenueKit;
/** Swaps and adds liquidity for real (the kit's quoter only runs calls). */
let trader: Wallet;
const lower = (a: string) => a.toLowerCase();

function poolsOf<K extends PoolState['kind']>(
  sourceId: string,
  kind: K,
): Array<Extract<PoolState, { kind: K }>> {
  return registry
    .get(sourceId)!
    .snapshot()
    .pools.filter((p): p is Extract<PoolState, { kind: K }> => p.kind === kind);
}

/** The pool of `sourceId` between two symbols (and at a fee for V4). */
function poolOf<K extends PoolState['kind']>(
  sourceId: string,
  kind: K,
  a: string,
  b: string,
  fee?: number,
): Extract<PoolState, { kind: K }> {
  const tokens = [lower(ctx.address(a)), lower(ctx.address(b))];
  const pool = poolsOf(sourceId, kind).find(
    (p) =>
      tokens.includes(p.token0) &&
      tokens.includes(p.token1) &&
      (fee === undefined || (p as { fee?: unknown }).fee === fee),
  );
  if (!pool) throw new Error(`no ${sourceId} pool ${a}/${b} in the snapshot`);
  return pool;
}

async function refreshAtHead(): Promise<number> {
  const blockNumber = await client.blockNumber();
  const refresh = await registry.refreshAll(blockNumber);
  expect(refresh.failures).toEqual([]);
  return blockNumber;
}

/** Amounts of a token from dust to a large share of the pool, as base units. */
function amountsOf(symbol: string, wholeUnits: readonly number[]): bigint[] {
  const decimals = ctx.world.tokens.find((t) => t.symbol === symbol)!.decimals;
  return wholeUnits.map((units) => (BigInt(Math.round(units * 1e6)) * 10n ** BigInt(decimals)) / 1_000_000n);
}

async function approveTo(spender: string, symbols: readonly string[]): Promise<void> {
  for (const symbol of symbols) {
    await mined((ctx.token(symbol).connect(trader) as Contract).getFunction('approve')(spender, MaxUint256));
  }
}

/** v4-core's PoolModifyLiquidityTest for the trader, approved for `symbols`. */
async function liquidityRouter(symbols: readonly string[]): Promise<Contract> {
  const artifact = loadNpmArtifact('PoolModifyLiquidityTest');
  const deployment = await new ContractFactory(artifact.abi, artifact.bytecode, trader).deploy(
    ctx.world.contracts.uniswapV4PoolManager,
    { gasLimit: GAS_LIMIT },
  );
  const router = new Contract(await deployment.getAddress(), V4_MODIFY_LIQUIDITY_ABI, trader);
  await approveTo(await router.getAddress(), symbols);
  return router;
}

beforeAll(async () => {
  ctx = await startContractsWorld(CHAIN_ID);
  trader = ctx.accounts[2]!;
  client = new ChainClient({ chainId: CHAIN_ID, name: 'devnet', rpcUrls: [ctx.chain.rpcUrl] });
  const c = ctx.world.contracts;
  if (!c.uniswapV4PoolManager) throw new Error('the devnet engine has no Cancun: no Uniswap V4');
  registry = new SourceRegistry(CHAIN_ID, [
    sushiSwapV2Source({ client, factory: c.sushiswapV2Factory, multicall: c.multicall }),
    new UniswapV4Source({ client, poolManager: c.uniswapV4PoolManager, multicall: c.multicall }),
    new BalancerWeightedSource({
      client,
      vault: c.balancerVault,
      weightedPoolFactory: c.balancerWeightedPoolFactory,
      multicall: c.multicall,
    }),
    new StableSwapSource({ client, factory: c.stableSwapFactory, multicall: c.multicall }),
  ]);
  kit = await venueKit(ctx, ctx.accounts[3]!);
  await registry.discoverAll(ctx.world.tokens.map((t) => t.address));
  await refreshAtHead();
});

afterAll(async () => {
  client?.close();
  await ctx?.stop();
});

describe('venue sources on the devnet world', () => {
  it('have their ids, dex names and hop kinds', () => {
    expect(registry.sources.map((s) => [s.id, s.name, s.hopKind])).toEqual([
      ['sushiswap-v2', 'SushiSwap V2', HOP_KIND_SUSHISWAP_V2],
      ['uniswap-v4', 'Uniswap V4', HOP_KIND_V4],
      ['balancer-v2', 'Balancer V2', HOP_KIND_BALANCER_WEIGHTED],
      ['stableswap', 'TAS StableSwap', HOP_KIND_STABLE_SWAP],
    ]);
  });

  it('discover exactly the seeded pools, with the state the venues hold', async () => {
    const spec = worldSpec(CHAIN_ID);
    const seeded = ctx.world.venuePools;
    const sorted = (xs: string[]) => xs.map(lower).sort();
    const addresses = (id: string) =>
      sorted(
        registry
          .get(id)!
          .snapshot()
          .pools.map((p) => p.address),
      );
    expect(addresses('sushiswap-v2')).toEqual(sorted(seeded.sushi));
    expect(addresses('uniswap-v4')).toEqual(sorted(seeded.v4.map((p) => p.id)));
    expect(addresses('balancer-v2')).toEqual(sorted(seeded.balancer.map((p) => p.address)));
    expect(addresses('stableswap')).toEqual(sorted(seeded.stable.map((p) => p.address)));
    expect(seeded.sushi).toHaveLength(spec.sushiPools.length);
    expect(seeded.v4).toHaveLength(spec.v4Pools.length);

    const { blockNumber } = registry.get('uniswap-v4')!.snapshot();
    for (const pool of poolsOf('sushiswap-v2', 'v2')) {
      const [r0, r1] = (await new Contract(pool.address, V2_PAIR_ABI, ctx.provider).getFunction(
        'getReserves',
      )({
        blockTag: blockNumber,
      })) as [bigint, bigint];
      expect(pool).toMatchObject({ reserve0: r0, reserve1: r1, feeBps: 30n, hopKind: HOP_KIND_SUSHISWAP_V2 });
    }
    for (const seededPool of seeded.v4) {
      const pool = poolsOf('uniswap-v4', 'v4').find((p) => p.address === lower(seededPool.id))!;
      const slot0 = await readV4Slot0(ctx.provider, ctx.world.contracts.uniswapV4PoolManager!, seededPool.id);
      const { tickLower, tickUpper } = fullRangeTicksForSpacing(seededPool.key.tickSpacing);
      expect(pool).toEqual<V4PoolState>({
        kind: 'v4',
        sourceId: 'uniswap-v4',
        address: lower(seededPool.id),
        token0: lower(seededPool.key.currency0),
        token1: lower(seededPool.key.currency1),
        fee: seededPool.key.fee,
        tickSpacing: seededPool.key.tickSpacing,
        sqrtPriceX96: slot0.sqrtPriceX96,
        tick: slot0.tick,
        liquidity: seededPool.liquidity,
        ticks: [
          { index: tickLower, liquidityNet: seededPool.liquidity },
          { index: tickUpper, liquidityNet: -seededPool.liquidity },
        ],
      });
    }
    for (const seededPool of seeded.balancer) {
      const pool = poolsOf('balancer-v2', 'balancer-weighted').find(
        (p) => p.address === lower(seededPool.address),
      )!;
      expect(pool).toMatchObject<Partial<WeightedPoolState>>({
        poolId: lower(seededPool.id),
        token0: lower(seededPool.tokens[0]),
        token1: lower(seededPool.tokens[1]),
        balance0: seededPool.balances[0],
        balance1: seededPool.balances[1],
        weight0: seededPool.weights[0],
        weight1: seededPool.weights[1],
        swapFee: seededPool.spec.swapFee,
      });
    }
    for (const seededPool of seeded.stable) {
      const pool = poolsOf('stableswap', 'stable').find((p) => p.address === lower(seededPool.address))!;
      expect(pool).toMatchObject<Partial<StablePoolState>>({
        token0: lower(seededPool.coins[0]),
        token1: lower(seededPool.coins[1]),
        balance0: seededPool.balances[0],
        balance1: seededPool.balances[1],
        amp: seededPool.spec.amp * 100n,
        fee: seededPool.spec.fee,
      });
    }
  });

  describe('poolSwap over the snapshot equals the venue, both directions', () => {
    it('SushiSwap V2 (the pair math on its reserves)', async () => {
      for (const [a, b, unitsA, unitsB] of [
        ['SUSHI', 'WETH', [1, 12_345.678, 200_000], [0.001, 3.3, 120]],
        ['WETH', 'USDC', [0.01, 7.5, 90], [10, 12_345.67, 250_000]],
      ] as const) {
        const pool = poolOf('sushiswap-v2', 'v2', a, b);
        for (const [tokenIn, tokenOut, amounts] of [
          [a, b, amountsOf(a, unitsA)],
          [b, a, amountsOf(b, unitsB)],
        ] as const) {
          for (const amountIn of amounts) {
            const [addressIn, addressOut] = [ctx.address(tokenIn), ctx.address(tokenOut)];
            expect(poolSwap(pool, lower(addressIn), amountIn)?.amountOut).toBe(
              await kit.sushiAmountOut(addressIn, addressOut, amountIn),
            );
          }
        }
      }
    });

    it('Uniswap V4 (a real swap through PoolSwapTest, run as a call)', async () => {
      for (const seededPool of ctx.world.venuePools.v4) {
        const { currency0, currency1, fee, tickSpacing } = seededPool.key;
        const pool = poolsOf('uniswap-v4', 'v4').find((p) => p.address === lower(seededPool.id))!;
        const symbolOf = (address: string) =>
          ctx.world.tokens.find((t) => lower(t.address) === lower(address))!.symbol;
        for (const [tokenIn, tokenOut] of [
          [currency0, currency1],
          [currency1, currency0],
        ] as const) {
          const symbol = symbolOf(tokenIn);
          const units =
            symbol === 'USDC'
              ? [3, 4_567.891, 600_000]
              : symbol === 'UNI'
                ? [1, 4_321.5, 90_000]
                : [0.001, 2.5, 150];
          for (const amountIn of amountsOf(symbol, units)) {
            expect(poolSwap(pool, lower(tokenIn), amountIn)?.amountOut).toBe(
              await kit.v4AmountOut(tokenIn, tokenOut, fee, tickSpacing, amountIn),
            );
          }
        }
      }
    });

    it('Balancer V2 weighted (the Vault’s queryBatchSwap), both power paths of the 80/20 pool', async () => {
      for (const seededPool of ctx.world.venuePools.balancer) {
        const pool = poolsOf('balancer-v2', 'balancer-weighted').find(
          (p) => p.address === lower(seededPool.address),
        )!;
        for (const [tokenIn, tokenOut] of [
          [seededPool.tokens[0], seededPool.tokens[1]],
          [seededPool.tokens[1], seededPool.tokens[0]],
        ] as const) {
          const balanceIn = tokenIn === seededPool.tokens[0] ? pool.balance0 : pool.balance1;
          // Dust (powUp's error margin makes the real dust output 0: no quote), then small and odd amounts and
          // just under the 30% MAX_IN_RATIO (after the fee).
          const dust = 1_000_003n;
          expect(poolSwap(pool, lower(tokenIn), dust)?.amountOut ?? 0n).toBe(
            await kit.balancerAmountOut(seededPool.id, tokenIn, tokenOut, dust),
          );
          for (const amountIn of [
            balanceIn / 10n ** 12n + 3n,
            balanceIn / 7_777n + 12_345n,
            balanceIn / 100n,
            (balanceIn * 3n) / 10n,
          ]) {
            expect(poolSwap(pool, lower(tokenIn), amountIn)?.amountOut).toBe(
              await kit.balancerAmountOut(seededPool.id, tokenIn, tokenOut, amountIn),
            );
          }
          // Past MAX_IN_RATIO the pool reverts (BAL#304): no quote.
          const tooMuch = (balanceIn * 31n) / 100n;
          expect(poolSwap(pool, lower(tokenIn), tooMuch)).toBeUndefined();
          await expect(kit.balancerAmountOut(seededPool.id, tokenIn, tokenOut, tooMuch)).rejects.toThrow(
            /BAL#304/,
          );
        }
      }
    });

    it('StableSwap (the pool’s getDy), including a 100,000 USD trade', async () => {
      for (const seededPool of ctx.world.venuePools.stable) {
        const pool = poolsOf('stableswap', 'stable').find((p) => p.address === lower(seededPool.address))!;
        for (const [tokenIn, tokenOut] of [
          [seededPool.coins[0], seededPool.coins[1]],
          [seededPool.coins[1], seededPool.coins[0]],
        ] as const) {
          const symbol = ctx.world.tokens.find((t) => lower(t.address) === lower(tokenIn))!.symbol;
          for (const amountIn of amountsOf(symbol, [0.01, 1, 9_876.54321, 100_000, 3_000_000])) {
            expect(poolSwap(pool, lower(tokenIn), amountIn)?.amountOut).toBe(
              await kit.stableAmountOut(seededPool.address, tokenIn, tokenOut, amountIn),
            );
          }
        }
      }
      const usdcUsdt = poolOf('stableswap', 'stable', 'USDC', 'USDT');
      const out = poolSwap(usdcUsdt, lower(ctx.address('USDC')), 100_000n * 10n ** 6n)!.amountOut;
      // A few basis points: the pool's point (A = 2000, 0.04% fee).
      expect(out).toBeGreaterThan(99_940n * 10n ** 6n);
    });
  });

  describe('after real swaps on every venue', () => {
    it('a refresh has the states poolSwap predicted (what split routes chain on)', async () => {
      const before = new Map<string, PoolState>();
      for (const source of registry.sources)
        for (const p of source.snapshot().pools) before.set(p.address, p);
      const predicted = new Map<string, PoolState>();
      const c = ctx.world.contracts;
      await approveTo(c.balancerVault, ['BAL']);

      // SushiSwap: SUSHI in, through the pair itself.
      const sushiPool = poolOf('sushiswap-v2', 'v2', 'SUSHI', 'WETH');
      const sushiIn = 25_000n * E18;
      const sushiSwap = poolSwap(sushiPool, lower(ctx.address('SUSHI')), sushiIn)!;
      await mined(
        (ctx.token('SUSHI').connect(trader) as Contract).getFunction('transfer')(sushiPool.address, sushiIn),
      );
      const sushiIs0 = sushiPool.token0 === lower(ctx.address('SUSHI'));
      await mined(
        new Contract(sushiPool.address, PAIR_SWAP_ABI, trader).getFunction('swap')(
          sushiIs0 ? 0n : sushiSwap.amountOut,
          sushiIs0 ? sushiSwap.amountOut : 0n,
          trader.address,
          '0x',
        ),
      );
      predicted.set(sushiPool.address, sushiSwap.after);

      // Uniswap V4: WETH in on UNI/WETH 0.05%, through a PoolSwapTest of our own.
      const v4Pool = poolOf('uniswap-v4', 'v4', 'UNI', 'WETH', 500);
      const swapTestArtifact = loadNpmArtifact('PoolSwapTest');
      const swapTestDeployment = await new ContractFactory(
        swapTestArtifact.abi,
        swapTestArtifact.bytecode,
        trader,
      ).deploy(c.uniswapV4PoolManager, { gasLimit: GAS_LIMIT });
      const swapTest = new Contract(await swapTestDeployment.getAddress(), V4_SWAP_TEST_ABI, trader);
      await approveTo(await swapTest.getAddress(), ['WETH']);
      const wethIn = 33n * E18;
      const v4Swap = poolSwap(v4Pool, lower(ctx.address('WETH')), wethIn)!;
      const zeroForOne = v4Pool.token0 === lower(ctx.address('WETH'));
      await mined(
        swapTest.getFunction('swap')(
          v4Key(v4Pool.token0, v4Pool.token1, v4Pool.fee, v4Pool.tickSpacing),
          {
            zeroForOne,
            amountSpecified: -wethIn,
            sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT,
          },
          { takeClaims: false, settleUsingBurn: false },
          '0x',
          { gasLimit: GAS_LIMIT },
        ),
      );
      predicted.set(v4Pool.address, v4Swap.after);

      // Balancer: BAL in on the 80/20 pool, through the Vault.
      const balPool = poolOf('balancer-v2', 'balancer-weighted', 'BAL', 'WETH');
      const balIn = 20_000n * E18;
      const balSwap = poolSwap(balPool, lower(ctx.address('BAL')), balIn)!;
      await mined(
        new Contract(c.balancerVault, VAULT_SWAP_ABI, trader).getFunction('swap')(
          {
            poolId: balPool.poolId,
            kind: 0,
            assetIn: ctx.address('BAL'),
            assetOut: ctx.address('WETH'),
            amount: balIn,
            userData: '0x',
          },
          {
            sender: trader.address,
            fromInternalBalance: false,
            recipient: trader.address,
            toInternalBalance: false,
          },
          balSwap.amountOut,
          MaxUint256,
          { gasLimit: GAS_LIMIT },
        ),
      );
      predicted.set(balPool.address, balSwap.after);

      // StableSwap: USDT in on USDC/USDT, through exchange (minDy = the prediction).
      const stablePool = poolOf('stableswap', 'stable', 'USDC', 'USDT');
      const usdtIn = 250_000n * 10n ** 6n;
      const stableSwap = poolSwap(stablePool, lower(ctx.address('USDT')), usdtIn)!;
      await approveTo(stablePool.address, ['USDT']);
      const i = stablePool.token0 === lower(ctx.address('USDT')) ? 0 : 1;
      await mined(
        new Contract(stablePool.address, loadArtifact('StableSwapPool').abi, trader).getFunction('exchange')(
          i,
          1 - i,
          usdtIn,
          stableSwap.amountOut,
          { gasLimit: GAS_LIMIT },
        ),
      );
      // A refresh also carries the pool's invariant D (derived from the balances, left to be computed on a
      // predicted state): the prediction gets the same one, so the states compare field by field.
      const stableAfter = stableSwap.after as StablePoolState;
      predicted.set(stablePool.address, { ...stableAfter, invariant: stableSwapInvariant(stableAfter) });

      await refreshAtHead();
      for (const source of registry.sources) {
        for (const pool of source.snapshot().pools) {
          // The swapped pools are where poolSwap said; every other pool is as it was.
          expect(pool).toEqual(predicted.get(pool.address) ?? before.get(pool.address));
        }
      }
    });
  });

  describe('Uniswap V4 after narrow positions are added', () => {
    let key: ReturnType<typeof v4Key>;
    let poolId: string;

    beforeAll(async () => {
      const pool = poolOf('uniswap-v4', 'v4', 'WETH', 'USDC', 3000);
      poolId = pool.address;
      key = v4Key(pool.token0, pool.token1, pool.fee, pool.tickSpacing);
      const router = await liquidityRouter(['WETH', 'USDC']);
      const t0 = Math.floor(pool.tick / 60) * 60;
      for (const [tickLower, tickUpper] of [
        [t0 - 120, t0 + 180],
        [t0 - 1200, t0 - 240],
        [t0 + 60, t0 + 600],
      ] as const) {
        await mined(
          router.getFunction('modifyLiquidity')(
            key,
            { tickLower, tickUpper, liquidityDelta: pool.liquidity / 3n, salt: ZeroHash },
            '0x',
            { gasLimit: GAS_LIMIT },
          ),
        );
      }
    });

    it('an incremental refresh patches that pool’s ticks, as fresh sources read them (from logs, or the bitmap)', async () => {
      const blockNumber = await refreshAtHead();
      const state = poolsOf('uniswap-v4', 'v4').find((p) => p.address === poolId)!;
      expect(state.ticks).toHaveLength(2 + 6);
      expect(state.ticks.reduce((sum, t) => sum + t.liquidityNet, 0n)).toBe(0n);
      const byAddress = (a: PoolState, b: PoolState) => a.address.localeCompare(b.address);
      const refusing = new RefusingLogsClient({
        chainId: CHAIN_ID,
        name: 'devnet',
        rpcUrls: [ctx.chain.rpcUrl],
      });
      try {
        for (const over of [client, refusing]) {
          const fresh = new UniswapV4Source({
            client: over,
            poolManager: ctx.world.contracts.uniswapV4PoolManager!,
            multicall: ctx.world.contracts.multicall,
          });
          await fresh.discover(ctx.world.tokens.map((t) => t.address));
          await fresh.refresh(blockNumber);
          expect([...fresh.snapshot().pools].sort(byAddress)).toEqual(
            [...registry.get('uniswap-v4')!.snapshot().pools].sort(byAddress),
          );
        }
        expect(refusing.refused).toBeGreaterThan(0);
      } finally {
        refusing.close();
      }
    });

    it('poolSwap crossing the new ticks equals the real swap, both directions', async () => {
      const state = poolsOf('uniswap-v4', 'v4').find((p) => p.address === poolId)!;
      const crossings: number[] = [];
      for (const [tokenIn, tokenOut] of [
        [key.currency0, key.currency1],
        [key.currency1, key.currency0],
      ] as const) {
        const isWeth = lower(tokenIn) === lower(ctx.address('WETH'));
        for (const amountIn of isWeth
          ? [E18 / 3n, 20n * E18, 120n * E18]
          : [1_000n * 10n ** 6n, 70_000n * 10n ** 6n, 400_000n * 10n ** 6n]) {
          const swap = poolSwap(state, lower(tokenIn), amountIn)!;
          expect(swap.amountOut).toBe(
            await kit.v4AmountOut(tokenIn, tokenOut, key.fee, key.tickSpacing, amountIn),
          );
          crossings.push(Number((swap.gas - V4_HOP_GAS) / V3_TICK_CROSS_GAS));
        }
      }
      // The largest swaps each way cross two of the new ticks or more.
      expect([crossings[2], crossings[5]].every((n) => n! >= 2)).toBe(true);
    });
  });
  it('Uniswap V4: a new pool at tick spacing 1 is discovered, and read alike from its logs or its 6,933 bitmap words', async () => {
    const key = v4Key(ctx.address('LINK'), ctx.address('UNI'), 100, 1);
    await mined(
      new Contract(ctx.world.contracts.uniswapV4PoolManager!, V4_POOL_MANAGER_ABI, trader).getFunction(
        'initialize',
      )(key, 2n ** 96n, { gasLimit: GAS_LIMIT }),
    );
    const liquidity = 1_000n * E18;
    const router = await liquidityRouter(['LINK', 'UNI']);
    await mined(
      router.getFunction('modifyLiquidity')(
        key,
        { tickLower: -887272, tickUpper: 887272, liquidityDelta: liquidity, salt: ZeroHash },
        '0x',
        { gasLimit: GAS_LIMIT },
      ),
    );
    await registry.discoverAll(ctx.world.tokens.map((t) => t.address));
    await refreshAtHead();
    const pool = poolOf('uniswap-v4', 'v4', 'LINK', 'UNI', 100);
    expect(pool).toMatchObject({
      tickSpacing: 1,
      liquidity,
      ticks: [
        { index: -887272, liquidityNet: liquidity },
        { index: 887272, liquidityNet: -liquidity },
      ],
    });
    // Without logs the source scans every bitmap word of the pool: 28 extsload calls of 250 cold slots each.
    const refusing = new RefusingLogsClient({
      chainId: CHAIN_ID,
      name: 'devnet',
      rpcUrls: [ctx.chain.rpcUrl],
    });
    try {
      const scanning = new UniswapV4Source({
        client: refusing,
        poolManager: ctx.world.contracts.uniswapV4PoolManager!,
        multicall: ctx.world.contracts.multicall,
        poolParams: [[100, 1]],
      });
      await scanning.discover([key.currency0, key.currency1]);
      await scanning.refresh(registry.get('uniswap-v4')!.snapshot().blockNumber);
      expect(scanning.snapshot().pools).toEqual([pool]);
      expect(refusing.refused).toBe(1);
    } finally {
      refusing.close();
    }
    const amountIn = 12n * E18;
    expect(poolSwap(pool, lower(key.currency0), amountIn)?.amountOut).toBe(
      await kit.v4AmountOut(key.currency0, key.currency1, 100, 1, amountIn),
    );
  });
});
