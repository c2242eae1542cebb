import { buildReport } from '../../../simulator/report/build-report';
import { ORDERS_TABLE_LIMIT, renderHtml } from '../../../simulator/report/render-html';
import type { ReportOrder, SimulationReport } from '../../../simulator/report/report-types';
import {
  escapeXml,
  niceTicks,
  paddedDomain,
  thinPath,
  type Point,
} from '../../../simulator/report/svg-charts';
import { facts, scenario } from './report-fixture';

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

function report(): SimulationReport {
  return buildReport(facts());
}

describe('renderHtml', () => {
  it('is one self-contained file: no URL, no script, no stylesheet or font to fetch', () => {
    const html = renderHtml(report());
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).not.toContain('http://');
    expect(html).not.toContain('https://');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<link');
    expect(html).not.toContain('@import');
    expect(html).not.toContain('url(');
    expect(html).toContain('<style>');
  });

  it('draws one SVG per chart: each market, the latency histogram, gas against batch size', () => {
    const one = renderHtml(report());
    expect(count(one, '<svg')).toBe(3);
    const two = buildReport(
      facts({
        scenario: scenario({
          chains: [1, 137],
          markets: [...scenario().markets, { ...scenario().markets[0], chainId: 137, pair: 'WETH/USDC' }],
        }),
        realized: [[], []],
      }),
    );
    expect(count(renderHtml(two), '<svg')).toBe(4);
  });

  it('still draws every chart, with a note, when nothing filled', () => {
    const html = renderHtml(buildReport(facts({ executions: [], limitOrders: [], dca: [] })));
    expect(count(html, '<svg')).toBe(3);
    expect(html).toContain('no filled limit order that was executable');
    expect(html).toContain('>no transaction</text>');
  });

  it('escapes every text taken from the report', () => {
    const base = report();
    base.scenario.name = '<b>&"';
    base.scenario.description = "it's <i>";
    base.orders[0].reason = '<img src=x onerror=alert(1)>';
    base.totals.limit.failed = { '<u>why</u>': 1 };
    const html = renderHtml(base);
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<i>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<u>');
    expect(html).toContain('<title>Simulation report: &lt;b&gt;&amp;&quot;</title>');
    expect(html).toContain('<h1>Simulation report: &lt;b&gt;&amp;&quot;</h1>');
    expect(html).toContain('<p class="note">it&#39;s &lt;i&gt;</p>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('leaves no URL even when the scenario names one', () => {
    const base = report();
    base.scenario.description = 'from https://example.org/data and http://x';
    const html = renderHtml(base);
    expect(html).not.toContain('http://');
    expect(html).not.toContain('https://');
    expect(html).toContain('from https:&#47;&#47;example.org/data');
  });

  it('marks each limit trigger and each fill on the market chart', () => {
    const html = renderHtml(report());
    // Six limit orders: six hollow trigger markers (a titled marker has a <title> of its own).
    expect(count(html, 'fill="none" stroke="#c62828"')).toBe(3 + 1); // three sell triggers and the legend's
    expect(count(html, 'fill="none" stroke="#2e7d32"')).toBe(3 + 1); // three buy triggers and the legend's
    // Fills: one limit sell, one limit buy, two DCA iterations; each also in the legend.
    expect(count(html, 'fill="#c62828" stroke="none"')).toBe(1 + 1);
    expect(count(html, 'fill="#2e7d32" stroke="none"')).toBe(1 + 1);
    expect(count(html, 'fill="#6a1b9a" stroke="none"')).toBe(2 + 1);
    // A quote seller's trigger is drawn as a market price: 1 / 0.0004 = 2500 USDC per WETH.
    expect(html).toContain('at 0.0004 (2500 USDC per WETH), never triggered');
    expect(html).toContain('01 (limit order) filled at block 5, 3100 USDC per WETH');
    expect(html).toContain('d2 (DCA iteration 2) filled at block 5, 2500 USDC per WETH');
  });

  it('tabulates the totals, the failures by reason, the fees and the DCA strategies', () => {
    const html = renderHtml(report());
    expect(html).toContain('<tr><th>fill ratio (filled / triggered)</th><td class="n">66.67 %</td></tr>');
    expect(html).toContain('<tr><td>insufficient_allowance</td><td class="n">1</td></tr>');
    expect(html).toContain('<tr><td>1:WETH</td><td class="n">0.001</td></tr>');
    expect(html).toContain(
      '<tr><td>strategy-1</td><td class="n">1</td><td>WETH/USDC</td><td>USDC for WETH</td><td>finished</td>' +
        '<td class="n">3</td><td class="n">2</td><td class="n">1</td><td class="n">2807.02</td>' +
        '<td class="n">3027.78</td><td class="n">-7.291 %</td><td>1 to 9</td></tr>',
    );
    expect(html).toContain('<tr><th>per 1,000 blocks</th><td class="n">1.235 s</td></tr>');
  });

  it(`caps the orders table at ${ORDERS_TABLE_LIMIT} rows and says so`, () => {
    const base = report();
    const template = base.orders[0];
    base.orders = Array.from({ length: 2001 }, (_, i): ReportOrder => ({ ...template, id: `order-${i}` }));
    const html = renderHtml(base);
    const table = html.slice(html.indexOf('<table class="orders">'));
    expect(count(table, '<tr>')).toBe(1 + 2000);
    expect(table).toContain('<td>order-1999</td>');
    expect(table).not.toContain('<td>order-2000</td>');
    expect(html).toContain(
      '<p class="note">The first 2,000 of 2,001 orders; report.json holds them all.</p>',
    );
    expect(renderHtml(report())).not.toContain('report.json holds them all');
  });

  it('thins a long path for drawing', () => {
    const base = report();
    base.scenario.blocks = 7200;
    base.markets[0].path = Array.from({ length: 7201 }, (_, b) => 3000 + Math.sin(b / 50) * 100);
    base.markets[0].realized = [];
    const html = renderHtml(base);
    const points = /<polyline points="([^"]*)"/.exec(html)?.[1].split(' ') ?? [];
    expect(points.length).toBeGreaterThan(1000);
    expect(points.length).toBeLessThanOrEqual(2000);
  });
});

describe('svg-charts', () => {
  it('escapes markup, quotes and URL schemes', () => {
    expect(escapeXml(`<b>&"'`)).toBe('&lt;b&gt;&amp;&quot;&#39;');
    expect(escapeXml('see https://a.b')).toBe('see https:&#47;&#47;a.b');
  });

  it('keeps the low and the high of each bucket when thinning, and both ends', () => {
    const points: Point[] = Array.from({ length: 10_000 }, (_, i) => [i, i % 100 === 37 ? 9000 : 3000]);
    points[5000] = [5000, 1];
    const thin = thinPath(points, 2000);
    expect(thin.length).toBeLessThanOrEqual(2000);
    expect(thin[0]).toEqual([0, 3000]);
    expect(thin[thin.length - 1]).toEqual([9999, 3000]);
    expect(thin).toContainEqual([5000, 1]);
    expect(thin.filter(([, y]) => y === 9000)).toHaveLength(100);
    const xs = thin.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(thinPath(points.slice(0, 50), 2000)).toEqual(points.slice(0, 50));
  });

  it('computes round ticks and padded domains', () => {
    expect(niceTicks(0, 200, 8)).toEqual([0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200]);
    expect(niceTicks(0, 200, 3)).toEqual([0, 50, 100, 150, 200]);
    expect(niceTicks(0, 7200, 8)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
    expect(niceTicks(2790, 3310, 5)).toEqual([2800, 2900, 3000, 3100, 3200, 3300]);
    expect(niceTicks(0.1, 0.35, 5)).toEqual([0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
    expect(paddedDomain([2800, 3300])).toEqual([2775, 3325]);
    expect(paddedDomain([3000, 3000])).toEqual([2850, 3150]);
    expect(paddedDomain([])).toEqual([0, 1]);
  });
});
