import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/api-harness';

interface Probe {
  /** Where the probe would live: linted as that file, never written. */
  file: string;
  /** The modules it imports, relative to `file`. */
  imports: string[];
}

interface LintMessage {
  ruleId: string | null;
  message: string;
}

// ESLint loads eslint.config.mjs with a dynamic import(), which jest's module sandbox refuses: its Node API runs in
// a plain node process, on the repository's own config. lintText lints each probe as if it were at its path, so
// no file is written into folders others are editing.
const LINT_SCRIPT = `
const { ESLint } = require('eslint');
const probes = JSON.parse(process.argv[2]);
const eslint = new ESLint({ cwd: process.argv[1] });
Promise.all(probes.map((p) => eslint.lintText(p.text, { filePath: p.file })))
  .then((results) => process.stdout.write(JSON.stringify(results.map((r) => r[0].messages))))
  .catch((err) => { console.error(err); process.exit(2); });
`;

async function lintProbes(probes: Probe[]): Promise<LintMessage[][]> {
  const texts = probes.map(({ file, imports }) => ({
    file,
    text: `${imports.map((spec, i) => `import * as m${i} from '${spec}';`).join('\n')}\n\nexport const all = [${imports.map((_, i) => `m${i}`).join(', ')}];\n`,
  }));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-e', LINT_SCRIPT, REPO_ROOT, JSON.stringify(texts)],
    {
      cwd: REPO_ROOT,
    },
  );
  return JSON.parse(stdout) as LintMessage[][];
}

const restricted = (messages: LintMessage[]): number =>
  messages.filter((m) => m.ruleId === 'import-x/no-restricted-paths').length;

describe('the lint of the layers', () => {
  const refused: Probe[] = [
    { file: 'api/probe.ts', imports: ['../devnet/start-devnet', '../keeper/build-keeper'] },
    { file: 'keeper/probe.ts', imports: ['../devnet/keys', '../api/build-api'] },
    { file: 'shared/probe.ts', imports: ['../api/build-api', '../devnet/keys'] },
    { file: 'devnet/probe.ts', imports: ['../simulator/run/run-simulation', '../test/helpers/api-harness'] },
    { file: 'contracts-abi/probe.ts', imports: ['../shared/config/load-config'] },
    { file: 'simulator/probe.ts', imports: ['../test/helpers/api-harness'] },
    { file: 'sdk/src/probe.ts', imports: ['../../shared/config/load-config'] },
    { file: 'examples/probe.ts', imports: ['../shared/config/load-config'] },
  ];
  const allowed: Probe[] = [
    { file: 'api/probe.ts', imports: ['../shared/config/load-config'] },
    { file: 'shared/probe.ts', imports: ['../contracts-abi/artifacts'] },
    { file: 'devnet/probe.ts', imports: ['../api/build-api', '../keeper/build-keeper'] },
    { file: 'simulator/probe.ts', imports: ['../devnet/keys', '../embedded/wait-until-quoting'] },
    { file: 'tools/probe.ts', imports: ['../devnet/keys', '../keeper/build-keeper'] },
    { file: 'bench/probe.ts', imports: ['../test/helpers/api-harness', '../simulator/run/run-simulation'] },
    { file: 'examples/probe.ts', imports: ['../sdk/src/index'] },
  ];

  it('refuses an import up the floors (or into test/) on every import, and lets the floors below through', async () => {
    const messages = await lintProbes([...refused, ...allowed]);
    const counts = messages.map(restricted);
    expect(counts.slice(0, refused.length)).toEqual(refused.map((probe) => probe.imports.length));
    expect(counts.slice(refused.length)).toEqual(allowed.map(() => 0));
  }, 120_000);
});
