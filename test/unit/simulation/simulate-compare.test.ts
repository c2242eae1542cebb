import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildReport } from '../../../simulator/report/build-report';
import { compareReports } from '../../../simulator/report/compare-reports';
import { REPO_ROOT } from '../../helpers/api-harness';
import { facts, otherReport } from './report-fixture';

const CLI = path.join(REPO_ROOT, 'simulator', 'cli', 'simulate-compare.ts');
// The repo's tsx by file URL: the command runs from a temporary folder, where `--import tsx` would not resolve.
const TSX = pathToFileURL(path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const USAGE =
  'usage: npm run simulate:compare -- <A: report.json or its folder> <B: report.json or its folder>\n';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command as npm runs it: a real process through tsx. */
function run(args: string[], cwd: string): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run simulate:compare', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tas-compare-'));
    mkdirSync(path.join(dir, 'run-b'));
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(buildReport(facts()), null, 2));
    writeFileSync(path.join(dir, 'run-b', 'report.json'), JSON.stringify(otherReport(), null, 2));
    writeFileSync(path.join(dir, 'broken.json'), '{"version": 1,');
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ version: 1, scenario: { name: 'x' } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints two reports side by side: a report file, and a folder holding report.json', async () => {
    const ran = await run(['a.json', 'run-b'], dir);
    expect(ran).toEqual({
      code: 0,
      stdout: `${compareReports(buildReport(facts()), otherReport(), ['a.json', 'run-b'])}\n`,
      stderr: '',
    });
    expect(ran.stdout.split('\n')[0]).toBe(
      'metric                             |      a.json |       run-b |        B-A',
    );
  });

  it('exits 2 with the usage line unless given exactly two reports', async () => {
    expect(await run(['a.json'], dir)).toEqual({ code: 2, stdout: '', stderr: USAGE });
    expect(await run(['a.json', 'run-b', 'a.json'], dir)).toEqual({ code: 2, stdout: '', stderr: USAGE });
    expect(await run(['--help', 'a.json'], dir)).toEqual({ code: 2, stdout: '', stderr: USAGE });
  });

  it('exits 1 naming a file it cannot read, or that is not a report', async () => {
    expect(await run(['a.json', 'missing'], dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `${path.join(dir, 'missing')}: cannot read it (ENOENT)\n`,
    });
    expect(await run(['a.json', '.'], dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `${path.join(dir, 'report.json')}: cannot read it (ENOENT)\n`,
    });
    const broken = await run(['broken.json', 'a.json'], dir);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(new RegExp(`^${escape(path.join(dir, 'broken.json'))}: not JSON: .+\\n$`));
    expect(await run(['a.json', 'other.json'], dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `${path.join(dir, 'other.json')}: not a simulation report: (root) must have required property 'run'\n`,
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
