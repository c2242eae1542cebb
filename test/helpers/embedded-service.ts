import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DevnetManifest, ManifestChain } from '../../devnet/manifest';
import { REPO_ROOT } from './api-harness';

/** `npm start` as an integrator runs it (one process: devnet chain 1, the api, the keeper, SQLite). */
export interface EmbeddedService {
  /** Ends in /api/v1. */
  baseUrl: string;
  dataDir: string;
  manifest: DevnetManifest;
  /** The manifest's chain 1. */
  chain: ManifestChain;
  /** Everything the process printed so far. */
  output(): string;
}

const START_TIMEOUT_MS = 180_000;

/** `npm start`'s entry as a child process of its own, with `env` over this process's environment. */
export function spawnEmbedded(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'embedded/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Registers a beforeAll that starts `npm start`'s entry on a fresh data folder and waits for its `ready` line,
 * and an afterAll that stops it with SIGTERM (SIGKILL if it does not exit) and removes the folder. Returns the
 * running service's accessor, for use inside tests.
 */
export function useEmbeddedService(env: Record<string, string> = {}): () => EmbeddedService {
  let service: EmbeddedService | undefined;
  let child: ChildProcess | undefined;
  let dataDir = '';
  let output = '';

  const waitFor = async (pattern: RegExp, until: number): Promise<RegExpMatchArray> => {
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child?.exitCode !== null && child?.exitCode !== undefined) {
        throw new Error(`npm start exited (${child.exitCode}) before ${pattern}:\n${output}`);
      }
      if (Date.now() > until) throw new Error(`npm start: not seen in time: ${pattern}\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-kit-'));
    child = spawnEmbedded({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      ADMIN_PORT: '0',
      KEEPER_ADMIN_PORT: '0',
      DEVNET_CHAINS: '1',
      DEVNET_PORTS: '0',
      LOG_LEVEL: 'warn',
      ...env,
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const until = Date.now() + START_TIMEOUT_MS;
    const [, baseUrl] = await waitFor(/api: (http:\/\/\S+\/api\/v1)/, until);
    await waitFor(/^ready in \d+\.\d s$/m, until);
    const manifest = JSON.parse(readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as DevnetManifest;
    const chain = manifest.chains.find((c) => c.chainId === 1);
    if (!chain) throw new Error('the devnet manifest has no chain 1');
    service = { baseUrl: baseUrl!, dataDir, manifest, chain, output: () => output };
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 40_000);

  return () => {
    if (!service) throw new Error('the embedded service is not running (its beforeAll failed)');
    return service;
  };
}
