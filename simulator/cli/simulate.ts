/**
 * Runs a simulation scenario against the real service on its own devnet:
 *   npm run simulate -- --scenario FILE [--out DIR] [--seed N]
 * Exit 0 when the run completed (whatever it filled), 2 on a usage or scenario error, 1 when the run failed,
 * 130 when interrupted. Every chain and server it started is stopped before it exits.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ScenarioError } from '../scenario/scenario-error';
import { RunInterrupted } from '../run/interruptible';
import { progressPrinter } from '../run/run-progress';
import { runSimulation } from '../run/run-simulation';
import { summaryText } from '../run/summary-text';

const USAGE = 'usage: npm run simulate -- --scenario FILE [--out DIR] [--seed N]';

function readArgs(argv: string[]): { scenario: string; out?: string; seed?: number } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { scenario: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length || !values.scenario) throw new UsageError(USAGE);
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!/^\d+$/.test(values.seed) || !Number.isSafeInteger(seed)) {
      throw new UsageError(`--seed must be a non-negative integer, got ${values.seed}\n${USAGE}`);
    }
  }
  return { scenario: values.scenario, out: values.out, seed };
}

class UsageError extends Error {}

async function main(): Promise<number> {
  let args: ReturnType<typeof readArgs>;
  try {
    args = readArgs(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof UsageError ? err.message : `${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const printer = progressPrinter(process.stderr);
  const abort = new AbortController();
  const interrupt = (): void => {
    if (abort.signal.aborted) return;
    printer.line('interrupted: stopping after this block');
    abort.abort();
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    const { report, outDir } = await runSimulation({
      scenarioFile: args.scenario,
      outDir: args.out,
      seed: args.seed,
      onProgress: (p) => printer.update(p),
      onLine: (text) => printer.line(text),
      signal: abort.signal,
    });
    printer.done();
    console.log(
      summaryText(report, {
        json: path.join(outDir, 'report.json'),
        html: path.join(outDir, 'report.html'),
      }),
    );
    return 0;
  } catch (err) {
    printer.done();
    if (err instanceof ScenarioError) {
      console.error(err.message);
      return 2;
    }
    if (err instanceof RunInterrupted) {
      console.error('simulation interrupted: the chains and servers it started are stopped');
      return 130;
    }
    console.error(`simulation failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
