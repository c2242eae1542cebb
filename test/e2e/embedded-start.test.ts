import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DevnetManifest } from '../../devnet/manifest';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { spawnEmbedded } from '../helpers/embedded-service';
import { crossingOrder, expectCrossingOrderExecuted } from '../helpers/crossing-order';

/**
 * `npm start` as a user runs it: one process with the devnet, the api and the keeper. A limit order created
 * through the public API with a trigger below the market is executed on-chain by the embedded keeper, and
 * SIGTERM stops everything cleanly.
 */

jest.setTimeout(240_000);

describe('npm start (embedded mode)', () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;

  const waitForOutput = async (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`not seen in ${timeoutMs} ms: ${pattern}\n${output}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-embedded-'));
    child = spawnEmbedded({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      ADMIN_PORT: '0',
      KEEPER_ADMIN_PORT: '0',
      DEVNET_CHAINS: '1,56,137,43114',
      DEVNET_PORTS: '0,0,0,0',
      LOG_LEVEL: 'warn',
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the api, runs the keeper, executes a crossing limit order and stops on SIGTERM', async () => {
    const [, baseUrl] = await waitForOutput(/api: (http:\/\/\S+\/api\/v1)/, 120_000);
    const client: ApiClient = await newAccountClient(baseUrl!);
    await waitForOutput(/keeper: \S+ \(admin (http:\/\/\S+)\)/, 60_000);
    // Each chain reported while its world deploys, before `ready`.
    for (const chainId of [1, 56, 137, 43114]) {
      expect(output).toMatch(
        new RegExp(`devnet: chain ${chainId} \\(.+\\) at http://127\\.0\\.0\\.1:\\d+ on \\w+`),
      );
    }
    await waitForOutput(/^ready in \d+\.\d s$/m, 60_000);
    const manifest = JSON.parse(readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as DevnetManifest;
    // `ready` means every chain quotes now: no retry.
    await Promise.all(
      manifest.chains.map(async (c) => {
        const res = await client.post<{ quote: { outAmount: string } }>('/quotes', {
          mode: 'single-chain',
          params: {
            chainId: c.chainId,
            inTokenAddress: c.contracts.weth,
            outTokenAddress: c.tokens.find((t) => t.symbol === 'USDC')!.address,
            amount: '1',
            gasPrice: '30',
            slippage: '1',
          },
        });
        expect({ chainId: c.chainId, status: res.status }).toEqual({ chainId: c.chainId, status: 200 });
        expect(BigInt(res.body.data!.quote.outAmount)).toBeGreaterThan(0n);
      }),
    );
    const chain = manifest.chains.find((c) => c.chainId === 1)!;
    const order = await crossingOrder(chain, 2, client.credentials.apiKey);
    // `ready` also means the keeper has published reference prices: the order is accepted at once.
    const created = await client.post<{ id: string }>('/limit-order', order.body);
    expect(created.status).toBe(200);
    await expectCrossingOrderExecuted(client, chain, order, created.body.data!.id);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses in one line, before starting anything, when a configured port is taken', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    const otherDir = mkdtempSync(path.join(tmpdir(), 'tas-embedded-port-'));
    try {
      const second = spawnEmbedded({ DATA_DIR: otherDir, DATABASE_URL: '', DEVNET_PORTS: `0,${taken}` });
      let err = '';
      second.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
      expect(code).toBe(1);
      const lines = err.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn'));
      expect(lines).toEqual([
        expect.stringMatching(/^starting: /),
        `start failed: DEVNET_PORTS=${taken}: 127.0.0.1:${taken} is taken by another process (stop it or choose another port)`,
      ]);
      expect(existsSync(path.join(otherDir, 'devnet.json'))).toBe(false);
    } finally {
      holder.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
