import { Contract, MaxUint256, ZeroAddress, type Provider } from 'ethers';
import {
  BALANCER_VAULT_ABI,
  BALANCER_WEIGHTED_POOL_FACTORY_ABI,
  ERC20_ABI,
  STABLE_SWAP_FACTORY_ABI,
  SUSHISWAP_FACTORY_ABI,
} from './abis';
import {
  queueBalancer,
  queueBalancerPools,
  type BalancerContracts,
  type SeededWeightedPool,
} from './deploy-balancer';
import type { VenueAddresses } from './deploy-service-contracts';
import { queueStableSwapFactory, queueStablePools, type SeededStablePool } from './deploy-stable-swap';
import { queueSushiswapFactory, queueSushiswapPairs, type VenueSeedContext } from './deploy-sushiswap';
import {
  queueUniswapV4,
  queueV4Pools,
  type SeededV4Pool,
  type UniswapV4Contracts,
} from './deploy-uniswap-v4';
import type { TxQueue } from './tx-queue';
import { readV4Slot0 } from './v4-pool-state';
import { SUSHISWAP_V2_PAIR_INIT_CODE_HASH } from './venue-pool-address';

/** The other venues' entry points, as the manifest lists them. */
export interface VenueContracts {
  sushiswapV2Factory: string;
  /** Absent on an engine without Cancun (V4 needs transient storage). */
  uniswapV4PoolManager?: string;
  balancerVault: string;
  balancerWeightedPoolFactory: string;
  stableSwapFactory: string;
}

/** Everything queueVenues deployed, helpers included (the V4 liquidity router, Balancer's authorizer). */
export interface QueuedVenues {
  contracts: VenueContracts;
  v4?: UniswapV4Contracts;
  balancer: BalancerContracts;
}

/** What every venue's pools were seeded with, for the checks after mining and for tests. */
export interface VenuePools {
  /** SushiSwap pair addresses, in spec order. */
  sushi: string[];
  /** Empty without Cancun. */
  v4: SeededV4Pool[];
  balancer: SeededWeightedPool[];
  stable: SeededStablePool[];
}

const APPROVE_GAS = 80_000n;

/**
 * Queues SushiSwap V2, Uniswap V4 (only where the engine runs Cancun), Balancer V2 and our StableSwap factory.
 * Every address follows from the deployer's nonces, so the services' contracts can be built against them at once.
 */
export function queueVenues(queue: TxQueue, opts: { weth: string; cancun: boolean }): QueuedVenues {
  const sushiswapV2Factory = queueSushiswapFactory(queue);
  const v4 = opts.cancun ? queueUniswapV4(queue) : undefined;
  const balancer = queueBalancer(queue, opts.weth);
  const stableSwapFactory = queueStableSwapFactory(queue);
  return {
    contracts: {
      sushiswapV2Factory,
      ...(v4 ? { uniswapV4PoolManager: v4.uniswapV4PoolManager } : {}),
      balancerVault: balancer.balancerVault,
      balancerWeightedPoolFactory: balancer.balancerWeightedPoolFactory,
      stableSwapFactory,
    },
    v4,
    balancer,
  };
}

/**
 * Seeds every venue's pools from the deployer's tokens (queueDeployerSupply mints them: reserveTotals counts every
 * venue): approvals of the V4 router and the Balancer Vault first, then each venue's pools.
 */
export function queueVenuePools(queue: TxQueue, ctx: VenueSeedContext, venues: QueuedVenues): VenuePools {
  const approve = (spender: string, symbols: readonly string[]) => {
    for (const symbol of new Set(symbols)) {
      queue.call(
        `${symbol}.approve(${spender})`,
        ctx.addressOf(symbol),
        ERC20_ABI,
        'approve',
        [spender, MaxUint256],
        APPROVE_GAS,
      );
    }
  };
  const symbolsOf = (pools: ReadonlyArray<{ base: string; quote: string }>) =>
    pools.flatMap((p) => [p.base, p.quote]);
  if (venues.v4) approve(venues.v4.modifyLiquidityRouter, symbolsOf(ctx.spec.v4Pools));
  approve(venues.balancer.balancerVault, symbolsOf(ctx.spec.balancerPools));
  return {
    sushi: queueSushiswapPairs(queue, ctx, venues.contracts.sushiswapV2Factory),
    v4: venues.v4 ? queueV4Pools(queue, ctx, venues.v4) : [],
    balancer: queueBalancerPools(queue, ctx, venues.balancer),
    stable: queueStablePools(queue, ctx, venues.contracts.stableSwapFactory),
  };
}

/** The Venues our contracts are built with: Uniswap V2 and V3 and the others, ZeroAddress for an absent venue. */
export function venueAddresses(
  uniswap: { uniswapV2Factory: string; uniswapV3Factory: string },
  venues: VenueContracts,
): VenueAddresses {
  return {
    uniswapV2Factory: uniswap.uniswapV2Factory,
    sushiswapV2Factory: venues.sushiswapV2Factory,
    uniswapV3Factory: uniswap.uniswapV3Factory,
    uniswapV4PoolManager: venues.uniswapV4PoolManager ?? ZeroAddress,
    balancerVault: venues.balancerVault,
    balancerWeightedPoolFactory: venues.balancerWeightedPoolFactory,
    stableSwapFactory: venues.stableSwapFactory,
  };
}

/**
 * Reads back from the venues' own contracts that every pool exists where it was computed to be (the seeding
 * transactions addressed it there): SushiSwap's init-code hash, each V4 pool's price and liquidity, each
 * Balancer pool id and its factory, each StableSwap pool.
 */
export async function checkVenuePools(
  provider: Provider,
  ctx: VenueSeedContext,
  venues: VenueContracts,
  pools: VenuePools,
): Promise<void> {
  const sushi = new Contract(venues.sushiswapV2Factory, SUSHISWAP_FACTORY_ABI, provider);
  const vault = new Contract(venues.balancerVault, BALANCER_VAULT_ABI, provider);
  const weighted = new Contract(
    venues.balancerWeightedPoolFactory,
    BALANCER_WEIGHTED_POOL_FACTORY_ABI,
    provider,
  );
  const stable = new Contract(venues.stableSwapFactory, STABLE_SWAP_FACTORY_ABI, provider);
  const fail = (what: string) => {
    throw new Error(`devnet venue check failed: ${what}`);
  };
  const checks: Array<Promise<void>> = [
    (async () => {
      const hash = (await sushi.getFunction('pairCodeHash')()) as string;
      if (hash !== SUSHISWAP_V2_PAIR_INIT_CODE_HASH)
        fail(`SushiSwap's pair init-code hash is ${hash}, not ${SUSHISWAP_V2_PAIR_INIT_CODE_HASH}`);
    })(),
    ...ctx.spec.sushiPools.map(async (p, i) => {
      const actual = (await sushi.getFunction('getPair')(
        ctx.addressOf(p.base),
        ctx.addressOf(p.quote),
      )) as string;
      if (actual !== pools.sushi[i])
        fail(`SushiSwap ${p.base}/${p.quote} is at ${actual}, not ${pools.sushi[i]}`);
    }),
    ...pools.v4.map(async (p) => {
      const state = await readV4Slot0(provider, venues.uniswapV4PoolManager!, p.id);
      if (
        state.sqrtPriceX96 !== p.sqrtPriceX96 ||
        state.liquidity !== p.liquidity ||
        state.lpFee !== p.key.fee
      )
        fail(
          `V4 pool ${p.id} holds ${JSON.stringify(state, (_, v: unknown) => (typeof v === 'bigint' ? `${v}` : v))}`,
        );
    }),
    ...pools.balancer.map(async (p) => {
      const [pool] = (await vault.getFunction('getPool')(p.id)) as [string, bigint];
      if (pool !== p.address) fail(`Balancer pool id ${p.id} names ${pool}, not ${p.address}`);
      if (!((await weighted.getFunction('isPoolFromFactory')(pool)) as boolean))
        fail(`Balancer pool ${pool} is not from the weighted pool factory`);
    }),
    ...pools.stable.map(async (p) => {
      const actual = (await stable.getFunction('getPool')(p.coins[0], p.coins[1])) as string;
      if (actual !== p.address)
        fail(`StableSwap ${p.spec.base}/${p.spec.quote} is at ${actual}, not ${p.address}`);
    }),
  ];
  // Every read settles before failing: none is left running against a chain the caller may stop.
  const results = await Promise.allSettled(checks);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
