import type { SimulationReport } from '../report/report-types';

const fmt = (n: number | null, digits = 6): string =>
  n === null ? '-' : String(Number(n.toPrecision(digits)));

/** The run's outcome on one screen, for the terminal. */
export function summaryText(report: SimulationReport, files: { json: string; html: string }): string {
  const t = report.totals.limit;
  const failed = Object.entries(t.failed)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const gas = t.gasPerOrderByBatchSize.map((g) => `${g.batchSize}: ${Math.round(g.gasPerOrder)}`).join(', ');
  const fees = Object.entries(t.fees)
    .map(([token, amount]) => `${amount} ${token}`)
    .join(', ');
  const lines = [
    `${report.scenario.name}: ${report.scenario.blocks} blocks of ${report.scenario.blockTimeSeconds} s, seed ${report.scenario.seed}, ` +
      `${report.run.wallSeconds} s (${report.run.secondsPer1000Blocks} s per 1,000 blocks)`,
    `limit orders: placed ${t.placed}, triggered ${t.triggered}, filled ${t.filled}, missed ${t.missed}, ` +
      `expired ${t.expired}, failed ${Object.values(t.failed).reduce((a, b) => a + b, 0)}${failed ? ` (${failed})` : ''}, ` +
      `untriggered ${t.untriggered}`,
    `fill ratio ${fmt(t.fillRatio, 4)}, latency blocks p50 ${fmt(t.latencyBlocks.p50)} p95 ${fmt(t.latencyBlocks.p95)} max ${fmt(t.latencyBlocks.max)}`,
    `gas per order by batch size: ${gas || '-'}`,
    `fees: ${fees || '-'}`,
    ...report.dca.map(
      (d) =>
        `DCA ${d.strategyId.slice(0, 8)} ${d.sell}->${d.buy} (chain ${d.chainId}): ${d.executed}/${d.iterations} executed, ` +
        `average ${fmt(d.averagePrice)} vs TWAP ${fmt(d.twap)} ${d.pair.split('/')[1] ?? ''} per ${d.pair.split('/')[0] ?? ''}`,
    ),
    `time: ${Object.entries(report.run.phases)
      .map(([phase, s]) => `${phase} ${s} s`)
      .join(', ')}`,
    ...(report.discrepancies?.length
      ? [
          `DISCREPANCIES between the API and the chain (${report.discrepancies.length}):`,
          ...report.discrepancies.slice(0, 10),
        ]
      : []),
    `report: ${files.json}`,
    `        ${files.html}`,
  ];
  return lines.join('\n');
}
