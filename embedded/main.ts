import { buildApi } from '../api/build-api';
import { checkEnvironment, loadConfig } from '../shared/config/load-config';
import { createLogger } from '../shared/log/create-logger';
import { runUntilSignal } from '../shared/process/run-until-signal';
import { dialectOf } from '../shared/store/create-knex';
import { lockDataDir } from '../shared/store/data-dir-lock';
import { loadDevnetConfig } from '../devnet/devnet-config';
import { startDevnet } from '../devnet/start-devnet';
import { devnetKeys } from '../devnet/keys';
import { devnetBridgeEnv } from '../devnet/bridge-keys';
import { takenPortLine } from '../shared/net/free-port';
import { devnetProbes, waitUntilQuoting } from './wait-until-quoting';
import { buildKeeper, KEEPER_BLOCK_POLL_MS } from '../keeper/build-keeper';

/**
 * `npm start`: the whole service on one machine. Local devnet chains (unless DEVNET=off), then the api and the
 * keeper on the embedded store. Each part is built from its validated config and, on a signal, stopped in reverse
 * order (the keeper's ticks and the api's requests in flight finish first), even while the others still start.
 */
runUntilSignal(
  async (life) => {
    const started = Date.now();
    const checked = checkEnvironment();
    const { dataDir } = checked;
    const devnetConfig = loadDevnetConfig();
    const bootLog = createLogger(process.env.LOG_LEVEL ?? 'info', 'embedded');
    life.useLog(bootLog);
    const devnetOn = devnetConfig.enabled;
    console.warn(
      devnetOn
        ? `starting: chains ${devnetConfig.chainIds.join(', ')} on ${devnetConfig.engine}, data ${dataDir}`
        : `starting: data ${dataDir}`,
    );
    // Before anything touches the folder: a second start on it would share the chains' state and the store.
    const unlock = await lockDataDir(dataDir, (err) =>
      bootLog.warn({ err }, 'the data folder lock could not be refreshed; another start may take it over'),
    );
    life.onStop(unlock);
    // Every port at once, before anything starts: a taken one is named with its setting.
    const taken = await takenPortLine(checked.host, [
      ...(devnetOn ? devnetConfig.ports.map((port) => ({ setting: 'DEVNET_PORTS', port })) : []),
      { setting: 'PORT', port: checked.port },
      { setting: 'ADMIN_PORT', port: checked.adminPort },
      { setting: 'KEEPER_ADMIN_PORT', port: checked.keeper.adminPort },
    ]);
    if (taken) throw new Error(taken);

    const starting = devnetOn
      ? startDevnet(devnetConfig, bootLog, (line) => console.warn(line))
      : Promise.resolve(undefined);
    // A signal while the chains start stops them once they are up (a failed start has stopped its own).
    life.onStop(async () => (await starting.catch((): undefined => undefined))?.stop());
    const devnet = await starting;
    if (life.stopping) return;
    // On the devnet the keeper relays and settles with the devnet's relayer and bridge admin keys (explicit settings
    // win), and the api names that relayer in its intent quotes. Webhooks may reach local receivers there (an
    // integrator trying the service runs one on this machine) unless WEBHOOK_PRIVATE_TARGETS says otherwise.
    const config = devnet
      ? loadConfig(
          {
            WEBHOOK_PRIVATE_TARGETS: 'allow',
            ...process.env,
            ...devnetBridgeEnv(process.env),
          },
          { chains: devnet.chains },
        )
      : loadConfig(process.env);
    const api = await buildApi(config, { blockPollMs: KEEPER_BLOCK_POLL_MS });
    life.onStop(() => api.close());
    const { baseUrl, adminUrl } = await api.listen();
    console.warn(`api: ${baseUrl} (admin ${adminUrl}, store ${dialectOf(config)}, data ${config.dataDir})`);
    if (life.stopping) return;
    // The keeper shares the api's store; on the devnet it executes with the world's registered executor keys.
    const keeper = await buildKeeper(config, {
      store: api.store,
      quoting: api.quoting,
      executorKeys: devnet ? devnetKeys(devnetConfig.executorCount).executors.map((w) => w.privateKey) : [],
    });
    life.onStop(() => keeper.stop());
    const { adminUrl: keeperAdmin } = await keeper.start();
    console.warn(`keeper: ${keeper.owner} (admin ${keeperAdmin})`);
    if (devnet) {
      // `ready` promises that a quote and a limit order sent now are served on every chain.
      await waitUntilQuoting(
        { engine: api.quoting.engine, referencePrices: api.store.referencePrices },
        devnetProbes(devnet.manifest.chains),
        (chainId) => console.warn(`quoting: chain ${chainId}`),
      );
    }
    console.warn(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  },
  { failedToStart: 'start failed' },
);
