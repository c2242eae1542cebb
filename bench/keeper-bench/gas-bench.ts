import { startContractsWorld } from '../../test/e2e/contracts/contracts-fixture';
import {
  GAS_BATCH_SIZES,
  GAS_REPORTED_SIZES,
  GAS_SCENARIO,
  prepareOrderExecutorGasScenario,
  readGasSnapshot,
  type GasBatchRun,
} from '../../test/e2e/contracts/order-executor-gas-scenario';

export interface GasRow {
  orders: number;
  gasUsed: number;
  gasPerOrder: number;
  /** The committed contracts-abi/gas-snapshot.json figure for this batch size, when it has one. */
  committedGasUsed: number | null;
}

export interface GasResult {
  rows: GasRow[];
  /** gas(20) − gas(19): what the 20th order of the pair adds. */
  marginal20th: number;
  single: number;
  /** marginal20th / single; the earlier target is at most GAS_RATIO_TARGET. */
  ratio: number;
  /** gas(50) / 50, rounded: issue 26's figure, at most GAS_PER_ORDER_TARGET_AT_50. */
  perOrderAt50: number;
  scenario: string;
}

function committed(): Map<number, number> {
  try {
    return new Map((readGasSnapshot()?.batches ?? []).map((b) => [b.orders, b.gasUsed]));
  } catch {
    return new Map();
  }
}

function allExecuted(run: GasBatchRun, label: string): GasBatchRun {
  if (run.executed.length !== run.orders)
    throw new Error(`${label}: ${run.executed.length} of ${run.orders} orders executed`);
  return run;
}

/**
 * Gas per order of the OrderExecutor at batch sizes 1, 5, 20 and 50 (and 19, for the 20th order's marginal cost): the
 * scenario of the contract gas test (test/e2e/contracts/order-executor-gas-scenario.ts) on a fresh fixture chain.
 */
export async function runGasBench(): Promise<GasResult> {
  const ctx = await startContractsWorld();
  try {
    const scenario = await prepareOrderExecutorGasScenario(ctx);
    allExecuted(scenario.warmUp, 'warm-up');
    const gas = new Map<number, number>();
    for (const n of GAS_BATCH_SIZES)
      gas.set(n, allExecuted(await scenario.runBatch(n), `batch-${n}`).gasUsed);
    const known = committed();
    const g = (n: number) => gas.get(n)!;
    return {
      rows: GAS_REPORTED_SIZES.map((n) => ({
        orders: n,
        gasUsed: g(n),
        gasPerOrder: Math.round(g(n) / n),
        committedGasUsed: known.get(n) ?? null,
      })),
      marginal20th: g(20) - g(19),
      single: g(1),
      ratio: (g(20) - g(19)) / g(1),
      perOrderAt50: Math.round(g(50) / 50),
      scenario: GAS_SCENARIO,
    };
  } finally {
    await ctx.stop();
  }
}
