/**
 * Runs the e2e tier in two lanes at once on this 2-core machine: the files that spend most of their time waiting
 * on the chain's clock or an outage (few CPU seconds per second) in one lane, everything else one file at a time in
 * the other, as before. Each lane is its own jest run with one worker, so no two CPU-heavy files ever share the
 * machine; the tier fails if either lane fails. Arguments after `--` go to both jest runs.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Mostly waiting: a 120 s RPC outage, chains on 2 s blocks, a lease to expire, a second engine's start-up. */
const WAITING_LANE = [
  'test/e2e/keeper-outage.test.ts',
  'test/e2e/relayer-valuation.test.ts',
  'test/e2e/lock-release-safety.test.ts',
  'test/e2e/keeper-restart.test.ts',
  'test/e2e/ganache-engine-smoke.test.ts',
];

function lane(name: string, args: readonly string[]): Promise<number> {
  const child = spawn('npx', ['jest', '--selectProjects', 'e2e', '--maxWorkers=1', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stderr.write(`[${name}] ${line}\n`));
  }
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

async function main(): Promise<void> {
  const extra = process.argv.slice(2);
  const [waiting, busy] = await Promise.all([
    lane('e2e waiting', [...WAITING_LANE, ...extra]),
    lane('e2e', [
      ...WAITING_LANE.flatMap((file) => ['--testPathIgnorePatterns', file.replace(/\./g, '\\.')]),
      ...extra,
    ]),
  ]);
  process.stderr.write(`e2e lanes: waiting lane exit ${waiting}, main lane exit ${busy}\n`);
  process.exit(waiting === 0 && busy === 0 ? 0 : 1);
}

void main();
