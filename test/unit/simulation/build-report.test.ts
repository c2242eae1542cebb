import { buildReport, nearestRank } from '../../../simulator/report/build-report';
import type { ReportOrder } from '../../../simulator/report/report-types';
import { PRICES, TX, facts } from './report-fixture';

function orderById(id: string): ReportOrder {
  const order = buildReport(facts()).orders.find((o) => o.id === id);
  if (!order) throw new Error(`no order ${id}`);
  return order;
}

describe('buildReport', () => {
  it('totals the limit orders: each outcome counted once, ratios over executable and triggered orders', () => {
    const { limit } = buildReport(facts()).totals;
    expect(limit).toEqual({
      placed: 6,
      triggered: 3,
      executable: 3,
      filled: 2,
      missed: 1,
      expired: 1,
      failed: { insufficient_allowance: 1 },
      neverExecutable: 0,
      untriggered: 1,
      fillRatio: 0.6667,
      triggeredFillRatio: 0.6667,
      // '01' executable at 4, filled at 5; '06' executable at 7, filled at 8.
      latencyBlocks: { p50: 1, p95: 1, max: 1 },
      // '01' triggered at 3; '06' at 7.
      pathLatencyBlocks: { p50: 1, p95: 2, max: 2 },
      gasPerOrderByBatchSize: [
        // 90,000, 150,000, 120,000 and 80,001 gas for one order each.
        { batchSize: 1, batches: 4, gasPerOrder: 110_000 },
        // 300,000 and 200,000 gas, two orders each: every transaction once, however many events it carried.
        { batchSize: 2, batches: 2, gasPerOrder: 125_000 },
      ],
      fees: { '1:USDC': '2.0', '1:WETH': '0.001' },
    });
  });

  it('reports a filled order with its execution, not its earlier failed attempt', () => {
    expect(orderById('01')).toEqual({
      id: '01',
      kind: 'limit',
      chainId: 1,
      pair: 'WETH/USDC',
      sell: 'WETH',
      buy: 'USDC',
      amount: '0.5',
      trigger: '3100',
      status: 'completed',
      placedAtBlock: 0,
      triggeredAtBlock: 3,
      executableAtBlock: 4,
      executableBlocks: 1,
      filledAtBlock: 5,
      latencyBlocks: 1,
      pathLatencyBlocks: 2,
      executionPrice: 3100,
      txHash: TX.a,
      gasUsed: 300_000,
      batchSize: 2,
      fee: '0.001',
      amountIn: '0.5',
      amountOut: '1550.0',
      checkedOnChain: true,
      reason: null,
      missedBecause: null,
    });
  });

  it('explains a missed order: when it was executable, how it ended, the chain and the API on why', () => {
    expect(orderById('04')).toMatchObject({
      status: 'pending',
      executableAtBlock: 4,
      executableBlocks: 2,
      filledAtBlock: null,
      latencyBlocks: null,
      missedBecause:
        'executable at 2 blocks from 4 to 5; ended pending; slippage; diagnosis WAITING_FOR_BLOCK: tried again soon',
    });
  });

  it('counts an order the path triggered but the pools never paid as never executable, not missed', () => {
    const base = facts();
    const before = buildReport(base).totals.limit;
    delete base.executable['04'];
    const report = buildReport(base);
    expect(report.orders.find((o) => o.id === '04')).toMatchObject({
      triggeredAtBlock: 4,
      executableAtBlock: null,
      executableBlocks: 0,
      missedBecause: null,
    });
    expect(report.totals.limit).toMatchObject({
      triggered: before.triggered,
      executable: before.executable - 1,
      missed: before.missed - 1,
      neverExecutable: 1,
      fillRatio: 1,
      triggeredFillRatio: before.triggeredFillRatio,
    });
  });

  it('counts an executable order that expired unfilled as missed', () => {
    const base = facts();
    const order = base.limitOrders.find((o) => o.id === '04')!;
    order.status = 'failed';
    order.reasonFail = ['expired'];
    order.diagnosis = null;
    const report = buildReport(base);
    expect(report.orders.find((o) => o.id === '04')?.missedBecause).toBe(
      'executable at 2 blocks from 4 to 5; ended failed; expired',
    );
    expect(report.totals.limit).toMatchObject({ missed: 1, expired: 1 });
  });

  it('prices a quote seller in QUOTE per BASE (in / out) and checks its trigger from the planned block', () => {
    const order = orderById('06');
    expect(order).toMatchObject({
      placedAtBlock: 8,
      triggeredAtBlock: 7,
      filledAtBlock: 8,
      latencyBlocks: 1,
      txHash: TX.d,
      fee: '2.0',
      amountIn: '1000.0',
      amountOut: '0.34',
    });
    expect(order.executionPrice).toBe(1000 / 0.34);
  });

  it("takes the API's reason first, then the chain's last OrderFailed reason", () => {
    expect(orderById('02')).toMatchObject({
      status: 'failed',
      triggeredAtBlock: null,
      filledAtBlock: null,
      executionPrice: null,
      reason: 'insufficient_allowance',
      txHash: TX.b,
      gasUsed: 200_000,
      batchSize: 2,
      fee: null,
      amountIn: null,
    });
    expect(orderById('03')).toMatchObject({
      status: 'failed',
      reason: 'expired',
      txHash: null,
      gasUsed: null,
    });
    expect(orderById('04')).toMatchObject({
      status: 'pending',
      triggeredAtBlock: 4,
      filledAtBlock: null,
      latencyBlocks: null,
      reason: 'slippage',
    });
    expect(orderById('05')).toMatchObject({ status: 'pending', triggeredAtBlock: null, reason: null });
  });

  it('lists every DCA iteration with its share of the budget and its outcome', () => {
    const dca = buildReport(facts()).orders.filter((o) => o.kind === 'dca');
    expect(dca.map((o) => [o.id, o.iteration, o.strategyId, o.amount, o.status, o.filledAtBlock])).toEqual([
      ['d1', 1, 'strategy-1', '200', 'successful', 1],
      ['d2', 2, 'strategy-1', '200', 'successful', 5],
      ['d3', 3, 'strategy-1', '200', 'error', null],
    ]);
    expect(dca[0].executionPrice).toBe(3200);
    expect(dca[1].executionPrice).toBe(2500);
    expect(dca[2]).toMatchObject({
      trigger: null,
      triggeredAtBlock: null,
      latencyBlocks: null,
      placedAtBlock: 1,
      reason: 'slippage exceeded',
      txHash: TX.f,
      gasUsed: 80_001,
    });
  });

  it('states each DCA iteration amount as the API does', () => {
    const base = facts();
    base.dca[0].orders[2].amount = 33.333334;
    const amounts = buildReport(base)
      .orders.filter((o) => o.kind === 'dca')
      .map((o) => o.amount);
    expect(amounts).toEqual(['200', '200', '33.333334']);
  });

  it('reports a DCA strategy: average price over executed iterations against the TWAP of its blocks', () => {
    expect(buildReport(facts()).dca).toEqual([
      {
        strategyId: 'strategy-1',
        chainId: 1,
        pair: 'WETH/USDC',
        sell: 'USDC',
        buy: 'WETH',
        status: 'finished',
        iterations: 3,
        executed: 2,
        failed: 1,
        // 400 USDC for 0.0625 + 0.08 WETH.
        averagePrice: 400 / 0.1425,
        // Blocks 1 to 1 + 2 × 4 = 9.
        twap: PRICES.slice(1, 10).reduce((a, b) => a + b, 0) / 9,
        fromBlock: 1,
        toBlock: 9,
      },
    ]);
    expect(PRICES.slice(1, 10).reduce((a, b) => a + b, 0)).toBe(27_250);
  });

  it('ends a strategy TWAP at the last block of the run', () => {
    const base = facts();
    base.dca[0].plan.everyBlocks = 8;
    expect(buildReport(base).dca[0]).toMatchObject({ fromBlock: 1, toBlock: 10, twap: 30_250 / 10 });
  });

  it('has no average price when no iteration executed', () => {
    expect(buildReport(facts({ executions: [] })).dca[0]).toMatchObject({ executed: 2, averagePrice: null });
  });

  it('copies the scenario, the markets and the run with its time per 1,000 blocks', () => {
    const report = buildReport(facts());
    expect(report.version).toBe(1);
    expect(report.scenario).toEqual({
      name: 'fixture-run',
      description: 'every outcome once',
      file: '/scenarios/fixture-run.json',
      seed: 7,
      chains: [1],
      blockTimeSeconds: 12,
      blocks: 10,
      forked: false,
    });
    expect(report.run).toEqual({
      startedAt: '2026-11-02T00:00:00.000Z',
      finishedAt: '2026-11-02T00:00:01.000Z',
      wallSeconds: 0.0123456,
      phases: { setup: 0.01, move: 0.0023456 },
      secondsPer1000Blocks: 1.235,
    });
    expect(report.markets).toEqual([
      { chainId: 1, pair: 'WETH/USDC', path: PRICES, realized: PRICES.map((p) => p + 1) },
    ]);
    expect(report.orders.map((o) => o.id)).toEqual(['01', '02', '03', '04', '05', '06', 'd1', 'd2', 'd3']);
  });

  it('reports nothing triggered as a fill ratio of 0 and no latency', () => {
    const report = buildReport(facts({ limitOrders: [], executions: [] }));
    expect(report.totals.limit).toMatchObject({
      placed: 0,
      triggered: 0,
      fillRatio: 0,
      latencyBlocks: { p50: null, p95: null, max: null },
      gasPerOrderByBatchSize: [],
      fees: {},
    });
  });

  it('names a token the run does not know', () => {
    const base = facts();
    base.tokens[1] = { WETH: base.tokens[1].WETH };
    expect(() => buildReport(base)).toThrow("token USDC on chain 1 is not among the run's tokens");
  });

  it('names an order whose market is not in the scenario', () => {
    const base = facts();
    base.limitOrders[0].plan.pair = 'WBTC/USDC';
    base.limitOrders[0].plan.sell = 'WETH';
    expect(() => buildReport(base)).toThrow('the scenario has no market WBTC/USDC on chain 1');
  });

  it('does not count a trigger the path reaches only after the order expired', () => {
    const base = facts();
    const before = buildReport(base).totals.limit;
    const order = base.limitOrders.find((o) => o.id === '04')!;
    // 3150 is first reached at block 4; the order expires at block 3.
    order.plan.expiresAfterBlocks = 3;
    // Nor could it have been executable after its expiry.
    delete base.executable['04'];
    order.status = 'failed';
    order.reasonFail = ['expired'];
    const report = buildReport(base);
    expect(report.orders.find((o) => o.id === '04')).toMatchObject({
      triggeredAtBlock: null,
      reason: 'expired',
    });
    expect(report.totals.limit).toMatchObject({
      triggered: before.triggered - 1,
      missed: before.missed - 1,
      expired: before.expired + 1,
    });
  });
});

describe('nearestRank', () => {
  it('takes the smallest value with at least p % at or below it', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];
    expect(nearestRank(values, 50)).toBe(10);
    expect(nearestRank(values, 95)).toBe(19);
    expect(nearestRank(values, 100)).toBe(20);
    expect(nearestRank([4], 95)).toBe(4);
    expect(nearestRank([], 50)).toBeNull();
  });
});
