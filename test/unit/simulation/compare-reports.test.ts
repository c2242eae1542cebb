import { buildReport } from '../../../simulator/report/build-report';
import { compareReports, meanGasPerOrder } from '../../../simulator/report/compare-reports';
import { facts, otherReport } from './report-fixture';

describe('compareReports', () => {
  it('prints the key totals side by side with B - A', () => {
    const text = compareReports(buildReport(facts()), otherReport(), ['runs/a', 'runs/b']);
    expect(text).toBe(
      [
        'metric                             |      runs/a |      runs/b |        B-A',
        '-----------------------------------+-------------+-------------+-----------',
        'scenario                           | fixture-run | fixture-run |',
        'seed                               |           7 |           8 |',
        'blocks                             |          10 |          10 |          0',
        'limit placed                       |           6 |           6 |          0',
        'limit triggered                    |           3 |           3 |          0',
        'limit executable                   |           3 |           3 |          0',
        'limit filled                       |           2 |           1 |         -1',
        'limit missed                       |           1 |           1 |          0',
        'limit expired                      |           1 |           1 |          0',
        'limit failed                       |           1 |           2 |         +1',
        'limit never executable             |           0 |           0 |          0',
        'limit untriggered                  |           1 |           1 |          0',
        'fill ratio (executable)            |      0.6667 |      0.3333 |    -0.3334',
        'fill ratio (triggered)             |      0.6667 |      0.3333 |    -0.3334',
        'latency p50 (blocks)               |           1 |           2 |         +1',
        'latency p95 (blocks)               |           1 |           2 |         +1',
        'path latency p50 (blocks)          |           1 |           2 |         +1',
        'gas per order (mean)               |      117500 |      112857 |      -4643',
        'fees 1:USDC                        |         2.0 |           0 |       -2.0',
        'fees 1:WETH                        |       0.001 |       0.001 |        0.0',
        'dca 1 USDC->WETH executed          |           2 |           - |          -',
        'dca 1 USDC->WETH average price     |   2807.0175 |           - |          -',
        'dca 1 USDC->WETH twap              |   3027.7778 |           - |          -',
        'dca 1 USDC->WETH average vs twap % |  -7.2911637 |           - |          -',
        'wall seconds                       |   0.0123456 |        0.02 | +0.0076544',
        's per 1000 blocks                  |       1.235 |           2 |     +0.765',
      ].join('\n'),
    );
  });

  it('matches DCA strategies by position and subtracts fees exactly', () => {
    const a = buildReport(facts());
    const b = buildReport(facts());
    b.dca[0].averagePrice = 3027.7777777777778;
    b.totals.limit.fees = { '1:WETH': '0.000000000000000001', '137:USDC': '1.5' };
    const lines = compareReports(a, b, ['a', 'b']).split('\n');
    expect(lines.filter((l) => l.startsWith('dca') || l.startsWith('fees'))).toEqual([
      'fees 1:USDC                        |         2.0 |                    0 |                  -2.0',
      'fees 1:WETH                        |       0.001 | 0.000000000000000001 | -0.000999999999999999',
      'fees 137:USDC                      |           0 |                  1.5 |                  +1.5',
      'dca 1 USDC->WETH executed          |           2 |                    2 |                     0',
      'dca 1 USDC->WETH average price     |   2807.0175 |            3027.7778 |            +220.76023',
      'dca 1 USDC->WETH twap              |   3027.7778 |            3027.7778 |                     0',
      'dca 1 USDC->WETH average vs twap % |  -7.2911637 |                    0 |            +7.2911637',
    ]);
  });

  it('shows a missing latency as "-"', () => {
    const a = buildReport(facts({ executions: [] }));
    const line = compareReports(a, a, ['a', 'b'])
      .split('\n')
      .find((l) => l.startsWith('latency p50'));
    // The last column is as wide as its widest cell, the fill ratio's 0.0000.
    expect(line).toBe('latency p50 (blocks)               |           - |           - |      -');
  });

  it('compares a report written before the executable totals existed, showing them as "-"', () => {
    const older = buildReport(facts());
    const totals = older.totals.limit as Partial<typeof older.totals.limit>;
    delete totals.executable;
    delete totals.neverExecutable;
    delete totals.triggeredFillRatio;
    delete totals.pathLatencyBlocks;
    const lines = compareReports(older, buildReport(facts()), ['old', 'new']).split('\n');
    expect(
      lines.filter((l) => /^(limit executable|limit never|fill ratio \(triggered|path latency)/.test(l)),
    ).toEqual([
      'limit executable                   |           - |           3 |      -',
      'limit never executable             |           - |           0 |      -',
      'fill ratio (triggered)             |           - |      0.6667 |      -',
      'path latency p50 (blocks)          |           - |           1 |      -',
    ]);
  });
});

describe('meanGasPerOrder', () => {
  it('weights each batch size by the orders it carried', () => {
    expect(
      meanGasPerOrder([
        { batchSize: 1, batches: 2, gasPerOrder: 100_000 },
        { batchSize: 4, batches: 1, gasPerOrder: 40_000 },
      ]),
    ).toBe(60_000);
    expect(meanGasPerOrder([])).toBeNull();
  });
});
