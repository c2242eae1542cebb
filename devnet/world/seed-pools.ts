import { MaxUint256 } from 'ethers';
import { ERC20_ABI, FAR_DEADLINE, V2_ROUTER_ABI, V3_POOL_ABI, V3_POSITION_MANAGER_ABI } from './abis';
import type { UniswapContracts } from './deploy-uniswap';
import type { TxQueue } from './tx-queue';
import { sortTokens, v3PoolAddress } from './uniswap-pool-address';
import { fullRangeTicks, sqrtPriceX96FromAmounts } from './v3-math';
import { poolAmounts, type WorldSpec } from './world-spec';

export interface SeedContext {
  spec: WorldSpec;
  uniswap: UniswapContracts;
  /** Token address by symbol. */
  addressOf: (symbol: string) => string;
}

// Creating a pair or a pool deploys it: about 2.3M and 5M gas; the rest is ordinary token accounting.
const V2_ADD_LIQUIDITY_GAS = 3_500_000n;
const V3_CREATE_POOL_GAS = 6_500_000n;
const V3_MINT_GAS = 1_000_000n;

/** Creates every V2 pair through Router02.addLiquidity: the first deposit sets the price. */
export function queueV2Pools(queue: TxQueue, ctx: SeedContext): void {
  for (const pool of ctx.spec.v2Pools) {
    const amounts = poolAmounts(ctx.spec, pool);
    queue.call(
      `V2 ${pool.base}/${pool.quote} addLiquidity`,
      ctx.uniswap.uniswapV2Router02,
      V2_ROUTER_ABI,
      'addLiquidity',
      [
        ctx.addressOf(pool.base),
        ctx.addressOf(pool.quote),
        amounts.base,
        amounts.quote,
        amounts.base,
        amounts.quote,
        queue.address,
        FAR_DEADLINE,
      ],
      V2_ADD_LIQUIDITY_GAS,
    );
  }
}

/**
 * Observations each devnet V3 pool keeps: the OrderExecutor's price bound averages over the pool's history (up to
 * its TWAP window), as on a real chain, where the deep pools keep hundreds.
 */
export const V3_OBSERVATION_CARDINALITY = 64;
const V3_CARDINALITY_GAS = 2_000_000n;

/** Creates every V3 pool at the reference price and adds one full-range position holding the spec's amounts. */
export function queueV3Pools(queue: TxQueue, ctx: SeedContext): void {
  for (const pool of ctx.spec.v3Pools) {
    const amounts = poolAmounts(ctx.spec, pool);
    const base = ctx.addressOf(pool.base);
    const [token0, token1] = sortTokens(base, ctx.addressOf(pool.quote));
    const [amount0, amount1] =
      token0 === base ? [amounts.base, amounts.quote] : [amounts.quote, amounts.base];
    const label = `V3 ${pool.base}/${pool.quote} ${pool.fee}`;
    queue.call(
      `${label} createAndInitializePoolIfNecessary`,
      ctx.uniswap.uniswapV3PositionManager,
      V3_POSITION_MANAGER_ABI,
      'createAndInitializePoolIfNecessary',
      [token0, token1, pool.fee, sqrtPriceX96FromAmounts(amount0, amount1)],
      V3_CREATE_POOL_GAS,
    );
    const { tickLower, tickUpper } = fullRangeTicks(pool.fee);
    queue.call(
      `${label} mint`,
      ctx.uniswap.uniswapV3PositionManager,
      V3_POSITION_MANAGER_ABI,
      'mint',
      [
        {
          token0,
          token1,
          fee: pool.fee,
          tickLower,
          tickUpper,
          amount0Desired: amount0,
          amount1Desired: amount1,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: queue.address,
          deadline: FAR_DEADLINE,
        },
      ],
      V3_MINT_GAS,
    );
    queue.call(
      `${label} increaseObservationCardinalityNext`,
      v3PoolAddress(ctx.uniswap.uniswapV3Factory, token0, token1, pool.fee),
      V3_POOL_ABI,
      'increaseObservationCardinalityNext',
      [V3_OBSERVATION_CARDINALITY],
      V3_CARDINALITY_GAS,
    );
  }
}

/** Lets Router02 and the position manager take the deployer's tokens for seeding. */
export function queueSeedApprovals(queue: TxQueue, ctx: SeedContext): void {
  const spenders = [ctx.uniswap.uniswapV2Router02, ctx.uniswap.uniswapV3PositionManager];
  for (const token of [ctx.spec.wrapped, ...ctx.spec.tokens]) {
    for (const spender of spenders) {
      queue.call(
        `${token.symbol}.approve(${spender})`,
        ctx.addressOf(token.symbol),
        ERC20_ABI,
        'approve',
        [spender, MaxUint256],
        80_000n,
      );
    }
  }
}
