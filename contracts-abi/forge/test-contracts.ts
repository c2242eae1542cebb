import { accessSync, constants } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { forgeBinary } from './forge-binary';

/**
 * `npm run test:contracts`: forge's fuzz and invariant suites of contracts-abi/forge-test against our contracts
 * (settings in the repo root's foundry.toml: fixed fuzz seed, runs, and solc-js as the compiler). Extra arguments
 * go to `forge test`, e.g. `npm run test:contracts -- --match-contract SwapRouter -vvv`.
 */
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const SOLC = path.join(__dirname, 'solc-js.cjs');

function main(): void {
  const forge = forgeBinary();
  try {
    accessSync(SOLC, constants.X_OK);
  } catch {
    throw new Error(`${SOLC} must be executable (forge runs it as solc): chmod +x it`);
  }
  const child = spawn(forge, ['test', ...process.argv.slice(2)], { cwd: REPO_ROOT, stdio: 'inherit' });
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
  console.error(`test:contracts: ${(error as Error).message}`);
  process.exitCode = 1;
}
