/** The quote benchmark's table: our engine next to the v2-sdk per pair class, with the targets judged per line. */
import { formatUnits } from 'ethers';
import type { LatencyStats } from './latency';

export interface ReportRow {
  pairClass: string;
  /** Which of our engine's configurations the line measures (all sources, V2 only). */
  engine: string;
  ours: LatencyStats;
  /** Absent when the v2-sdk finds no trade (a pair only the new venues hold). */
  sdk?: LatencyStats;
  /** Gross outputs (before our protocol fee, which the sdk does not know), base units of tokenOut. */
  ourOut: bigint;
  sdkOut?: bigint;
  tokenOut: { symbol: string; decimals: number };
}

export const TARGETS = {
  p50Ms: 5,
  p99Ms: 20,
  /** Our quotes per second over the sdk's. */
  minSpeedRatio: 1,
} as const;

/** undefined: nothing to compare with (the sdk has no trade for the pair). */
interface Verdicts {
  p50: boolean;
  p99: boolean;
  speed: boolean | undefined;
  output: boolean | undefined;
}

export function verdicts(row: ReportRow): Verdicts {
  return {
    p50: row.ours.p50Ms <= TARGETS.p50Ms,
    p99: row.ours.p99Ms <= TARGETS.p99Ms,
    speed: row.sdk ? row.ours.quotesPerSecond / row.sdk.quotesPerSecond >= TARGETS.minSpeedRatio : undefined,
    output: row.sdkOut !== undefined ? row.ourOut >= row.sdkOut : undefined,
  };
}

const ms = (v: number): string => v.toFixed(3);
const rate = (v: number): string => Math.round(v).toLocaleString('en-US');
const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'n/a' : ok ? 'PASS' : 'FAIL');

/** ours / sdk to 6 decimals, computed on the exact integers. */
function outRatio(ours: bigint, sdk: bigint): string {
  if (sdk === 0n) return 'n/a';
  return formatUnits((ours * 10n ** 6n) / sdk, 6).padEnd(8, '0');
}

/** The first `textColumns` columns left-aligned, the figures after them right-aligned. */
function formatTable(
  header: readonly string[],
  lines: readonly (readonly string[])[],
  textColumns: number,
): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const render = (cells: readonly string[]) =>
    cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
  return [render(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...lines.map(render)];
}

export function printReport(rows: readonly ReportRow[]): void {
  const header = [
    'class',
    'ours',
    'ours q/s',
    'p50 ms',
    'p99 ms',
    'v2-sdk q/s',
    'p50 ms',
    'p99 ms',
    'speed x',
    'our out',
    'sdk out',
    'out ratio',
    'p50<=5',
    'p99<=20',
    'speed>=1',
    'out>=sdk',
  ];
  const lines = rows.map((row) => {
    const v = verdicts(row);
    return [
      row.pairClass,
      row.engine,
      rate(row.ours.quotesPerSecond),
      ms(row.ours.p50Ms),
      ms(row.ours.p99Ms),
      row.sdk ? rate(row.sdk.quotesPerSecond) : 'no trade',
      row.sdk ? ms(row.sdk.p50Ms) : '-',
      row.sdk ? ms(row.sdk.p99Ms) : '-',
      row.sdk ? (row.ours.quotesPerSecond / row.sdk.quotesPerSecond).toFixed(2) : '-',
      `${formatUnits(row.ourOut, row.tokenOut.decimals)} ${row.tokenOut.symbol}`,
      row.sdkOut !== undefined
        ? `${formatUnits(row.sdkOut, row.tokenOut.decimals)} ${row.tokenOut.symbol}`
        : '-',
      row.sdkOut !== undefined ? outRatio(row.ourOut, row.sdkOut) : 'n/a',
      verdict(v.p50),
      verdict(v.p99),
      verdict(v.speed),
      verdict(v.output),
    ];
  });
  for (const line of formatTable(header, lines, 2)) console.log(line);
  const passed = rows.filter((row) => Object.values(verdicts(row)).every((v) => v !== false)).length;
  console.log(
    `\nTargets per line: ours p50 <= ${TARGETS.p50Ms} ms, p99 <= ${TARGETS.p99Ms} ms, quotes/s at least the ` +
      `v2-sdk's (speed x = ours / sdk), gross output >= the sdk's (both before our protocol fee); n/a where the ` +
      `sdk finds no trade. ${passed}/${rows.length} lines meet every target that applies.`,
  );
}

export interface HttpReportRow {
  pairClass: string;
  stats: LatencyStats;
  /** outAmount as answered: net of the protocol fee. */
  outAmount: bigint;
  tokenOut: { symbol: string; decimals: number };
}

export function printHttpReport(rows: readonly HttpReportRow[]): void {
  const header = [
    'class',
    'req/s',
    'p50 ms',
    'p99 ms',
    'max ms',
    'outAmount (net of fee)',
    'p50<=5',
    'p99<=20',
  ];
  const lines = rows.map((row) => [
    row.pairClass,
    rate(row.stats.quotesPerSecond),
    ms(row.stats.p50Ms),
    ms(row.stats.p99Ms),
    ms(row.stats.maxMs),
    `${formatUnits(row.outAmount, row.tokenOut.decimals)} ${row.tokenOut.symbol}`,
    verdict(row.stats.p50Ms <= TARGETS.p50Ms),
    verdict(row.stats.p99Ms <= TARGETS.p99Ms),
  ]);
  for (const line of formatTable(header, lines, 1)) console.log(line);
}
