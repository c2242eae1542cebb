import { spawn, type ChildProcess } from 'node:child_process';
import { anvilBinary } from './anvil-binary';

export interface AnvilProcess {
  child: ChildProcess;
  /** Resolves with the exit code once anvil (and its watchdog shell) exited. */
  exited: Promise<number | null>;
  /** Asks anvil to stop (it dumps its state first) and waits until it exited. */
  stop(): Promise<void>;
}

export class PortTakenError extends Error {}

const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 25;

/*
 * anvil runs under a watchdog shell holding our end of a pipe on its stdin: when this process ends in any
 * way (even SIGKILL) the pipe closes, the watchdog's `read` returns and anvil gets SIGTERM, dumps its state
 * and exits. Without it a killed `npm start` would leave its chains running on the ports and lose their state.
 */
const WATCHDOG =
  'exec 3<&0; "$0" "$@" </dev/null & pid=$!; (read _ <&3; kill -TERM $pid) >/dev/null 2>&1 & wait $pid';

/** Spawns anvil with `args` and resolves once it answers JSON-RPC on `rpcUrl`. */
export async function spawnAnvil(args: string[], rpcUrl: string): Promise<AnvilProcess> {
  const binary = anvilBinary();
  const child =
    process.platform === 'win32'
      ? spawn(binary, args, { stdio: ['pipe', 'ignore', 'pipe'] })
      : spawn('sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => {
      stderr += err.message;
      resolve(null);
    });
  });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode !== null) return;
      // Closing stdin makes the watchdog send SIGTERM; on Windows there is no watchdog.
      if (process.platform === 'win32') child.kill('SIGTERM');
      else child.stdin?.end();
      await exited;
    })();
    return stopped;
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!(await answers(rpcUrl))) {
    if (gone) {
      const reason = stderr.trim().split('\n').pop() ?? 'no output';
      if (/address already in use/i.test(stderr)) throw new PortTakenError(reason);
      throw new Error(`anvil exited before serving ${rpcUrl}: ${reason}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not serve ${rpcUrl} within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { child, exited, stop };
}

async function answers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}
