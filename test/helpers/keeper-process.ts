import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainConfig } from '../../shared/config/config-schema';
import { REPO_ROOT } from './api-harness';

/** One pino line of the keeper's stdout (only the fields the tests read are typed). */
export interface KeeperLogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface KeeperProcessOptions {
  /** Chains as the api serves them; written to a CHAINS_FILE in `dataDir`. */
  chains: readonly ChainConfig[];
  dataDir: string;
  databaseUrl: string;
  executorPrivateKeys: string[];
  /** More environment (KEEPER_* settings). */
  env?: Record<string, string>;
  /**
   * Checked on every log line as it arrives: the first line it accepts gets the process a SIGKILL from inside the
   * output handler, before the test's own code runs again, so the keeper has as little time as possible to go on.
   */
  killWhen?: (line: KeeperLogLine) => boolean;
  /** How long start-up may take before the process is killed and the start fails (default 60 s). */
  startTimeoutMs?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface KeeperProcess {
  pid: number;
  /** Every JSON log line so far, in order. */
  logs(): KeeperLogLine[];
  /** stderr so far (start-up failures, uncaught errors). */
  stderr(): string;
  /** Resolves with the first line (already seen or to come) the predicate accepts; rejects on timeout or exit. */
  waitForLog(predicate: (line: KeeperLogLine) => boolean, timeoutMs: number): Promise<KeeperLogLine>;
  /** The line `killWhen` accepted, once the process was killed for it. */
  killedOn(): KeeperLogLine | undefined;
  exited: Promise<ProcessExit>;
  /** Sends a signal (default SIGKILL) unless it has exited, and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<ProcessExit>;
}

/**
 * `npm run keeper` as a real child process (`node --import tsx keeper/main.ts`, one process, so a SIGKILL is a
 * kill of the keeper itself and not of a wrapper), configured through its environment like in production.
 * Resolves once the keeper logged `keeper started`.
 */
export async function startKeeperProcess(opts: KeeperProcessOptions): Promise<KeeperProcess> {
  const chainsFile = path.join(opts.dataDir, `keeper-chains-${Date.now()}-${Math.random()}.json`);
  writeFileSync(chainsFile, JSON.stringify({ chains: opts.chains }));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'keeper/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CHAINS_FILE: chainsFile,
      DATA_DIR: opts.dataDir,
      DATABASE_URL: opts.databaseUrl,
      EXECUTOR_PRIVATE_KEYS: opts.executorPrivateKeys.join(','),
      KEEPER_ADMIN_PORT: '0',
      LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('the keeper process did not start');
  const pid = child.pid;
  const lines: KeeperLogLine[] = [];
  const waiters = new Set<{
    predicate: (line: KeeperLogLine) => boolean;
    resolve: (l: KeeperLogLine) => void;
  }>();
  let stderr = '';
  let partial = '';
  let killedOn: KeeperLogLine | undefined;
  let exit: ProcessExit | undefined;

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });

  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const text of complete) {
      if (!text.startsWith('{')) continue;
      let line: KeeperLogLine;
      try {
        line = JSON.parse(text) as KeeperLogLine;
      } catch {
        continue;
      }
      lines.push(line);
      if (!killedOn && exit === undefined && opts.killWhen?.(line)) {
        killedOn = line;
        child.kill('SIGKILL');
      }
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.delete(waiter);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });

  const waitForLog = (predicate: (line: KeeperLogLine) => boolean, timeoutMs: number) => {
    const seen = lines.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise<KeeperLogLine>((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (line: KeeperLogLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`keeper ${pid}: no matching log line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      waiters.add(waiter);
      void exited.then((e) => {
        if (!waiters.delete(waiter)) return;
        clearTimeout(timer);
        reject(
          new Error(`keeper ${pid} exited (${e.code ?? e.signal}) before the log line; stderr: ${stderr}`),
        );
      });
    });
  };

  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<ProcessExit> => {
    if (exit === undefined) child.kill(signal);
    return exited;
  };

  try {
    await waitForLog((l) => l.msg === 'keeper started', opts.startTimeoutMs ?? 60_000);
  } catch (err) {
    await kill();
    throw err;
  }
  return {
    pid,
    logs: () => [...lines],
    stderr: () => stderr,
    waitForLog,
    killedOn: () => killedOn,
    exited,
    kill,
  };
}
