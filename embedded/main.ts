import { buildApi, type ApiInstance } from '../api/build-api';
import { checkEnvironment, loadConfig } from '../shared/config/load-config';
import { createLogger } from '../shared/log/create-logger';
import { dialectOf } from '../shared/store/create-knex';
import { lockDataDir } from '../shared/store/data-dir-lock';
import { loadDevnetConfig } from '../devnet/devnet-config';
import { startDevnet, type RunningDevnet } from '../devnet/start-devnet';
import { devnetKeys } from '../devnet/keys';
import { buildKeeper, KEEPER_BLOCK_POLL_MS, type KeeperInstance } from '../keeper/build-keeper';

/**
 * `npm start`: the whole service on one machine. Local devnet chains (unless DEVNET=off), then the api and the
 * keeper on the embedded store. Each part is built from its validated config and stopped in reverse order.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const { dataDir } = checkEnvironment();
  const devnetConfig = loadDevnetConfig();
  const bootLog = createLogger(process.env.LOG_LEVEL ?? 'info', 'embedded');
  // Before anything touches the folder: a second start on it would share the chains' state and the store.
  const unlock = await lockDataDir(dataDir, (err) =>
    bootLog.warn({ err }, 'the data folder lock could not be refreshed; another start may take it over'),
  );
  // Filled as the parts come up, so a signal during start-up stops what already runs.
  const running: { devnet?: RunningDevnet; api?: ApiInstance; keeper?: KeeperInstance } = {};

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    bootLog.info({ signal }, 'shutting down');
    try {
      await running.keeper?.stop();
      await running.api?.close();
      await running.devnet?.stop();
      await unlock();
      process.exit(0);
    } catch (err) {
      bootLog.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const devnet = devnetConfig.enabled ? await startDevnet(devnetConfig, bootLog) : undefined;
  running.devnet = devnet;
  if (devnet) {
    devnet.manifest.chains.forEach((chain, i) => {
      const how = devnet.deployed[i] ? 'world deployed' : 'world reused';
      console.warn(`devnet: chain ${chain.chainId} (${chain.name}) at ${chain.rpcUrl} (${how})`);
    });
  }
  const config = loadConfig(process.env, devnet ? { chains: devnet.chains } : {});
  const api = await buildApi(config, { blockPollMs: KEEPER_BLOCK_POLL_MS });
  running.api = api;
  const { baseUrl, adminUrl } = await api.listen();
  console.warn(`api: ${baseUrl} (admin ${adminUrl}, store ${dialectOf(config)}, data ${config.dataDir})`);
  // The keeper shares the api's store; on the devnet it executes with the world's registered executor keys.
  const keeper = await buildKeeper(config, {
    store: api.store,
    quoting: api.quoting,
    executorKeys: devnet ? devnetKeys(devnetConfig.executorCount).executors.map((w) => w.privateKey) : [],
  });
  running.keeper = keeper;
  const { adminUrl: keeperAdmin } = await keeper.start();
  console.warn(`keeper: ${keeper.owner} (admin ${keeperAdmin})`);
  console.warn(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: Error) => {
  console.error(`start failed: ${err.message}`);
  process.exit(1);
});
