import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadScenario } from '../../../simulator/scenario/load-scenario';
import { scenarioErrorOf } from './scenario-fixtures';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'load-scenario-'));
  mkdirSync(path.join(dir, 'data'));
  writeFileSync(path.join(dir, 'data', 'eth.csv'), 'block,price\n0,3000\n4,3400\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, json: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json));
  return file;
}

const scenario = {
  name: 'two markets',
  chains: [1, 137],
  blockTimeSeconds: 12,
  blocks: 4,
  seed: 3,
  markets: [
    { chainId: 1, pair: 'WETH/USDC', path: { kind: 'csv', file: 'data/eth.csv' } },
    { chainId: 137, pair: 'WMATIC/USDC', path: { kind: 'gbm', start: 0.5, drift: 0, volatility: 1 } },
  ],
};

const failure = scenarioErrorOf;

describe('loadScenario', () => {
  it("resolves every market's base, quote and prices (CSV files relative to the scenario's folder)", () => {
    const file = write('two.json', scenario);
    const resolved = loadScenario(file, {});
    expect(resolved.file).toBe(file);
    expect(resolved.seed).toBe(3);
    expect(resolved.limitOrders).toEqual([]);
    expect(resolved.markets[0]).toEqual({
      ...scenario.markets[0],
      base: 'WETH',
      quote: 'USDC',
      prices: [3000, 3100, 3200, 3300, 3400],
    });
    expect(resolved.markets[1]).toMatchObject({ base: 'WMATIC', quote: 'USDC' });
    expect(resolved.markets[1]!.prices).toHaveLength(5);
    expect(resolved.markets[1]!.prices[0]).toBe(0.5);
  });

  it("lets --seed win over the file's seed, and the gbm paths follow it", () => {
    const file = write('two.json', scenario);
    const fromFile = loadScenario(file, {});
    const overridden = loadScenario(file, { seed: 4 });
    expect(overridden.seed).toBe(4);
    expect(overridden.markets[1]!.prices).not.toEqual(fromFile.markets[1]!.prices);
    expect(loadScenario(file, { seed: 3 }).markets[1]!.prices).toEqual(fromFile.markets[1]!.prices);
  });

  it('refuses a seed that is not a 32-bit unsigned integer', () => {
    const file = write('two.json', scenario);
    expect(failure(() => loadScenario(file, { seed: 1.5 }))).toBe(
      '--seed must be an integer from 0 to 4294967295, not 1.5',
    );
  });

  it('names the file of a JSON syntax error', () => {
    const file = write('broken.json', '{"name": "x",}');
    expect(failure(() => loadScenario(file, {}))).toMatch(
      new RegExp(`^${escape(file)}: is not valid JSON \\(.+\\)$`),
    );
  });

  it('names a file that cannot be read', () => {
    const file = path.join(dir, 'absent.json');
    expect(failure(() => loadScenario(file, {}))).toBe(
      `${file}: cannot be read (ENOENT: no such file or directory, open '${file}')`,
    );
  });

  it('names the file and the field of a schema error', () => {
    const file = write('bad.json', { ...scenario, blocks: 0 });
    expect(failure(() => loadScenario(file, {}))).toBe(`${file}: blocks: must be >= 1`);
  });

  it('names the scenario, the market and the CSV line of a CSV problem', () => {
    writeFileSync(path.join(dir, 'data', 'bad.csv'), 'block,price\n0,3000\n1,-1\n');
    const markets = [{ chainId: 1, pair: 'WETH/USDC', path: { kind: 'csv', file: 'data/bad.csv' } }];
    const file = write('bad-csv.json', { ...scenario, chains: [1], markets });
    expect(failure(() => loadScenario(file, {}))).toBe(
      `${file}: markets[0].path: data/bad.csv line 3: price "-1" must be a number greater than 0`,
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
