import path from 'node:path';
import { ConfigError } from '../../shared/config/load-config';
import { createLogger } from '../../shared/log/create-logger';
import { runUntilSignal } from '../../shared/process/run-until-signal';
import { lockDataDir } from '../../shared/store/data-dir-lock';
import { loadDevnetConfig } from '../devnet-config';
import { MANIFEST_FILE } from '../manifest';
import { startDevnet } from '../start-devnet';

/**
 * `npm run devnet`: only the local chains of `npm start` (same settings, same data folder, held the same way),
 * for an api and a keeper started apart with DEVNET_MANIFEST=DATA_DIR/devnet.json. Runs until SIGINT or SIGTERM.
 */
runUntilSignal(
  async (life) => {
    const started = Date.now();
    const config = loadDevnetConfig();
    if (!config.enabled)
      throw new ConfigError('Invalid configuration: DEVNET="off" leaves npm run devnet nothing to run');
    const log = createLogger(process.env.LOG_LEVEL ?? 'info', 'devnet');
    life.useLog(log);
    // The chains' state in DATA_DIR/devnet takes one writer: `npm start` and another devnet on the folder refuse.
    const unlock = await lockDataDir(config.dataDir, (err) =>
      log.warn({ err }, 'the data folder lock could not be refreshed; another start may take it over'),
    );
    life.onStop(unlock);
    const starting = startDevnet(config, log);
    // A signal during start-up stops the chains once they are up (a failed start has stopped its own).
    life.onStop(async () => (await starting.catch((): undefined => undefined))?.stop());
    const devnet = await starting;
    if (life.stopping) return;
    devnet.manifest.chains.forEach((chain, i) => {
      const how = devnet.deployed[i] ? 'world deployed' : 'world reused';
      console.warn(`devnet: chain ${chain.chainId} (${chain.name}) at ${chain.rpcUrl} (${how})`);
    });
    console.warn(`devnet: manifest ${path.join(config.dataDir, MANIFEST_FILE)}`);
    console.warn(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  },
  { failedToStart: 'devnet failed to start' },
);
