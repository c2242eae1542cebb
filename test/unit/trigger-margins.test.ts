import type { ReportOrder, SimulationReport } from '../../simulator/report/report-types';
import { describeMargins, triggerMargins } from '../../bench/trigger-margins';

const limit = (over: Partial<ReportOrder>): ReportOrder =>
  ({
    id: 'o',
    kind: 'limit',
    chainId: 1,
    pair: 'WETH/USDC',
    sell: 'WETH',
    buy: 'USDC',
    trigger: '3000',
    status: 'completed',
    triggeredAtBlock: 1,
    filledAtBlock: null,
    ...over,
  }) as ReportOrder;

const report = (orders: ReportOrder[]): SimulationReport =>
  ({
    markets: [{ chainId: 1, pair: 'WETH/USDC', path: [2990, 3000, 3003, 3006, 2990], realized: [] }],
    orders,
  }) as unknown as SimulationReport;

describe('trigger margins of a simulation report', () => {
  it('measures the path past the trigger at the block before each fill, both ways round', () => {
    const m = triggerMargins(
      report([
        limit({ id: 'a', filledAtBlock: 4 }),
        // Sells USDC at 1/3000 WETH per USDC: block 0's 2990 USDC per WETH pays it 3000 / 2990 − 1 past it.
        limit({
          id: 'b',
          sell: 'USDC',
          buy: 'WETH',
          trigger: String(1 / 3000),
          triggeredAtBlock: 0,
          filledAtBlock: 1,
        }),
        // Filled in its trigger's own block: counted at that block (3003), not at the block before (2990).
        limit({ id: 'c', trigger: '3003', triggeredAtBlock: 2, filledAtBlock: 2 }),
      ]),
    );
    expect(m.beforeFill.map((x) => Number(x.toFixed(3)))).toEqual([0, 0.2, 0.334]);
    expect(m.unfilled).toEqual([]);
  });

  it('gives each triggered order left pending the best the path reached after its trigger', () => {
    const m = triggerMargins(
      report([
        limit({ id: 'filled', filledAtBlock: 4 }),
        limit({ id: 'open', status: 'pending', trigger: '3002' }),
        limit({ id: 'expired', status: 'expired' }),
        limit({ id: 'untriggered', status: 'pending', triggeredAtBlock: null }),
      ]),
    );
    expect(m.unfilled).toHaveLength(1);
    expect(m.unfilled[0]).toMatchObject({ id: 'open', triggeredAtBlock: 1 });
    expect(m.unfilled[0]!.bestExcessPct).toBeCloseTo((3006 / 3002 - 1) * 100, 9);
    expect(describeMargins(m)).toContain('triggered and never filled: 1;');
  });
});
