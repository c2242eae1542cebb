import { ZeroHash } from 'ethers';
import { getAmount0Delta, getAmount1Delta } from '../../shared/routing/math/sqrt-price-math';
import { getSqrtRatioAtTick } from '../../shared/routing/math/tick-math';
import { V4_MODIFY_LIQUIDITY_ABI, V4_POOL_MANAGER_ABI } from './abis';
import type { VenueSeedContext } from './deploy-sushiswap';
import { loadNpmArtifact } from './npm-artifacts';
import type { TxQueue } from './tx-queue';
import { Q96, fullRangeTicksForSpacing, sqrtPriceX96FromAmounts } from './v3-math';
import { v4PoolId, v4PoolKey, type V4PoolKey } from './venue-pool-address';
import { poolAmounts } from './world-spec';

export interface UniswapV4Contracts {
  uniswapV4PoolManager: string;
  /** v4-core's PoolModifyLiquidityTest: how the devnet adds liquidity (it needs the deployer's allowance). */
  modifyLiquidityRouter: string;
}

// The manager's runtime code is 24 KB (4.8M gas of code deposit) and its constructor writes the owner.
const POOL_MANAGER_GAS = 7_000_000n;
const INITIALIZE_GAS = 300_000n;
// A full-range position: two tick updates, the position, both settlements.
const MODIFY_LIQUIDITY_GAS = 1_000_000n;

/** Queues Uniswap V4's PoolManager (owned by the deployer; no protocol fee) and the liquidity router. */
export function queueUniswapV4(queue: TxQueue): UniswapV4Contracts {
  const uniswapV4PoolManager = queue.deploy(
    'Uniswap V4 PoolManager',
    loadNpmArtifact('PoolManager'),
    [queue.address],
    POOL_MANAGER_GAS,
  );
  const modifyLiquidityRouter = queue.deploy(
    'Uniswap V4 PoolModifyLiquidityTest',
    loadNpmArtifact('PoolModifyLiquidityTest'),
    [uniswapV4PoolManager],
  );
  return { uniswapV4PoolManager, modifyLiquidityRouter };
}

/**
 * The largest liquidity whose full-range position at `sqrtPriceX96` needs at most `amount0` and `amount1` (the
 * manager rounds what it takes up): LiquidityAmounts.getLiquidityForAmounts, then checked against the exact deltas.
 */
export function liquidityForAmounts(
  sqrtPriceX96: bigint,
  tickLower: number,
  tickUpper: number,
  amount0: bigint,
  amount1: bigint,
): bigint {
  const [sqrtA, sqrtB] = [getSqrtRatioAtTick(tickLower), getSqrtRatioAtTick(tickUpper)];
  if (sqrtPriceX96 <= sqrtA || sqrtPriceX96 >= sqrtB) throw new Error('the price is outside the position');
  const fromAmount0 = (amount0 * ((sqrtPriceX96 * sqrtB) / Q96)) / (sqrtB - sqrtPriceX96);
  const fromAmount1 = (amount1 * Q96) / (sqrtPriceX96 - sqrtA);
  let liquidity = fromAmount0 < fromAmount1 ? fromAmount0 : fromAmount1;
  const fits = (l: bigint) =>
    getAmount0Delta(sqrtPriceX96, sqrtB, l, true) <= amount0 &&
    getAmount1Delta(sqrtA, sqrtPriceX96, l, true) <= amount1;
  // Rounding up costs at most a few base units: step down by a billionth until both sides fit.
  while (!fits(liquidity)) liquidity -= liquidity / 1_000_000_000n + 1n;
  return liquidity;
}

export interface SeededV4Pool {
  key: V4PoolKey;
  /** The PoolId (bytes32): how the manager and our hop encoding name the pool. */
  id: string;
  sqrtPriceX96: bigint;
  liquidity: bigint;
}

/**
 * Initializes every V4 pool of the spec at the reference price and adds one full-range position holding the spec's
 * amounts (the deployer pays through the router). Returns the pools in spec order.
 */
export function queueV4Pools(queue: TxQueue, ctx: VenueSeedContext, v4: UniswapV4Contracts): SeededV4Pool[] {
  return ctx.spec.v4Pools.map((pool) => {
    const base = ctx.addressOf(pool.base);
    const key = v4PoolKey(base, ctx.addressOf(pool.quote), pool.fee, pool.tickSpacing);
    const amounts = poolAmounts(ctx.spec, pool);
    const baseIs0 = key.currency0.toLowerCase() === base.toLowerCase();
    const [amount0, amount1] = baseIs0 ? [amounts.base, amounts.quote] : [amounts.quote, amounts.base];
    const sqrtPriceX96 = sqrtPriceX96FromAmounts(amount0, amount1);
    const { tickLower, tickUpper } = fullRangeTicksForSpacing(pool.tickSpacing);
    const liquidity = liquidityForAmounts(sqrtPriceX96, tickLower, tickUpper, amount0, amount1);
    const label = `V4 ${pool.base}/${pool.quote} ${pool.fee}`;
    queue.call(
      `${label} initialize`,
      v4.uniswapV4PoolManager,
      V4_POOL_MANAGER_ABI,
      'initialize',
      [key, sqrtPriceX96],
      INITIALIZE_GAS,
    );
    queue.call(
      `${label} modifyLiquidity`,
      v4.modifyLiquidityRouter,
      V4_MODIFY_LIQUIDITY_ABI,
      'modifyLiquidity',
      [key, { tickLower, tickUpper, liquidityDelta: liquidity, salt: ZeroHash }, '0x'],
      MODIFY_LIQUIDITY_GAS,
    );
    return { key, id: v4PoolId(key), sqrtPriceX96, liquidity };
  });
}
