import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPEATED_SIGNAL_WINDOW_MS } from '../../shared/process/run-until-signal';
import { REPO_ROOT } from '../helpers/api-harness';

const FIXTURE = path.join(__dirname, 'fixtures', 'run-until-signal-child.ts');

interface Child {
  /** stdout lines so far: the fixture's events. */
  lines(): string[];
  /** stderr so far: runUntilSignal's own messages. */
  stderr(): string;
  waitForLine(line: string, timeoutMs?: number): Promise<void>;
  signal(signal: NodeJS.Signals): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** The fixture as a real process (`node --import tsx`, as the service's scripts run), so signals are real. */
function startFixture(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const lines = () => stdout.split('\n').filter(Boolean);
  return {
    lines,
    stderr: () => stderr,
    async waitForLine(line, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!lines().includes(line)) {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(
            `not seen "${line}" (exit ${child.exitCode}); stdout:\n${stdout}\nstderr:\n${stderr}`,
          );
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    signal: (signal) => void child.kill(signal),
    exited,
  };
}

describe('runUntilSignal', () => {
  let running: Child | undefined;
  afterEach(async () => {
    running?.signal('SIGKILL');
    await running?.exited;
    running = undefined;
  });

  it('on SIGTERM lets the work in flight finish, starts no more, and exits 0', async () => {
    const child = (running = startFixture({ TICK_MS: '1500' }));
    await child.waitForLine('tick 1 started');
    const signalledAt = Date.now();
    child.signal('SIGTERM');
    // The same request passed on by a wrapper (npm, tsx) right after is not a second signal.
    setTimeout(() => child.signal('SIGTERM'), 50);

    const exit = await child.exited;
    expect(exit).toEqual({ code: 0, signal: null, at: expect.any(Number) });
    expect(child.lines()).toEqual(['tick 1 started', 'stopping', 'tick 1 finished', 'stopped']);
    // Still working when the signal came: the exit waited for the tick.
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(1_000);
    expect(child.stderr()).toBe('shutting down: finishing the work in flight\n');
  });

  it('exits at once, non-zero, on a second signal', async () => {
    const child = (running = startFixture({ TICK_MS: '60000' }));
    await child.waitForLine('tick 1 started');
    child.signal('SIGINT');
    await child.waitForLine('stopping');
    await new Promise((r) => setTimeout(r, REPEATED_SIGNAL_WINDOW_MS + 200));
    const forcedAt = Date.now();
    child.signal('SIGINT');

    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(exit.at - forcedAt).toBeLessThan(5_000);
    expect(child.lines()).toEqual(['tick 1 started', 'stopping']);
    expect(child.stderr()).toContain('second signal: exiting without waiting for the work in flight');
  });

  it('exits non-zero when the work outlasts the grace period', async () => {
    const child = (running = startFixture({ TICK_MS: '60000', GRACE_MS: '700' }));
    await child.waitForLine('tick 1 started');
    const signalledAt = Date.now();
    child.signal('SIGTERM');

    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(600);
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    expect(child.lines()).toEqual(['tick 1 started', 'stopping']);
    expect(child.stderr()).toContain('shutdown did not finish within the grace period');
  });

  it('reports a failed start in one line, stops what already runs and exits 1', async () => {
    const child = (running = startFixture({ TICK_MS: '300', FAIL_START: '1' }));

    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(child.stderr()).toBe('fixture failed to start: the store is unreachable\n');
    expect(child.lines()).toEqual(['tick 1 started', 'stopping', 'tick 1 finished', 'stopped']);
  });
});
