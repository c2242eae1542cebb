import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/api-harness';

interface LintMessage {
  ruleId: string | null;
  message: string;
}

// ESLint loads eslint.config.mjs with a dynamic import(), which jest's module sandbox refuses: its Node API runs in
// a plain node process, on the repository's own config.
const LINT_SCRIPT = `
const { ESLint } = require('eslint');
new ESLint({ cwd: process.argv[1] })
  .lintFiles(process.argv.slice(2))
  .then((results) => process.stdout.write(JSON.stringify(results.map((r) => ({ file: r.filePath, messages: r.messages })))))
  .catch((err) => { console.error(err); process.exit(2); });
`;

async function lint(files: string[]): Promise<Map<string, LintMessage[]>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', LINT_SCRIPT, REPO_ROOT, ...files], {
    cwd: REPO_ROOT,
  });
  const results = JSON.parse(stdout) as Array<{ file: string; messages: LintMessage[] }>;
  return new Map(results.map((r) => [path.basename(r.file), r.messages]));
}

describe('the lint', () => {
  // Inside the repository, so the project's config and TypeScript resolver apply as to any source file.
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(REPO_ROOT, '.lint-cycle-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on two modules that import each other, and only on them', async () => {
    const files = {
      'a.ts': "import { b } from './b';\n\nexport const a = (): number => b() + 1;\n",
      'b.ts':
        "import { a } from './a';\n\nexport const b = (): number => 2;\nexport const twice = (): number => a() * 2;\n",
      // Imports a module of the cycle without being part of it.
      'c.ts': "import { a } from './a';\n\nexport const c = (): number => a();\n",
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);

    const messages = await lint(Object.keys(files).map((name) => path.join(dir, name)));

    expect([...messages.keys()].sort()).toEqual(['a.ts', 'b.ts', 'c.ts']);
    for (const name of ['a.ts', 'b.ts']) {
      expect({ name, messages: messages.get(name) }).toEqual({
        name,
        messages: [
          expect.objectContaining({ ruleId: 'import-x/no-cycle', message: 'Dependency cycle detected' }),
        ],
      });
    }
    expect(messages.get('c.ts')).toEqual([]);
  }, 60_000);
});
