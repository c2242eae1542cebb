import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { devnetKeys } from '../../devnet/keys';
import type { DevnetManifest } from '../../devnet/manifest';
import { dataDirInUse } from '../../shared/store/data-dir-lock';
import { newAccountClient } from '../helpers/api-client';
import { crossingOrder, expectCrossingOrderExecuted } from '../helpers/crossing-order';
import { startScript, type Script } from '../helpers/script-process';

/**
 * The README's "Running the api and the keeper apart": `npm run devnet` (chains only), then `npm run devnet:api` and
 * `npm run devnet:keeper` as processes of their own with DEVNET_MANIFEST, sharing the SQLite store of the data folder.
 * A limit order created through the api is executed on-chain by the keeper process with the devnet's executors.
 */

jest.setTimeout(300_000);

describe('the api and the keeper run apart on the devnet manifest', () => {
  let dataDir: string;
  let manifestFile: string;
  let devnet: Script;
  let api: Script | undefined;
  let keeper: Script | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-apart-'));
    manifestFile = path.join(dataDir, 'devnet.json');
    devnet = startScript('devnet/cli/run-devnet.ts', {
      DATA_DIR: dataDir,
      DEVNET_CHAINS: '1',
      DEVNET_PORTS: '0',
    });
    await devnet.waitFor(/^ready in /m, 180_000);
  });

  afterAll(async () => {
    await Promise.all([keeper?.stop('SIGKILL'), api?.stop('SIGKILL')]);
    // The devnet stops its chains on SIGTERM; killed, it would leave them running (and writing into dataDir).
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('npm run devnet prints each chain and the manifest, and holds the data folder', async () => {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as DevnetManifest;
    expect(manifest.chains.map((c) => c.chainId)).toEqual([1]);
    expect(devnet.output()).toContain(
      `devnet: chain 1 (Ethereum) at ${manifest.chains[0]!.rpcUrl} (world deployed)\n` +
        `devnet: manifest ${manifestFile}\n`,
    );
    expect(await dataDirInUse(dataDir)).toBe(true);
    const second = startScript('devnet/cli/run-devnet.ts', {
      DATA_DIR: dataDir,
      DEVNET_CHAINS: '1',
      DEVNET_PORTS: '0',
    });
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(
      /^devnet failed to start: DATA_DIR \S+ is in use by another running service/,
    );
    expect(second.output().trim().split('\n')).toHaveLength(1);
  });

  it('a bad DEVNET_MANIFEST stops the api in one line naming it', async () => {
    const missing = path.join(dataDir, 'elsewhere', 'devnet.json');
    const wrong = startScript('devnet/apart/api-main.ts', {
      DEVNET_MANIFEST: missing,
      DATA_DIR: dataDir,
      PORT: '0',
    });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toBe(
      `api failed to start: Invalid configuration: DEVNET_MANIFEST="${missing}" does not exist: start the devnet ` +
        'first (npm run devnet), it writes DATA_DIR/devnet.json\n',
    );
  });

  it("the production api and keeper know nothing of a devnet's manifest: each stops in one line saying where it goes", async () => {
    const env = { DEVNET_MANIFEST: manifestFile, DATA_DIR: dataDir, PORT: '0', KEEPER_ADMIN_PORT: '0' };
    const api = startScript('api/main.ts', env);
    const keeper = startScript('keeper/main.ts', env);
    expect([await api.exited, await keeper.exited]).toEqual([1, 1]);
    expect(api.output()).toBe(
      'api failed to start: Invalid configuration: DEVNET_MANIFEST is read by `npm run devnet:api`, not by ' +
        '`npm run start:api` (which serves CHAINS_FILE)\n',
    );
    expect(keeper.output()).toBe(
      'keeper failed to start: Invalid configuration: DEVNET_MANIFEST is read by `npm run devnet:keeper`, not by ' +
        '`npm run keeper` (which serves CHAINS_FILE)\n',
    );
  });

  it('serves the devnet chain from the api process and executes a limit order from the keeper process', async () => {
    const apart = { DEVNET_MANIFEST: manifestFile, DATA_DIR: dataDir };
    api = startScript('devnet/apart/api-main.ts', { ...apart, PORT: '0', ADMIN_PORT: '0' });
    keeper = startScript('devnet/apart/keeper-main.ts', { ...apart, KEEPER_ADMIN_PORT: '0' });
    const [, baseUrl] = await api.waitFor(/api: (http:\/\/\S+\/api\/v1) .*chains (\S+)\)/, 120_000);
    expect(api.output()).toContain(`store sqlite, data ${dataDir}, chains ${manifestFile})`);
    const [, keeperAdmin] = await keeper.waitFor(/keeper: \S+ \(admin (http:\/\/\S+)\)/, 120_000);
    await keeper.waitFor(
      new RegExp(`keeper: chains of ${manifestFile}, executing with the devnet's 2 executor wallets`),
      5_000,
    );

    const health = await fetch(`${keeperAdmin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const client = await newAccountClient(baseUrl!);
    const chains = await client.get<{ chainIds: number[] }>('/chains');
    expect(chains.status).toBe(200);
    expect(chains.body.data).toEqual({ chainIds: [1] });
    const tokens = await client.get<{ chainId: number; tokens: { symbol: string }[] }>('/tokens?chainId=1');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as DevnetManifest;
    const chain = manifest.chains[0]!;
    expect(tokens.body.data?.chainId).toBe(1);
    expect(tokens.body.data?.tokens.map((t) => t.symbol)).toEqual([
      'ETH',
      ...chain.tokens.map((t) => t.symbol),
    ]);

    // A crossing order (trigger far below the market) reaches the chain only through the keeper process.
    const order = await crossingOrder(chain, 3, client.credentials.apiKey);
    // The keeper process publishes the reference prices the api process checks: until then creation is a 400.
    let id: string | undefined;
    for (const deadline = Date.now() + 90_000; !id;) {
      const res = await client.post<{ id: string }>('/limit-order', order.body);
      if (res.status === 200) id = res.body.data!.id;
      else {
        expect(res.body.error?.message).toBe('Not exist reference price for this pair WETH/USDC');
        if (Date.now() > deadline) throw new Error('no reference price published');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const receipt = await expectCrossingOrderExecuted(client, chain, order, id);
    // Sent by one of the devnet's executor wallets, which only the keeper process holds.
    expect(devnetKeys(2).executors.map((w) => w.address)).toContain(receipt.from);

    expect(await keeper.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
    expect(await devnet.stop()).toBe(0);
    expect(await dataDirInUse(dataDir)).toBe(false);
  });
});
