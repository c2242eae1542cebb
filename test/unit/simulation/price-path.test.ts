import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathPrices } from '../../../simulator/scenario/price-path';
import type { PathSpec } from '../../../simulator/scenario/scenario-types';
import { scenarioErrorOf } from './scenario-fixtures';

const SECONDS_PER_YEAR = 31_536_000;
const REPO = path.resolve(__dirname, '../../..');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'price-path-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options = (blocks: number, fields: Partial<{ blockTimeSeconds: number; seed: number }> = {}) => ({
  blocks,
  blockTimeSeconds: 12,
  seed: 1,
  baseDir: dir,
  ...fields,
});

function csv(name: string, text: string): PathSpec {
  writeFileSync(path.join(dir, name), text);
  return { kind: 'csv', file: name };
}

const failure = scenarioErrorOf;

describe('points paths', () => {
  it('interpolates linearly between points, one price per block 0..blocks', () => {
    const spec: PathSpec = {
      kind: 'points',
      points: [
        [0, 3000],
        [4, 2800],
        [6, 3300],
      ],
    };
    expect(pathPrices(spec, options(7))).toEqual([3000, 2950, 2900, 2850, 2800, 3050, 3300, 3300]);
  });

  it('is flat before the first point and after the last', () => {
    const spec: PathSpec = {
      kind: 'points',
      points: [
        [2, 10],
        [4, 20],
      ],
    };
    expect(pathPrices(spec, options(6))).toEqual([10, 10, 10, 15, 20, 20, 20]);
  });
});

describe('gbm paths', () => {
  const gbm: PathSpec = { kind: 'gbm', start: 3000, drift: 0.05, volatility: 0.8 };

  it('starts at `start` and gives the same path for the same seed', () => {
    const a = pathPrices(gbm, options(500, { seed: 7 }));
    expect(a).toHaveLength(501);
    expect(a[0]).toBe(3000);
    expect(pathPrices(gbm, options(500, { seed: 7 }))).toEqual(a);
    expect(a.every((p) => p > 0 && Number.isFinite(p))).toBe(true);
  });

  it('gives different paths for different seeds, and a path seed wins over the scenario seed', () => {
    const a = pathPrices(gbm, options(50, { seed: 7 }));
    const b = pathPrices(gbm, options(50, { seed: 8 }));
    expect(b[0]).toBe(3000);
    expect(b.slice(1).every((p, i) => p !== a[i + 1])).toBe(true);
    const pinned: PathSpec = { ...gbm, seed: 8 };
    expect(pathPrices(pinned, options(50, { seed: 7 }))).toEqual(b);
    expect(pathPrices(pinned, options(50, { seed: 99 }))).toEqual(b);
  });

  it('follows exp(drift · t) exactly without volatility', () => {
    const prices = pathPrices(
      { kind: 'gbm', start: 100, drift: 0.5, volatility: 0 },
      options(3, { blockTimeSeconds: 3600 }),
    );
    const dt = 3600 / SECONDS_PER_YEAR;
    prices.forEach((p, b) => expect(p).toBeCloseTo(100 * Math.exp(0.5 * dt * b), 10));
  });

  it('has log returns of mean (drift − vol²/2)·dt and deviation vol·√dt per block', () => {
    const blocks = 50_000;
    const prices = pathPrices(
      { kind: 'gbm', start: 1, drift: 0.3, volatility: 2 },
      options(blocks, { seed: 5 }),
    );
    const returns = prices.slice(1).map((p, i) => Math.log(p / prices[i]!));
    const mean = returns.reduce((s, r) => s + r, 0) / blocks;
    const sd = Math.sqrt(returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (blocks - 1));
    const dt = 12 / SECONDS_PER_YEAR;
    expect(sd / (2 * Math.sqrt(dt))).toBeCloseTo(1, 1);
    // Within three standard errors (sd/√n ≈ 4.3e-5): a drift term left out or doubled would not show at this size,
    // a wrong dt or a shock in the mean would.
    expect(Math.abs(mean - (0.3 - 2) * dt)).toBeLessThan(3 * (sd / Math.sqrt(blocks)));
  });

  it('names the block where the price leaves what a number holds', () => {
    // ln(MAX_VALUE) ≈ 709.78 over 10 · 86400 / 31536000 per block: past block 25907.
    const spec: PathSpec = { kind: 'gbm', start: 1, drift: 10, volatility: 0 };
    expect(failure(() => pathPrices(spec, options(100_000, { blockTimeSeconds: 86_400 })))).toBe(
      'gbm price reaches Infinity at block 25908; lower the drift or the volatility',
    );
  });
});

describe('csv paths', () => {
  it('reads block,price rows: linear between them, flat before the first and after the last', () => {
    const spec = csv('blocks.csv', 'block,price\n2,100\n6,140\n7,120\n');
    expect(pathPrices(spec, options(9))).toEqual([100, 100, 100, 110, 120, 130, 140, 120, 120, 120]);
  });

  it('maps Unix-second timestamps to blocks of blockTimeSeconds from the first row', () => {
    // 1000 s blocks: t0 → 0, +1000 → 1, +3400 → round(3.4) = 3, +3600 → round(3.6) = 4 wins over … +4400 → 4.
    const spec = csv(
      'times.csv',
      'timestamp,price\n1793577600,10\n1793578600,20\n1793581000,40\n1793581200,60\n1793582000,80\n',
    );
    expect(pathPrices(spec, options(6, { blockTimeSeconds: 1000 }))).toEqual([10, 20, 30, 40, 80, 80, 80]);
  });

  it('skips blank and comment lines, and trims cells and a byte-order mark', () => {
    const spec = csv('tidy.csv', '\ufeffblock, price\n# exported by hand\n\n0, 5\n 2 ,7\n');
    expect(pathPrices(spec, options(3))).toEqual([5, 6, 7, 7]);
  });

  it.each([
    [
      'no-header.csv',
      '0,100\n1,200\n',
      'no-header.csv line 1: the header must be "block,price" or "timestamp,price"',
    ],
    ['empty.csv', 'block,price\n', 'empty.csv: has no rows after the header'],
    [
      'unsorted.csv',
      'block,price\n0,100\n# pause\n\n5,110\n5,120\n',
      "unsorted.csv line 6: block 5 must be greater than the previous row's 5",
    ],
    [
      'bad-price.csv',
      'block,price\n0,100\n1,abc\n',
      'bad-price.csv line 3: price "abc" must be a number greater than 0',
    ],
    [
      'zero-price.csv',
      'block,price\n0,0\n',
      'zero-price.csv line 2: price "0" must be a number greater than 0',
    ],
    ['bad-block.csv', 'block,price\n1.5,100\n', 'bad-block.csv line 2: block "1.5" must be an integer >= 0'],
    [
      'millis.csv',
      'timestamp,price\n1793577600000,100\n',
      'millis.csv line 2: timestamp 1793577600000 looks like milliseconds; write Unix seconds',
    ],
    [
      'ragged.csv',
      'block,price\n0,100\n1,100,3\n',
      'ragged.csv: Invalid Record Length: expect 2, got 3 on line 3',
    ],
  ])('names the file and the line of a problem in %s', (name, text, message) => {
    expect(failure(() => pathPrices(csv(name, text), options(5)))).toBe(message);
  });

  it('names a file that cannot be read', () => {
    const message = failure(() => pathPrices({ kind: 'csv', file: 'missing.csv' }, options(5)));
    expect(message).toBe(
      `missing.csv: cannot be read (ENOENT: no such file or directory, open '${path.join(dir, 'missing.csv')}')`,
    );
  });

  it('ships a sideways week of hourly WETH/USDC rows around 3000', () => {
    const file = path.join(REPO, 'simulations/sideways-week.csv');
    const rows = readFileSync(file, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('timestamp,price');
    expect(rows).toHaveLength(170);
    const data = rows.slice(1).map((r) => r.split(',').map(Number) as [number, number]);
    // 2026-11-02T00:00Z, then every hour for a week.
    expect(data.map(([t]) => t)).toEqual(
      Array.from({ length: 169 }, (_, h) => Date.UTC(2026, 10, 2) / 1000 + 3600 * h),
    );
    const prices = data.map(([, p]) => p);
    expect(Math.min(...prices)).toBeGreaterThan(3000 * 0.96);
    expect(Math.max(...prices)).toBeLessThan(3000 * 1.04);
    const mean = prices.reduce((s, p) => s + p, 0) / prices.length;
    expect(Math.abs(mean / 3000 - 1)).toBeLessThan(0.01);
    // Hourly blocks: the path is the file's prices, one per block.
    const spec: PathSpec = { kind: 'csv', file: 'sideways-week.csv' };
    const opts = { blocks: 168, blockTimeSeconds: 3600, seed: 1, baseDir: path.dirname(file) };
    expect(pathPrices(spec, opts)).toEqual(prices);
  });
});
