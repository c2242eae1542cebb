import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonRpcProvider } from 'ethers';
import { devnetBridgeEnv } from '../../devnet/bridge-keys';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import type { ManifestChain } from '../../devnet/manifest';
import type { ChainHandle } from '../../devnet/start-chain';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { createLogger } from '../../shared/log/create-logger';
import { newAccountClient, type ApiClient, type ApiResponse, type Envelope } from './api-client';
import { startApi } from './api-harness';
import { createStoreTarget } from './store-targets';

/**
 * The api alone (no keeper) on SQLite, serving one devnet chain with the fixture world in a data folder of its own,
 * for the quote and swap end-to-end suites.
 */
export interface DevnetApi {
  devnet: RunningDevnet;
  manifest: ManifestChain;
  provider: JsonRpcProvider;
  /** The chain's test controls: engine-independent. */
  chain: ChainHandle;
  /** A new account's client. */
  client: ApiClient;
  /**
   * Resolves once the api quotes from the pool state of the chain's current head (it follows the chain a poll
   * behind): what a test that just moved pools waits for before it reads a quote.
   */
  quotesCaughtUp(timeoutMs?: number): Promise<void>;
  /** Stops the api, drops the store, stops the chain and removes the data folder. */
  close(): Promise<void>;
}

/**
 * `dataDirPrefix` names the temporary data folder (e.g. `tas-quotes-`). `devnetEnv` overrides the devnet settings
 * (e.g. `{ DEVNET_CHAINS: '1,137', DEVNET_PORTS: '0,0' }` for two chains; `manifest` is then the first one).
 */
export async function startDevnetApi(
  chainId: number,
  dataDirPrefix: string,
  devnetEnv: Record<string, string> = {},
): Promise<DevnetApi> {
  const dataDir = mkdtempSync(path.join(tmpdir(), dataDirPrefix));
  // Last started, first stopped; also what a failed start leaves behind.
  const stops: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const devnet = await startDevnet(
      loadDevnetConfig({
        DATA_DIR: dataDir,
        DEVNET_CHAINS: String(chainId),
        DEVNET_PORTS: '0',
        ...devnetEnv,
      }),
      createLogger('silent', 'test'),
    );
    stops.push(() => devnet.stop());
    const target = await createStoreTarget('sqlite');
    stops.push(() => target.cleanup());
    // The api names the devnet's relayer in its intent quotes, as in embedded mode.
    const running = await startApi(target, devnetBridgeEnv({}), { chains: devnet.chains });
    stops.push(() => running.close());
    const client = await newAccountClient(running.baseUrl);
    return {
      devnet,
      manifest: devnet.manifest.chains[0]!,
      provider: devnet.handles[0]!.provider,
      chain: devnet.handles[0]!,
      client,
      async quotesCaughtUp(timeoutMs = 30_000) {
        const head = await devnet.handles[0]!.provider.getBlockNumber();
        const engine = running.api.quoting.engine;
        const deadline = Date.now() + timeoutMs;
        while ((engine.blockNumber(devnet.manifest.chains[0]!.chainId) ?? -1) < head) {
          if (Date.now() > deadline) throw new Error(`quotes did not reach block ${head} in ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Pools load in the background after the api starts: until the first refresh, quotes answer NO_ROUTE. Repeats
 * `probe` (a quote expected to succeed) until it answers 200, failing on any other error or after `timeoutMs`.
 */
export async function waitUntilQuotesAvailable(
  probe: () => Promise<ApiResponse<Envelope<unknown>>>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await probe();
    if (res.status === 200) return;
    expect(res.body.error?.code).toBe('NO_ROUTE');
    if (Date.now() > deadline) throw new Error('quotes never became available');
    await new Promise((r) => setTimeout(r, 250));
  }
}
