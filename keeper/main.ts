import { devnetExecutorKeys } from '../devnet/manifest-executors';
import { devnetBridgeEnv } from '../devnet/bridge-keys';
import { manifestChainsOf } from '../devnet/manifest-chains';
import { loadConfig } from '../shared/config/load-config';
import { createLogger } from '../shared/log/create-logger';
import { runUntilSignal } from '../shared/process/run-until-signal';
import { buildKeeper } from './build-keeper';

/**
 * `npm run keeper`: the keeper alone, on the store and chains of the configuration (CHAINS_FILE, or the devnet
 * named by DEVNET_MANIFEST). A signal lets the ticks in flight finish before the process exits.
 */
runUntilSignal(
  async (life) => {
    const devnet = manifestChainsOf(process.env);
    // On a devnet the bridges' keys and relayer address are the devnet's unless set explicitly.
    const env = devnet ? { ...process.env, ...devnetBridgeEnv(process.env) } : process.env;
    const config = loadConfig(env, devnet ? { chains: devnet.chains } : {});
    const { executorPrivateKeys, executorKeystoreFiles } = config.keeper;
    // Keys of its own win; on a devnet without them the keeper sends from the devnet's registered executors.
    const executorKeys =
      devnet && executorPrivateKeys.length === 0 && executorKeystoreFiles.length === 0
        ? devnetExecutorKeys(devnet, process.env)
        : [];
    const log = createLogger(config.logLevel, 'keeper');
    life.useLog(log);
    const keeper = await buildKeeper(config, { log, executorKeys });
    life.onStop(() => keeper.stop());
    const { adminUrl } = await keeper.start();
    console.warn(`keeper: ${keeper.owner} (admin ${adminUrl})`);
    if (devnet) {
      const wallets = executorKeys.length
        ? `the devnet's ${executorKeys.length} executor wallets (public test keys)`
        : 'its own executor wallets';
      console.warn(`keeper: chains of ${devnet.file}, executing with ${wallets}`);
    }
  },
  { failedToStart: 'keeper failed to start' },
);
