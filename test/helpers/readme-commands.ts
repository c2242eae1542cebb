import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './api-harness';

/**
 * The commands of one README section: each line of its ```sh blocks (joined across trailing backslashes), comments
 * and blank lines dropped. A test that runs these runs what an operator copies.
 */
export function readmeSectionCommands(heading: string): string[] {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const rest = readme.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = next < 0 ? rest : rest.slice(0, next);
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command && !command.startsWith('#')) commands.push(command);
    }
  }
  return commands;
}

export interface RunningCommand {
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Signals the whole process group (npm, its shell and the node process under them). */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a README command through bash in the repo, in a process group of its own, with exactly `env` added. */
export function startCommand(command: string, env: Record<string, string>): RunningCommand {
  const child = spawn('bash', ['-c', command], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    output: () => output,
    exited,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (!running() || Date.now() > deadline)
          throw new Error(`${command}: not seen ${pattern} (exit ${child.exitCode}):\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async kill(signal = 'SIGTERM') {
      if (running()) {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // Already gone.
        }
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 20_000);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Runs a command to its end; the exit code and everything it printed. */
export async function runCommand(command: string, env: Record<string, string>, timeoutMs = 180_000) {
  const running = startCommand(command, env);
  const timer = setTimeout(() => void running.kill('SIGKILL'), timeoutMs);
  const { code } = await running.exited;
  clearTimeout(timer);
  return { code, output: running.output() };
}
