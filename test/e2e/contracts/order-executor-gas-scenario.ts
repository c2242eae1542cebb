import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogDescription, Wallet } from 'ethers';
import {
  call,
  fundedWallets,
  increaseTime,
  latestTimestamp,
  mined,
  orderRef,
  parseLogs,
  revertTo,
  signPair,
  snapshot,
  TEST_INTEGRATOR,
  v2Hop,
  type ContractsWorld,
  type GroupInput,
} from './contracts-fixture';
import { DEFAULT_MAX_FEE_BPS } from '../../../devnet/world/deploy-service-contracts';

/**
 * The OrderExecutor gas scenario measured by test/e2e/contracts/order-executor-gas.test.ts (against the committed
 * snapshot) and by `npm run bench:keeper`: one place, so the bench reports the very figures the test guards.
 */

/** Committed; `UPDATE_GAS_SNAPSHOT=1 npx jest test/e2e/contracts/order-executor-gas.test.ts` rewrites it. */
export const GAS_SNAPSHOT_FILE = join(__dirname, '../../../contracts-abi/gas-snapshot.json');
/** 19 beside 20: the 20th order's marginal cost is gas(20) − gas(19). */
export const GAS_BATCH_SIZES = [1, 5, 19, 20, 50] as const;
export const GAS_REPORTED_SIZES = [1, 5, 20, 50] as const;
/** An earlier target: the 20th order of a pair costs at most this share of a single-order execution. */
export const GAS_RATIO_TARGET = 0.5;
/** Issue 26's target: gas per order (receipt gasUsed / 50) of a 50-order batch of one pair. */
export const GAS_PER_ORDER_TARGET_AT_50 = 60_000;
export const GAS_SCENARIO =
  'OrderExecutor.executeBatch with one group of n orders USDC -> WETH over one Uniswap V2 pair (chain 1 fixture ' +
  'world), one maker per order (no WETH held before, finite allowance), fee 1 USDC per order, pair and fee ' +
  "collector already used once; execution indices consecutive after the warm-up order's, as the store assigns them to " +
  "orders claimed together (the batch's orders set bits of the executed bitmap word the warm-up already wrote; a " +
  'word of 256 orders is new once in 256 orders); each order signed for one integrator and held to the price bound (read once per ' +
  "group by a static call to the PriceOracle: USDC's configured source, the WETH/USDC 0.05% Uniswap V3 pool's " +
  'time-weighted average, WETH itself the unit); the swap in its own self-call; receipt gasUsed of the whole ' +
  'transaction';

const USDC = 10n ** 6n;
const WARM_UP_INDEX = 0n;
const AMOUNT_IN = 1_000n * USDC;
const FEE = 1n * USDC;

export interface GasSnapshot {
  scenario: string;
  batches: Array<{ orders: number; gasUsed: number; gasPerOrder: number }>;
  /** gas(20) − gas(19): what the 20th order of the group adds. */
  marginalGas20thOrder: number;
  /** (gas(20) − gas(1)) / 19: the average cost of each order after the first. */
  averageMarginalGas: number;
  /** gas(50) / 50: issue 26's figure, at most GAS_PER_ORDER_TARGET_AT_50. */
  gasPerOrderAt50: number;
  /** marginalGas20thOrder / gas(1); the target is at most GAS_RATIO_TARGET. */
  ratio20thOrderToSingleOrderBatch: number;
}

export interface GasBatchRun {
  orders: number;
  gasUsed: number;
  /** The batch's OrderExecuted events: one per order when every order executed. */
  executed: LogDescription[];
}

export interface OrderExecutorGasScenario {
  /** The single-order batch that leaves the pair's price accumulators and the fee collector's balance non-zero. */
  readonly warmUp: GasBatchRun;
  /**
   * A batch of `orders` orders (at most the largest of GAS_BATCH_SIZES), run from the chain state right after the
   * warm-up, one block later: every size sees the same steady state, the pair updating its accumulators.
   */
  runBatch(orders: number): Promise<GasBatchRun>;
}

/** Funds and approves the makers on `ctx` and runs the warm-up batch. */
export async function prepareOrderExecutorGasScenario(
  ctx: ContractsWorld,
): Promise<OrderExecutorGasScenario> {
  const [usdc, weth] = [ctx.address('USDC'), ctx.address('WETH')];
  const oe = ctx.world.contracts.orderExecutor;
  const largest = Math.max(...GAS_BATCH_SIZES);
  const makers = await fundedWallets(
    ctx,
    'gas-maker',
    largest + 1,
    usdc,
    10_000n * USDC,
    oe,
    1_000_000n * USDC,
  );

  // The warm-up order takes index WARM_UP_INDEX, a batch's orders the next ones (every batch starts from the
  // warm-up's state, so they reuse them).
  const execute = async (batchMakers: Wallet[], label: string, firstIndex: bigint): Promise<GasBatchRun> => {
    const group: GroupInput = {
      tokenIn: usdc,
      tokenOut: weth,
      paths: [{ weight: 1n, hops: [v2Hop(weth)] }],
      orders: await Promise.all(
        batchMakers.map(async (m, i) => ({
          maker: m.address,
          index: firstIndex + BigInt(i),
          ref: orderRef(`${label}-${i}`),
          integrator: TEST_INTEGRATOR,
          maxDeviationBps: 0,
          maxFeeBps: DEFAULT_MAX_FEE_BPS,
          amountIn: AMOUNT_IN,
          fee: FEE,
          minAmountOut: 1n,
          signature: await signPair(ctx, m, m.address, usdc, weth),
        })),
      ),
    };
    const deadline = (await latestTimestamp(ctx.provider)) + 3600n;
    const receipt = await mined(call(ctx.orderExecutor, ctx.executor, 'executeBatch', [[group], deadline]));
    return {
      orders: batchMakers.length,
      gasUsed: Number(receipt.gasUsed),
      executed: parseLogs(ctx.orderExecutor, receipt, 'OrderExecuted'),
    };
  };

  const warmUp = await execute([makers.pop()!], 'warm-up', WARM_UP_INDEX);
  let base = await snapshot(ctx.chain);
  return {
    warmUp,
    async runBatch(orders) {
      base = await revertTo(ctx.chain, base);
      await increaseTime(ctx.chain, 15);
      return execute(makers.slice(0, orders), `batch-${orders}`, WARM_UP_INDEX + 1n);
    },
  };
}

/** The committed snapshot, or null when the file does not exist. */
export function readGasSnapshot(): GasSnapshot | null {
  if (!existsSync(GAS_SNAPSHOT_FILE)) return null;
  return JSON.parse(readFileSync(GAS_SNAPSHOT_FILE, 'utf8')) as GasSnapshot;
}
