import { accessSync, constants } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { forgeBinary } from './forge-binary';

/**
 * forge on our contracts, with the repo root's foundry.toml (fixed fuzz seed, runs, and solc-js as the compiler):
 * `npm run test:contracts` runs `forge test` (the fuzz and invariant suites of contracts-abi/forge-test), and
 * `npm run contracts:forge-build` runs `forge build`, whose output in out/ and cache/ a later `forge test` reuses
 * (CI compiles while it lints). Arguments after the subcommand go to forge, e.g.
 * `npm run test:contracts -- --match-contract SwapRouter -vvv`.
 */
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const SOLC = path.join(__dirname, 'solc-js.cjs');
const SUBCOMMANDS = new Set(['build', 'test']);

function main(): void {
  const [subcommand, ...args] = process.argv.slice(2);
  if (!subcommand || !SUBCOMMANDS.has(subcommand)) {
    throw new Error(`usage: run-forge.ts build|test [forge arguments]`);
  }
  const forge = forgeBinary();
  try {
    accessSync(SOLC, constants.X_OK);
  } catch {
    throw new Error(`${SOLC} must be executable (forge runs it as solc): chmod +x it`);
  }
  const child = spawn(forge, [subcommand, ...args], { cwd: REPO_ROOT, stdio: 'inherit' });
  child.on('error', (error) => {
    console.error(`could not start ${forge}: ${error.message}`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    if (signal) console.error(`forge stopped by ${signal}`);
    process.exitCode = code ?? 1;
  });
}

try {
  main();
} catch (error) {
  // No forge, no tests: fail loudly, never skip.
  console.error(`forge: ${(error as Error).message}`);
  process.exitCode = 1;
}
