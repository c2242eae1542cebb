#!/usr/bin/env node
// The `solc` forge runs (foundry.toml: `solc = ...`): the npm package solc (solc-js, the same compiler
// compile-contracts.ts uses) behind the slice of native solc's command line forge calls, so forge compiles offline
// with no native compiler downloaded. forge calls `solc --version`, then
// `solc --allow-paths <dirs> --base-path <root> [--include-path <dir>]... --standard-json` with the JSON input on
// stdin (every source inlined as `content`) and reads the JSON output from stdout. Any other argument fails loudly.
'use strict';

const { readFileSync } = require('node:fs');
const path = require('node:path');
const process = require('node:process');

const SOLC_VERSION = '0.8.28';

function fail(message) {
  process.stderr.write(`solc-js.cjs: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = {
    version: false,
    standardJson: false,
    basePath: process.cwd(),
    includePaths: [],
    allowed: [],
  };
  const takesValue = new Set(['--allow-paths', '--base-path', '--include-path']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--version') options.version = true;
    else if (arg === '--standard-json') options.standardJson = true;
    else if (takesValue.has(arg)) {
      const value = argv[++i];
      if (value === undefined) fail(`${arg} needs a value`);
      if (arg === '--base-path') options.basePath = path.resolve(value);
      else if (arg === '--include-path') options.includePaths.push(path.resolve(value));
      else
        options.allowed.push(
          ...value
            .split(',')
            .filter(Boolean)
            .map((p) => path.resolve(p)),
        );
    } else fail(`unsupported argument ${arg} (only --version and --standard-json are emulated)`);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const solc = require('solc');
const version = solc.version();
if (!version.startsWith(`${SOLC_VERSION}+`)) fail(`solc ${SOLC_VERSION} expected, npm has ${version}`);

if (options.version) {
  // forge reads the semver from the `Version:` line; the build suffix native Linux solc prints.
  const commit = version.split('+')[1].split('.')[0];
  process.stdout.write(
    `solc, the solidity compiler commandline interface\nVersion: ${SOLC_VERSION}+${commit}.Linux.g++\n`,
  );
  process.exit(0);
}
if (!options.standardJson) fail('expected --version or --standard-json');

// forge inlines every source it resolved; this only serves an import it did not, as native solc would: relative
// to the base path or an include path, and inside the allowed directories.
const roots = [options.basePath, ...options.includePaths];
const allowed = [...roots, ...options.allowed];
function findImport(unit) {
  for (const root of roots) {
    const file = path.resolve(root, unit);
    if (!allowed.some((dir) => file === dir || file.startsWith(dir + path.sep))) continue;
    try {
      return { contents: readFileSync(file, 'utf8') };
    } catch {
      // try the next root
    }
  }
  return { error: `File not found: ${unit}` };
}

process.stdout.write(solc.compile(readFileSync(0, 'utf8'), { import: findImport }));
