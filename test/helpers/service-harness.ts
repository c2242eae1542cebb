import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonRpcProvider } from 'ethers';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { devnetBridgeEnv } from '../../devnet/bridge-keys';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import type { ChainHandle } from '../../devnet/start-chain';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { buildKeeper, KEEPER_BLOCK_POLL_MS, type KeeperInstance } from '../../keeper/build-keeper';
import type { AppConfig } from '../../shared/config/config-schema';
import { createLogger } from '../../shared/log/create-logger';
import { openStore, type Store } from '../../shared/store/store';
import { newAccountClient, type ApiClient } from './api-client';
import { startApi, testConfig, type RunningApi } from './api-harness';
import { createStoreTarget, type StoreKind, type StoreTarget } from './store-targets';

/**
 * The whole service as `npm start` runs it, for end-to-end tests through the public API: a devnet chain with the
 * fixture world, the api, and one or more keepers on one store (each keeper with its own store connection and
 * owner id, as separate processes would have). Keepers use the devnet's registered executor keys.
 */
export interface RunningService {
  devnet: RunningDevnet;
  manifest: ManifestChain;
  provider: JsonRpcProvider;
  /** The chain's test controls (mine, pause mining, snapshots): engine-independent. */
  chain: ChainHandle;
  target: StoreTarget;
  api: RunningApi;
  client: ApiClient;
  keepers: KeeperInstance[];
  /** Config the keepers were built with (the api's, plus keeper settings). */
  config: AppConfig;
  /** Starts one more keeper on the same store (fault tests: a restarted keeper). */
  startKeeper(opts?: { executorIndexes?: number[]; env?: Record<string, string> }): Promise<KeeperInstance>;
  /** Stops one keeper (SIGTERM-like: in-flight work finishes). */
  stopKeeper(keeper: KeeperInstance): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  storeKind?: StoreKind;
  /** A store the caller set up (a MySQL server of its own); its cleanup runs on close. Wins over storeKind. */
  target?: StoreTarget;
  chainId?: number;
  /** Several devnet chains at once (wins over chainId); `manifest`, `provider` and `chain` are the first one's. */
  chainIds?: number[];
  keepers?: number;
  /** Executor keys per keeper, by index into the devnet's executors (default: keeper i uses executor i). */
  executorsPerKeeper?: number[][];
  /** Keeper/api environment (KEEPER_* settings). */
  env?: Record<string, string>;
  devnetEnv?: Record<string, string>;
}

const FAST_KEEPER_ENV = {
  KEEPER_POLL_MS: '100',
  KEEPER_LEASE_MS: '10000',
  KEEPER_ADMIN_PORT: '0',
};

export async function startService(opts: ServiceOptions = {}): Promise<RunningService> {
  const chainIds = opts.chainIds ?? [opts.chainId ?? 1];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-service-'));
  const executorCount = Math.max(
    2,
    ...(opts.executorsPerKeeper ?? []).flat().map((i) => i + 1),
    opts.keepers ?? 1,
  );
  const devnet = await startDevnet(
    loadDevnetConfig({
      DATA_DIR: dataDir,
      DEVNET_CHAINS: chainIds.join(','),
      DEVNET_PORTS: chainIds.map(() => '0').join(','),
      DEVNET_EXECUTORS: String(executorCount),
      ...opts.devnetEnv,
    }),
    createLogger('silent', 'test'),
  );
  const manifest = devnet.manifest.chains[0]!;
  const target = opts.target ?? (await createStoreTarget(opts.storeKind ?? 'sqlite'));
  // The devnet's relayer and bridge admin keys, as in embedded mode, so cross-chain transfers relay and settle.
  const env = { ...FAST_KEEPER_ENV, ...opts.env, ...devnetBridgeEnv(opts.env ?? {}) };
  // As in embedded mode, the keepers share the api's pool state: each chain's pools are loaded once.
  const api = await startApi(target, env, { chains: devnet.chains }, { blockPollMs: KEEPER_BLOCK_POLL_MS });
  const config = testConfig(target, env, { chains: devnet.chains });
  const executors = devnetKeys(executorCount).executors;
  const keepers: KeeperInstance[] = [];
  const stores = new Map<KeeperInstance, Store>();
  const startKeeper = async (
    o: { executorIndexes?: number[]; env?: Record<string, string> } = {},
  ): Promise<KeeperInstance> => {
    // better-sqlite3 locks synchronously: one connection per process, so on SQLite keepers share the api's
    // store (as in embedded mode); on MySQL each keeper has its own pool, as separate processes would.
    const store = target.kind === 'sqlite' ? api.store : await openStore(config);
    const keeperConfig = o.env ? testConfig(target, { ...env, ...o.env }, { chains: devnet.chains }) : config;
    const indexes = o.executorIndexes ?? [keepers.length % executors.length];
    const keeper = await buildKeeper(keeperConfig, {
      store,
      quoting: api.api.quoting,
      log: createLogger(keeperConfig.logLevel, 'keeper'),
      executorKeys: indexes.map((i) => executors[i]!.privateKey),
    });
    await keeper.start();
    keepers.push(keeper);
    stores.set(keeper, store);
    return keeper;
  };
  const stopKeeper = async (keeper: KeeperInstance): Promise<void> => {
    await keeper.stop();
    const store = stores.get(keeper);
    if (store && store !== api.store) await store.close();
    stores.delete(keeper);
    keepers.splice(keepers.indexOf(keeper), 1);
  };
  for (let i = 0; i < (opts.keepers ?? 1); i++) {
    await startKeeper({ executorIndexes: opts.executorsPerKeeper?.[i] });
  }
  const client = await newAccountClient(api.baseUrl);
  return {
    devnet,
    manifest,
    provider: devnet.handles[0]!.provider,
    chain: devnet.handles[0]!,
    target,
    api,
    client,
    keepers,
    config,
    startKeeper,
    stopKeeper,
    async close() {
      for (const keeper of [...keepers]) await stopKeeper(keeper);
      await api.close();
      await target.cleanup();
      await devnet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
