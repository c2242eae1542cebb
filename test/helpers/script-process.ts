import { spawn } from 'node:child_process';
import { REPO_ROOT } from './api-harness';

/** One of the service's scripts as a child process (`node --import tsx`, so a signal reaches the script itself). */
export function startScript(script: string, env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  // The runner's own settings must not choose the chains or the store of the processes under test.
  for (const name of [
    'CHAINS_FILE',
    'DATABASE_URL',
    'REDIS_URL',
    'EXECUTOR_PRIVATE_KEYS',
    'EXECUTOR_KEYSTORE_FILES',
  ])
    if (!(name in env)) delete childEnv[name];
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`${script}: not seen ${pattern} (exit ${child.exitCode}):\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    /** Sends the signal unless the process has exited; SIGKILL if it is still running after 20 s. */
    async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export type Script = ReturnType<typeof startScript>;
