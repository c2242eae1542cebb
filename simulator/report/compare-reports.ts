/**
 * Two simulation reports side by side as a plain-text table (metric | A | B | B-A), for a terminal: the key totals
 * of the limit orders, gas, fees, each DCA strategy's average price against its TWAP, and the run's time.
 */
import { formatUnits, parseUnits } from 'ethers';
import { byChainToken } from './build-report';
import type { DcaStrategyReport, SimulationReport } from './report-types';

type Format = 'text' | 'int' | 'ratio' | 'number' | 'decimal';
type Cell = string | number | null;

interface Row {
  metric: string;
  a: Cell;
  b: Cell;
  format: Format;
}

const MISSING = '-';

export function compareReports(a: SimulationReport, b: SimulationReport, labels: [string, string]): string {
  const rows: Row[] = [
    { metric: 'scenario', a: a.scenario.name, b: b.scenario.name, format: 'text' },
    { metric: 'seed', a: String(a.scenario.seed), b: String(b.scenario.seed), format: 'text' },
    { metric: 'blocks', a: a.scenario.blocks, b: b.scenario.blocks, format: 'int' },
    ...limitRows(a, b),
    ...feeRows(a, b),
    ...dcaRows(a.dca, b.dca),
    { metric: 'wall seconds', a: a.run.wallSeconds, b: b.run.wallSeconds, format: 'number' },
    {
      metric: 's per 1000 blocks',
      a: a.run.secondsPer1000Blocks,
      b: b.run.secondsPer1000Blocks,
      format: 'number',
    },
  ];
  return table(['metric', labels[0], labels[1], 'B-A'], rows.map(cells));
}

function limitRows(a: SimulationReport, b: SimulationReport): Row[] {
  const la = a.totals.limit;
  const lb = b.totals.limit;
  // A report written before a total existed (executable, neverExecutable, pathLatencyBlocks) shows it as missing.
  type Totals = Partial<SimulationReport['totals']['limit']>;
  const int = (metric: string, pick: (r: Totals) => number | null | undefined): Row => ({
    metric,
    a: pick(la) ?? null,
    b: pick(lb) ?? null,
    format: 'int',
  });
  return [
    int('limit placed', (t) => t.placed),
    int('limit triggered', (t) => t.triggered),
    int('limit executable', (t) => t.executable),
    int('limit filled', (t) => t.filled),
    int('limit missed', (t) => t.missed),
    int('limit expired', (t) => t.expired),
    int('limit failed', (t) => Object.values(t.failed ?? {}).reduce((sum, n) => sum + n, 0)),
    int('limit never executable', (t) => t.neverExecutable),
    int('limit untriggered', (t) => t.untriggered),
    { metric: 'fill ratio (executable)', a: la.fillRatio, b: lb.fillRatio, format: 'ratio' },
    {
      metric: 'fill ratio (triggered)',
      a: (la as Totals).triggeredFillRatio ?? null,
      b: (lb as Totals).triggeredFillRatio ?? null,
      format: 'ratio',
    },
    int('latency p50 (blocks)', (t) => t.latencyBlocks?.p50),
    int('latency p95 (blocks)', (t) => t.latencyBlocks?.p95),
    int('path latency p50 (blocks)', (t) => t.pathLatencyBlocks?.p50),
    int('gas per order (mean)', (t) => meanGasPerOrder(t.gasPerOrderByBatchSize ?? [])),
  ];
}

/** Gas per order over every order of every batch: each size's mean weighted by the orders it carried. */
export function meanGasPerOrder(
  bySize: SimulationReport['totals']['limit']['gasPerOrderByBatchSize'],
): number | null {
  let gas = 0;
  let orders = 0;
  for (const size of bySize) {
    gas += size.gasPerOrder * size.batches * size.batchSize;
    orders += size.batches * size.batchSize;
  }
  return orders === 0 ? null : Math.round(gas / orders);
}

/** A token one run paid no fee in shows 0: the other run's figure is still compared against something. */
function feeRows(a: SimulationReport, b: SimulationReport): Row[] {
  const fa = a.totals.limit.fees;
  const fb = b.totals.limit.fees;
  const tokens = [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort(byChainToken);
  return tokens.map((token) => ({
    metric: `fees ${token}`,
    a: fa[token] ?? '0',
    b: fb[token] ?? '0',
    format: 'decimal',
  }));
}

function dcaRows(a: readonly DcaStrategyReport[], b: readonly DcaStrategyReport[]): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const sa = a[i];
    const sb = b[i];
    const named = (sa ?? sb) as DcaStrategyReport;
    const prefix = `dca ${i + 1} ${named.sell}->${named.buy}`;
    rows.push(
      { metric: `${prefix} executed`, a: sa?.executed ?? null, b: sb?.executed ?? null, format: 'int' },
      {
        metric: `${prefix} average price`,
        a: sa?.averagePrice ?? null,
        b: sb?.averagePrice ?? null,
        format: 'number',
      },
      { metric: `${prefix} twap`, a: sa?.twap ?? null, b: sb?.twap ?? null, format: 'number' },
      {
        metric: `${prefix} average vs twap %`,
        a: vsTwap(sa),
        b: vsTwap(sb),
        format: 'number',
      },
    );
  }
  return rows;
}

/** How far the average price lies from the TWAP, in percent of the TWAP. */
function vsTwap(strategy: DcaStrategyReport | undefined): number | null {
  if (!strategy || strategy.averagePrice === null || strategy.twap === 0) return null;
  return (strategy.averagePrice / strategy.twap - 1) * 100;
}

function cells(row: Row): [string, string, string, string] {
  return [row.metric, show(row.a, row.format), show(row.b, row.format), difference(row)];
}

function show(value: Cell, format: Format): string {
  if (value === null) return MISSING;
  if (typeof value === 'string') return value;
  switch (format) {
    case 'int':
      return String(Math.round(value));
    case 'ratio':
      return value.toFixed(4);
    default:
      // Eight significant digits: a price's float noise (3000.0000000004) stays out of the table.
      return String(Number(value.toPrecision(8)));
  }
}

function difference(row: Row): string {
  const { a, b, format } = row;
  if (format === 'text') return '';
  if (a === null || b === null) return MISSING;
  if (format === 'decimal') return signed(decimalDifference(String(a), String(b)));
  return signed(show(Number(b) - Number(a), format));
}

/** b - a of two decimal strings, exactly (fees are token amounts). */
function decimalDifference(a: string, b: string): string {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const diff = parseUnits(b, scale) - parseUnits(a, scale);
  const text = formatUnits(diff, scale);
  return scale === 0 ? text.replace(/\.0$/, '') : text;
}

function fractionDigits(decimal: string): number {
  const dot = decimal.indexOf('.');
  return dot === -1 ? 0 : decimal.length - dot - 1;
}

function signed(text: string): string {
  if (text.startsWith('-')) return /[1-9]/.test(text) ? text : text.slice(1);
  return /[1-9]/.test(text) ? `+${text}` : text;
}

function table(
  header: [string, string, string, string],
  body: Array<[string, string, string, string]>,
): string {
  const all = [header, ...body];
  const widths = header.map((_, col) => Math.max(...all.map((row) => row[col].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col])))
      .join(' | ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(header), rule, ...body.map(line)].join('\n');
}
