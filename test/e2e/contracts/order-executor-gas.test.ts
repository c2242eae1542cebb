import { writeFileSync } from 'node:fs';
import { startContractsWorld, type ContractsWorld } from './contracts-fixture';
import {
  GAS_BATCH_SIZES,
  GAS_PER_ORDER_TARGET_AT_50,
  GAS_RATIO_TARGET,
  GAS_REPORTED_SIZES,
  GAS_SCENARIO,
  GAS_SNAPSHOT_FILE,
  prepareOrderExecutorGasScenario,
  readGasSnapshot,
  type GasSnapshot,
  type OrderExecutorGasScenario,
} from './order-executor-gas-scenario';

jest.setTimeout(180_000);

const TOLERANCE = 0.02;

describe('OrderExecutor gas per order (batch sizes 1, 5, 20, 50)', () => {
  let ctx: ContractsWorld;
  let scenario: OrderExecutorGasScenario;

  beforeAll(async () => {
    ctx = await startContractsWorld();
    scenario = await prepareOrderExecutorGasScenario(ctx);
    expect(scenario.warmUp.executed).toHaveLength(1);
  });

  afterAll(async () => {
    await ctx?.stop();
  });

  it('stays within 2% of the committed gas snapshot', async () => {
    const gas = new Map<number, number>();
    for (const n of GAS_BATCH_SIZES) {
      const run = await scenario.runBatch(n);
      expect(run.executed).toHaveLength(n);
      gas.set(n, run.gasUsed);
    }
    const g = (n: number) => gas.get(n)!;
    const measured: GasSnapshot = {
      scenario: GAS_SCENARIO,
      batches: [...GAS_BATCH_SIZES].map((n) => ({
        orders: n,
        gasUsed: g(n),
        gasPerOrder: Math.round(g(n) / n),
      })),
      marginalGas20thOrder: g(20) - g(19),
      averageMarginalGas: Math.round((g(20) - g(1)) / 19),
      ratio20thOrderToSingleOrderBatch: Math.round(((g(20) - g(19)) / g(1)) * 10_000) / 10_000,
      gasPerOrderAt50: Math.round(g(50) / 50),
    };
    console.warn(
      `[gas] per order: ${GAS_REPORTED_SIZES.map((n) => `${n} -> ${Math.round(g(n) / n)}`).join(', ')}; ` +
        `20th order ${measured.marginalGas20thOrder} = ${measured.ratio20thOrderToSingleOrderBatch} of a single-order batch`,
    );

    if (process.env.UPDATE_GAS_SNAPSHOT === '1') {
      writeFileSync(GAS_SNAPSHOT_FILE, `${JSON.stringify(measured, null, 2)}\n`);
    } else {
      const committed = readGasSnapshot();
      if (!committed) {
        throw new Error(`${GAS_SNAPSHOT_FILE} is missing: run with UPDATE_GAS_SNAPSHOT=1 and commit it`);
      }
      for (const batch of committed.batches) {
        const now = g(batch.orders);
        const drift = (now - batch.gasUsed) / batch.gasUsed;
        if (Math.abs(drift) > TOLERANCE) {
          throw new Error(
            `gas of a ${batch.orders}-order batch is ${now}, committed ${batch.gasUsed} (${(drift * 100).toFixed(2)}%): ` +
              'if intended, rerun with UPDATE_GAS_SNAPSHOT=1 and commit contracts-abi/gas-snapshot.json',
          );
        }
      }
      expect(committed.batches.map((b) => b.orders)).toEqual([...GAS_BATCH_SIZES]);
    }
    expect(measured.ratio20thOrderToSingleOrderBatch).toBeLessThanOrEqual(GAS_RATIO_TARGET);
    // Issue 26: a batch of 50 orders of one pair costs at most this per order (receipt gasUsed / 50).
    expect(g(50) / 50).toBeLessThanOrEqual(GAS_PER_ORDER_TARGET_AT_50);
  });
});
