import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SimulationReport } from '../../simulator/report/report-types';

const REPO_ROOT = path.resolve(__dirname, '../..');
const RUN_TIMEOUT_MS = 240_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run simulate -- …` as a user runs it: a real process, whose exit code and output are the interface.
 * `interruptOn`: SIGINT once stderr shows the pattern.
 */
function simulate(args: string[], dataDir: string, interruptOn?: RegExp): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/cli/simulate.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let interrupted = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (interruptOn && !interrupted && interruptOn.test(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Processes whose command line names the folder (the run's anvil chains keep their state under it). */
function processesUsing(folder: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', folder], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The example path: 3000 at block 0, 2800 at 60, 3300 at 160, flat after. */
function pathPrice(block: number): number {
  if (block <= 60) return 3000 - (200 * block) / 60;
  if (block <= 160) return 2800 + (500 * (block - 60)) / 100;
  return 3300;
}

describe('npm run simulate (the shipped dip-and-rally scenario, through the public API on anvil)', () => {
  let dataDir: string;
  let out: string;
  let ran: Ran;
  let report: SimulationReport;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-simulate-'));
    out = path.join(dataDir, 'out');
    ran = await simulate(['--scenario', 'simulations/dip-and-rally.json', '--out', out], dataDir);
    report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as SimulationReport;
  }, RUN_TIMEOUT_MS);

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 with a one-screen summary and leaves no process behind', () => {
    expect({ code: ran.code, stderr: ran.stderr.slice(-2000) }).toMatchObject({ code: 0 });
    expect(ran.stdout).toContain('dip-and-rally: 200 blocks of 12 s, seed 7');
    expect(ran.stdout).toMatch(/limit orders: placed 8, triggered 8, executable 8, filled 8, missed 0,/);
    expect(ran.stdout).toContain(path.join(out, 'report.html'));
    expect(ran.stdout.split('\n').length).toBeLessThan(25);
    expect(processesUsing(dataDir)).toEqual([]);
  });

  it('reports every take-profit order triggered where the path first reaches 3100 and filled on-chain', () => {
    const limit = report.orders.filter((o) => o.kind === 'limit');
    expect(limit).toHaveLength(8);
    // 2800 + 5 × (b − 60) ≥ 3100 first at block 120.
    expect(pathPrice(119)).toBeLessThan(3100);
    expect(pathPrice(120)).toBe(3100);
    for (const order of limit) {
      expect(order).toMatchObject({
        chainId: 1,
        pair: 'WETH/USDC',
        sell: 'WETH',
        buy: 'USDC',
        amount: '0.5',
        trigger: '3100',
        status: 'completed',
        placedAtBlock: 0,
        triggeredAtBlock: 120,
        checkedOnChain: true,
        reason: null,
      });
      expect(order.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(order.gasUsed).toBeGreaterThan(21_000);
      expect(order.filledAtBlock).toBeGreaterThan(120);
      expect(order.pathLatencyBlocks).toBe(order.filledAtBlock! - 120);
      // At the trigger's own block the pools' mid is 3100: no swap pays 3100 net of the pool fee and the fee.
      expect(order.executableAtBlock).toBeGreaterThan(120);
      expect(order.latencyBlocks).toBe(order.filledAtBlock! - order.executableAtBlock!);
      // The maker's trigger is a net price: what it received pays (amount + fee) × 3100.
      expect(Number(order.amountOut)).toBeGreaterThanOrEqual(
        (Number(order.amountIn) + Number(order.fee)) * 3100,
      );
      // Sold above the trigger less the order's 1 % slippage, and never above the market's top.
      expect(order.executionPrice).toBeGreaterThan(3100 * 0.99);
      expect(order.executionPrice).toBeLessThanOrEqual(3300);
      expect(Number(order.fee)).toBeGreaterThan(0);
    }
    expect(report.totals.limit).toMatchObject({
      placed: 8,
      triggered: 8,
      executable: 8,
      filled: 8,
      missed: 0,
      expired: 0,
      failed: {},
      neverExecutable: 0,
      untriggered: 0,
      fillRatio: 1,
    });
    // Issue 27: each order filled in the block after the one that made it executable (p50 1, max 2 at most).
    expect(report.totals.limit.latencyBlocks.p50).toBe(1);
    expect(report.totals.limit.latencyBlocks.max).toBeLessThanOrEqual(2);
    expect(report.discrepancies).toEqual([]);
  });

  it('reports the DCA strategy: three iterations every 50 blocks, its average price against the TWAP of its blocks', () => {
    expect(report.dca).toHaveLength(1);
    const [strategy] = report.dca;
    const twap = Array.from({ length: 101 }, (_, b) => pathPrice(b)).reduce((a, b) => a + b, 0) / 101;
    expect(strategy).toMatchObject({
      chainId: 1,
      pair: 'WETH/USDC',
      sell: 'USDC',
      buy: 'WETH',
      iterations: 3,
    });
    expect(strategy.executed).toBe(3);
    expect(strategy.twap).toBeCloseTo(twap, 6);
    const iterations = report.orders.filter((o) => o.kind === 'dca');
    expect(iterations.map((o) => [o.iteration, o.status, o.amount, o.checkedOnChain])).toEqual([
      [1, 'successful', '200', true],
      [2, 'successful', '200', true],
      [3, 'successful', '200', true],
    ]);
    // Iteration k is due 50 k blocks (600 k s) after the strategy's creation at block 0; the keeper acts on the block
    // where it is due (or, for the first, on the one after the placement) and its transaction lands in the next.
    iterations.forEach((o, k) => {
      expect(o.filledAtBlock).toBeGreaterThan(50 * k);
      expect(o.filledAtBlock).toBeLessThanOrEqual(50 * k + 3);
    });
    // A buyer's average: USDC spent over WETH received, within the path's range.
    expect(strategy.averagePrice).toBeGreaterThan(2800 * 0.99);
    expect(strategy.averagePrice).toBeLessThan(3300);
  });

  it('writes one self-contained report.html with the charts', () => {
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script[^>]+src|<link/i);
    expect(html.match(/<svg/g)?.length).toBe(3);
    expect(html).toContain('dip-and-rally');
  });

  it('compares two reports side by side', () => {
    const compared = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'simulator/cli/simulate-compare.ts', out, path.join(out, 'report.json')],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    // The same report twice: every row equal, every difference 0.
    expect(compared).toMatch(/^limit filled +\| +8 \| +8 \| +0$/m);
    expect(compared).toMatch(/^limit placed +\| +8 \| +8 \| +0$/m);
  });
});

describe('npm run simulate with a bad scenario', () => {
  it('exits 2 naming the field, before starting any chain', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-simulate-bad-'));
    try {
      const file = path.join(dataDir, 'bad.json');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'bad',
          chains: [1],
          blockTimeSeconds: 12,
          blocks: 10,
          markets: [{ chainId: 1, pair: 'WETH/USDC', path: { kind: 'points', points: [[0, 3000]] } }],
        }),
      );
      const ran = await simulate(['--scenario', file], dataDir);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`${file}: markets[0].path.points: must NOT have fewer than 2 items`);
      expect(processesUsing(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('npm run simulate interrupted with Ctrl-C', () => {
  it.each([
    ['while the service starts', /devnet: chain 1 \(Ethereum\) at /],
    ['while it drives the blocks', /block \d+\/200/],
  ])(
    '%s: exits 130 and leaves no chain running',
    async (_when, pattern) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-simulate-int-'));
      try {
        const ran = await simulate(['--scenario', 'simulations/dip-and-rally.json'], dataDir, pattern);
        expect({ code: ran.code, stderr: ran.stderr.slice(-600) }).toMatchObject({ code: 130 });
        expect(ran.stderr).toContain('simulation interrupted');
        expect(processesUsing(dataDir)).toEqual([]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
