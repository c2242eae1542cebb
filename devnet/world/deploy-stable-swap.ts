import { loadArtifact } from '../../contracts-abi/artifacts';
import { ERC20_ABI, STABLE_SWAP_FACTORY_ABI, STABLE_SWAP_POOL_ABI } from './abis';
import type { VenueSeedContext } from './deploy-sushiswap';
import type { TxQueue } from './tx-queue';
import { sortTokens } from './uniswap-pool-address';
import { stableSwapPoolAddress } from './venue-pool-address';
import { poolAmounts, type StablePoolSpec } from './world-spec';

// A pool creation deploys the pool (about 9 KB of code) and writes the factory's three mappings.
const CREATE_POOL_GAS = 3_500_000n;
const APPROVE_GAS = 80_000n;
// Two Newton solves of D and three storage writes plus two transfers.
const ADD_LIQUIDITY_GAS = 600_000n;

/** Queues our StableSwapFactory, owned by the deployer (only the owner creates pools). */
export function queueStableSwapFactory(queue: TxQueue): string {
  return queue.deploy('StableSwapFactory', loadArtifact('StableSwapFactory'), [queue.address]);
}

export interface SeededStablePool {
  address: string;
  /** coins(0) < coins(1), and the balances in that order. */
  coins: [string, string];
  balances: [bigint, bigint];
  spec: StablePoolSpec;
}

/**
 * Creates every StableSwap pool of the spec and deposits the spec's amounts from the deployer (the first deposit
 * sets the balances; equal USD value on both sides). The factory must not have created pools before.
 */
export function queueStablePools(queue: TxQueue, ctx: VenueSeedContext, factory: string): SeededStablePool[] {
  return ctx.spec.stablePools.map((pool, index) => {
    const base = ctx.addressOf(pool.base);
    const coins = sortTokens(base, ctx.addressOf(pool.quote));
    const amounts = poolAmounts(ctx.spec, pool);
    const balances: [bigint, bigint] =
      coins[0].toLowerCase() === base.toLowerCase()
        ? [amounts.base, amounts.quote]
        : [amounts.quote, amounts.base];
    const address = stableSwapPoolAddress(factory, index);
    const label = `StableSwap ${pool.base}/${pool.quote}`;
    queue.call(
      `${label} createPool`,
      factory,
      STABLE_SWAP_FACTORY_ABI,
      'createPool',
      [coins[0], coins[1], pool.amp, pool.fee],
      CREATE_POOL_GAS,
    );
    for (const coin of coins) {
      queue.call(
        `${label} approve ${coin}`,
        coin,
        ERC20_ABI,
        'approve',
        [address, balances[coins.indexOf(coin)]],
        APPROVE_GAS,
      );
    }
    queue.call(
      `${label} addLiquidity`,
      address,
      STABLE_SWAP_POOL_ABI,
      'addLiquidity',
      [balances, 0n],
      ADD_LIQUIDITY_GAS,
    );
    return { address, coins, balances, spec: pool };
  });
}
