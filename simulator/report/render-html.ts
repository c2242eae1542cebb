/**
 * report.html: one self-contained file a quant can open anywhere, offline. Inline CSS and inline SVG only, no
 * script, no font or stylesheet to fetch, no http(s) URL; every text taken from the report is escaped.
 */
import type { Percentiles, ReportMarket, ReportOrder, SimulationReport } from './report-types';
import {
  type LegendItem,
  type MarkerShape,
  type Point,
  axes,
  bars,
  coord,
  emptyNote,
  escapeXml as esc,
  legend,
  marker,
  niceTicks,
  paddedDomain,
  plotArea,
  polyline,
  svgChart,
  thinPath,
  tickLabel,
} from './svg-charts';

/** Rows of the orders table: report.json holds every order, the page stays light in a browser. */
export const ORDERS_TABLE_LIMIT = 2000;
/** Points drawn per price line; a longer path is thinned keeping each bucket's low and high. */
const MAX_LINE_POINTS = 2000;
/** Bars of the latency histogram at most: wider latencies share a bar. */
const MAX_LATENCY_BARS = 40;

const COLOURS = {
  path: '#37474f',
  realized: '#ef6c00',
  sell: '#c62828',
  buy: '#2e7d32',
  dca: '#6a1b9a',
  bar: '#1565c0',
};

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1100px;
padding:0 16px;color:#212121;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}p.note{color:#555;margin:4px 0}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;
vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f5f5f5}
table.orders{font-size:12px}table.orders td{white-space:nowrap}
.grid-2{display:flex;flex-wrap:wrap;gap:8px 32px}
svg.chart{max-width:100%;height:auto;display:block;margin:6px 0}
svg .frame{fill:none;stroke:#9e9e9e}svg .grid{stroke:#eee}svg .axis{stroke:#9e9e9e}
svg text{font:11px system-ui,sans-serif;fill:#424242}svg .axis-title{font-size:12px}
svg .empty{font-size:13px;fill:#757575}
`;

export function renderHtml(report: SimulationReport): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Simulation report: ${esc(report.scenario.name)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    header(report),
    totals(report),
    markets(report),
    latency(report),
    gas(report),
    dca(report),
    orders(report),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Up to 6 significant digits, no float noise; '-' for nothing. */
function num(value: number | null | undefined, digits = 6): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return String(Number(value.toPrecision(digits)));
}

function cell(text: string, numeric = false): string {
  return numeric ? `<td class="n">${esc(text)}</td>` : `<td>${esc(text)}</td>`;
}

function keyValueTable(rows: Array<[string, string]>): string {
  return `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th>${cell(v, true)}</tr>`).join('')}</table>`;
}

function header(report: SimulationReport): string {
  const { scenario, run } = report;
  const rows: Array<[string, string]> = [
    ['scenario file', scenario.file],
    ['seed', String(scenario.seed)],
    ['chains', scenario.chains.join(', ')],
    ['blocks', `${scenario.blocks} of ${scenario.blockTimeSeconds} s`],
    ['chain', scenario.forked ? 'forked' : 'local devnet'],
    ['started', run.startedAt],
    ['finished', run.finishedAt],
    ['run time', `${num(run.wallSeconds)} s`],
    ['per 1,000 blocks', `${num(run.secondsPer1000Blocks)} s`],
  ];
  const phases = Object.entries(run.phases);
  return [
    `<h1>Simulation report: ${esc(scenario.name)}</h1>`,
    scenario.description ? `<p class="note">${esc(scenario.description)}</p>` : '',
    '<div class="grid-2">',
    `<div>${keyValueTable(rows)}</div>`,
    phases.length === 0
      ? ''
      : `<div><h3>Where the time went</h3>${keyValueTable(phases.map(([phase, s]) => [phase, `${num(s)} s`]))}</div>`,
    '</div>',
  ].join('\n');
}

function latencyText(p: Percentiles): string {
  return `${num(p.p50)} / ${num(p.p95)} / ${num(p.max)}`;
}

function totals(report: SimulationReport): string {
  const t = report.totals.limit;
  const failedCount = Object.values(t.failed).reduce((sum, n) => sum + n, 0);
  const rows: Array<[string, string]> = [
    ['placed', String(t.placed)],
    ['triggered (the path reached the trigger)', String(t.triggered)],
    ['executable (the market paid amount + fee at the trigger)', String(t.executable)],
    ['filled', String(t.filled)],
    ['missed (executable, never filled)', String(t.missed)],
    ['expired', String(t.expired)],
    ['failed', String(failedCount)],
    ['triggered, never executable, still open', String(t.neverExecutable)],
    ['never triggered, still open', String(t.untriggered)],
    ['fill ratio (filled / executable)', `${num(t.fillRatio * 100, 4)} %`],
    ['fill ratio (filled / triggered)', `${num(t.triggeredFillRatio * 100, 4)} %`],
    ['latency p50 / p95 / max (blocks from executable)', latencyText(t.latencyBlocks)],
    ['path latency p50 / p95 / max (blocks from triggered)', latencyText(t.pathLatencyBlocks)],
  ];
  const failed = Object.entries(t.failed);
  const fees = Object.entries(t.fees);
  const gasRows = t.gasPerOrderByBatchSize;
  return [
    '<h2 id="totals">Limit orders</h2>',
    '<div class="grid-2">',
    `<div>${keyValueTable(rows)}</div>`,
    '<div><h3>Failed by reason</h3>',
    failed.length === 0
      ? '<p class="note">none</p>'
      : `<table><tr><th>reason</th><th>orders</th></tr>${failed
          .map(([reason, n]) => `<tr>${cell(reason)}${cell(String(n), true)}</tr>`)
          .join('')}</table>`,
    '<h3>Execution fees paid (filled limit orders)</h3>',
    fees.length === 0
      ? '<p class="note">none</p>'
      : `<table><tr><th>chain:token</th><th>fee</th></tr>${fees
          .map(([token, fee]) => `<tr>${cell(token)}${cell(fee, true)}</tr>`)
          .join('')}</table>`,
    '<h3>Gas per order by batch size (every transaction)</h3>',
    gasRows.length === 0
      ? '<p class="note">no transaction</p>'
      : `<table><tr><th>orders per tx</th><th>transactions</th><th>gas per order</th></tr>${gasRows
          .map(
            (g) =>
              `<tr>${cell(String(g.batchSize), true)}${cell(String(g.batches), true)}${cell(String(g.gasPerOrder), true)}</tr>`,
          )
          .join('')}</table>`,
    '</div>',
    '</div>',
  ].join('\n');
}

function sellsBase(order: ReportOrder): boolean {
  return order.pair.split('/')[0] === order.sell;
}

/** A limit order's trigger as a price of the market (QUOTE per BASE): a quote seller's trigger is inverted. */
function triggerPrice(order: ReportOrder): number | null {
  if (order.trigger === null) return null;
  const trigger = Number(order.trigger);
  if (!Number.isFinite(trigger) || trigger <= 0) return null;
  return sellsBase(order) ? trigger : 1 / trigger;
}

interface MarkerSpec {
  x: number;
  y: number;
  shape: MarkerShape;
  colour: string;
  filled: boolean;
  title: string;
}

function marketMarkers(market: ReportMarket, orders: readonly ReportOrder[]): MarkerSpec[] {
  const [base, quote] = market.pair.split('/');
  const triggers: MarkerSpec[] = [];
  const fills: MarkerSpec[] = [];
  for (const order of orders) {
    const selling = sellsBase(order);
    const shape: MarkerShape = order.kind === 'dca' ? 'diamond' : selling ? 'triangle-down' : 'triangle-up';
    const colour = order.kind === 'dca' ? COLOURS.dca : selling ? COLOURS.sell : COLOURS.buy;
    const price = triggerPrice(order);
    if (order.kind === 'limit' && price !== null) {
      const at = order.triggeredAtBlock ?? order.placedAtBlock;
      const when = order.triggeredAtBlock === null ? 'never triggered' : `triggered at block ${at}`;
      triggers.push({
        x: at,
        y: price,
        shape,
        colour,
        filled: false,
        title: `${order.id}: sell ${order.amount} ${order.sell} for ${order.buy} at ${order.trigger} (${num(price)} ${quote} per ${base}), ${when}`,
      });
    }
    if (order.filledAtBlock !== null && order.executionPrice !== null) {
      const what = order.kind === 'dca' ? `DCA iteration ${order.iteration ?? ''}` : 'limit order';
      fills.push({
        x: order.filledAtBlock,
        y: order.executionPrice,
        shape,
        colour,
        filled: true,
        title: `${order.id} (${what}) filled at block ${order.filledAtBlock}, ${num(order.executionPrice)} ${quote} per ${base}`,
      });
    }
  }
  // Fills on top of triggers: they are what the run achieved.
  return [...triggers, ...fills];
}

function marketChart(report: SimulationReport, market: ReportMarket): string {
  const orders = report.orders.filter((o) => o.chainId === market.chainId && o.pair === market.pair);
  const markers = marketMarkers(market, orders);
  const path = thinPath(
    market.path.map((price, block): Point => [block, price]),
    MAX_LINE_POINTS,
  );
  const realized = thinPath(
    market.realized.map((price, block): Point => [block, price]),
    MAX_LINE_POINTS,
  );
  const [, quote] = market.pair.split('/');
  const values = [...path, ...realized, ...markers.map((m): Point => [m.x, m.y])]
    .map(([, y]) => y)
    .filter((y) => y > 0);
  const plot = plotArea({
    width: 960,
    height: 380,
    xDomain: [0, Math.max(1, report.scenario.blocks)],
    yDomain: paddedDomain(values),
    margin: { top: 34, right: 16, bottom: 40, left: 72 },
  });
  const items: LegendItem[] = [
    { label: 'path', kind: 'line', colour: COLOURS.path },
    { label: 'pool (realized)', kind: 'line', colour: COLOURS.realized, dash: '4 3' },
    { label: 'sell trigger', kind: 'marker', shape: 'triangle-down', colour: COLOURS.sell, filled: false },
    { label: 'buy trigger', kind: 'marker', shape: 'triangle-up', colour: COLOURS.buy, filled: false },
    { label: 'sell fill', kind: 'marker', shape: 'triangle-down', colour: COLOURS.sell, filled: true },
    { label: 'buy fill', kind: 'marker', shape: 'triangle-up', colour: COLOURS.buy, filled: true },
    { label: 'DCA fill', kind: 'marker', shape: 'diamond', colour: COLOURS.dca, filled: true },
  ];
  const body = [
    axes(plot, { x: 'block', y: `${quote} per ${market.pair.split('/')[0]}` }),
    polyline(plot, path, { stroke: COLOURS.path, width: 1.6 }),
    polyline(plot, realized, { stroke: COLOURS.realized, width: 1.2, dash: '4 3' }),
    ...markers.map((m) =>
      marker(m.shape, plot.x(m.x), plot.y(m.y), {
        colour: m.colour,
        filled: m.filled,
        title: m.title,
      }),
    ),
    legend(items, plot.margin.left, 14),
  ].join('');
  return svgChart(
    plot,
    `${market.pair} on chain ${market.chainId}: path, pool price, triggers and fills`,
    body,
  );
}

function markets(report: SimulationReport): string {
  const parts = ['<h2 id="markets">Markets</h2>'];
  for (const market of report.markets) {
    parts.push(`<h3>${esc(market.pair)} on chain ${market.chainId}</h3>`, marketChart(report, market));
  }
  if (report.markets.length > 0) {
    parts.push(
      '<p class="note">Hollow markers: a limit order trigger, at the block the path reached it (or at placement when it ' +
        'never did), as a price of the market (a quote seller trigger is inverted). Filled markers: fills at their ' +
        'execution price. Hover a marker for its order.</p>',
    );
  }
  return parts.join('\n');
}

function latency(report: SimulationReport): string {
  const values = report.orders
    .filter((o) => o.kind === 'limit' && o.latencyBlocks !== null)
    .map((o) => o.latencyBlocks as number);
  const heading = '<h2 id="latency">Latency: executable to fill (limit orders)</h2>';
  if (values.length === 0) {
    const plot = plotArea({ width: 960, height: 260, xDomain: [0, 1], yDomain: [0, 1] });
    return `${heading}\n${svgChart(plot, 'latency histogram (blocks)', emptyNote(plot, 'no filled limit order that was executable'))}`;
  }
  const min = Math.min(...values);
  const max = Math.max(...values);
  const width = Math.max(1, Math.ceil((max - min + 1) / MAX_LATENCY_BARS));
  const counts = new Map<number, number>();
  for (const value of values) {
    const start = min + Math.floor((value - min) / width) * width;
    counts.set(start, (counts.get(start) ?? 0) + 1);
  }
  const highest = Math.max(...counts.values());
  // Bars centred on their block count: a bar of width 1 sits over its tick.
  const plot = plotArea({
    width: 960,
    height: 260,
    xDomain: [min - 0.5, min + Math.ceil((max - min + 1) / width) * width - 0.5],
    yDomain: [0, highest * 1.1],
  });
  const items = [...counts.entries()].map(([start, count]) => ({
    x0: start - 0.5 + 0.05 * width,
    x1: start + width - 0.5 - 0.05 * width,
    y: count,
    title:
      width === 1
        ? `${start} blocks: ${count} orders`
        : `${start} to ${start + width - 1} blocks: ${count} orders`,
  }));
  // Latencies are whole blocks: no tick between two of them.
  const xTicks = niceTicks(plot.xDomain[0], plot.xDomain[1], 8)
    .filter((value) => Number.isInteger(value))
    .map((value) => ({ value, label: tickLabel(value) }));
  const body =
    axes(plot, { x: 'blocks from executable to fill', y: 'orders' }, { xTicks }) +
    bars(plot, items, COLOURS.bar);
  return `${heading}\n${svgChart(plot, 'latency histogram (blocks)', body)}`;
}

function gas(report: SimulationReport): string {
  const rows = report.totals.limit.gasPerOrderByBatchSize;
  const heading = '<h2 id="gas">Gas per order against batch size</h2>';
  if (rows.length === 0) {
    const plot = plotArea({ width: 960, height: 260, xDomain: [0, 1], yDomain: [0, 1] });
    return `${heading}\n${svgChart(plot, 'gas per order by batch size', emptyNote(plot, 'no transaction'))}`;
  }
  const highest = Math.max(...rows.map((r) => r.gasPerOrder));
  const plot = plotArea({
    width: 960,
    height: 260,
    xDomain: [0, rows.length],
    yDomain: [0, Math.max(1, highest) * 1.1],
  });
  const items = rows.map((r, i) => ({
    x0: i + 0.15,
    x1: i + 0.85,
    y: r.gasPerOrder,
    title: `${r.batchSize} orders per transaction: ${r.gasPerOrder} gas per order over ${r.batches} transactions`,
  }));
  const xTicks = rows.map((r, i) => ({ value: i + 0.5, label: String(r.batchSize) }));
  const body =
    axes(plot, { x: 'orders per transaction', y: 'gas per order' }, { xTicks }) +
    bars(plot, items, COLOURS.bar) +
    rows
      .map(
        (r, i) =>
          `<text x="${coord(plot.x(i + 0.5))}" y="${coord(plot.y(r.gasPerOrder) - 4)}" text-anchor="middle">` +
          `${tickLabel(r.gasPerOrder)}</text>`,
      )
      .join('');
  return `${heading}\n${svgChart(plot, 'gas per order by batch size', body)}`;
}

function dca(report: SimulationReport): string {
  const heading = '<h2 id="dca">DCA strategies</h2>';
  if (report.dca.length === 0) return `${heading}\n<p class="note">none</p>`;
  const head =
    '<tr><th>strategy</th><th>chain</th><th>pair</th><th>sells</th><th>status</th><th>iterations</th>' +
    '<th>executed</th><th>failed</th><th>average price</th><th>TWAP</th><th>average vs TWAP</th><th>blocks</th></tr>';
  const rows = report.dca.map((s) => {
    const vs = s.averagePrice === null || s.twap === 0 ? null : (s.averagePrice / s.twap - 1) * 100;
    return (
      '<tr>' +
      cell(s.strategyId) +
      cell(String(s.chainId), true) +
      cell(s.pair) +
      cell(`${s.sell} for ${s.buy}`) +
      cell(s.status) +
      cell(String(s.iterations), true) +
      cell(String(s.executed), true) +
      cell(String(s.failed), true) +
      cell(num(s.averagePrice), true) +
      cell(num(s.twap), true) +
      cell(vs === null ? '-' : `${vs >= 0 ? '+' : ''}${num(vs, 4)} %`, true) +
      cell(`${s.fromBlock} to ${s.toBlock}`) +
      '</tr>'
    );
  });
  return [
    heading,
    '<p class="note">Prices are QUOTE per BASE of the pair. TWAP: the mean path price from placement to the last ' +
      'scheduled iteration.</p>',
    `<table>${head}${rows.join('')}</table>`,
  ].join('\n');
}

function orders(report: SimulationReport): string {
  const heading = '<h2 id="orders">Orders</h2>';
  const all = report.orders;
  if (all.length === 0) return `${heading}\n<p class="note">none</p>`;
  const shown = all.slice(0, ORDERS_TABLE_LIMIT);
  const note =
    all.length > shown.length
      ? `<p class="note">The first ${shown.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')} ` +
        'orders; report.json holds them all.</p>'
      : '';
  const head =
    '<tr><th>id</th><th>kind</th><th>chain</th><th>pair</th><th>sells</th><th>amount</th><th>trigger</th>' +
    '<th>status</th><th>placed</th><th>triggered</th><th>executable</th><th>filled</th><th>latency</th>' +
    '<th>price</th><th>gas</th><th>batch</th><th>fee</th><th>tx</th><th>reason</th></tr>';
  const rows = shown.map((o) => {
    const kind = o.kind === 'dca' ? `dca #${o.iteration ?? ''}` : 'limit';
    const tx = o.txHash === null ? '-' : `${o.txHash.slice(0, 10)}…`;
    return (
      '<tr>' +
      cell(o.id) +
      cell(kind) +
      cell(String(o.chainId), true) +
      cell(o.pair) +
      cell(`${o.sell} for ${o.buy}`) +
      cell(o.amount, true) +
      cell(o.trigger ?? '-', true) +
      cell(o.status) +
      cell(String(o.placedAtBlock), true) +
      cell(num(o.triggeredAtBlock), true) +
      cell(num(o.executableAtBlock), true) +
      cell(num(o.filledAtBlock), true) +
      cell(num(o.latencyBlocks), true) +
      cell(num(o.executionPrice), true) +
      cell(num(o.gasUsed, 12), true) +
      cell(num(o.batchSize), true) +
      cell(o.fee ?? '-', true) +
      (o.txHash === null ? cell(tx) : `<td title="${esc(o.txHash)}">${esc(tx)}</td>`) +
      cell(o.missedBecause ?? o.reason ?? '') +
      '</tr>'
    );
  });
  return [heading, note, `<table class="orders">${head}${rows.join('')}</table>`].join('\n');
}
