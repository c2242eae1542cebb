import type { SimulationReport } from '../report/report-types';

const fmt = (n: number | null, digits = 6): string =>
  n === null ? '-' : String(Number(n.toPrecision(digits)));

/** Every missed order (at most 10 shown), with why. */
function missedLines(report: SimulationReport): string[] {
  const missed = report.orders.filter((o) => o.missedBecause !== null);
  return [
    ...missed
      .slice(0, 10)
      .map((o) => `  missed ${o.id} (${o.sell} ${o.amount} at ${o.trigger}): ${o.missedBecause}`),
    ...(missed.length > 10 ? [`  … ${missed.length - 10} more in the report`] : []),
  ];
}

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
    `limit orders: placed ${t.placed}, triggered ${t.triggered}, executable ${t.executable}, filled ${t.filled}, ` +
      `missed ${t.missed}, expired ${t.expired}, failed ${Object.values(t.failed).reduce((a, b) => a + b, 0)}` +
      `${failed ? ` (${failed})` : ''}, never executable ${t.neverExecutable}, untriggered ${t.untriggered}`,
    `fill ratio ${fmt(t.fillRatio, 4)} of executable (${fmt(t.triggeredFillRatio, 4)} of triggered), ` +
      `latency blocks from executable p50 ${fmt(t.latencyBlocks.p50)} p95 ${fmt(t.latencyBlocks.p95)} ` +
      `max ${fmt(t.latencyBlocks.max)}; from the path's trigger p50 ${fmt(t.pathLatencyBlocks.p50)} ` +
      `p95 ${fmt(t.pathLatencyBlocks.p95)} max ${fmt(t.pathLatencyBlocks.max)}`,
    ...missedLines(report),
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
