import { runKeeper } from '../../keeper/run-keeper';
import { ConfigError, loadConfig } from '../../shared/config/load-config';
import { runUntilSignal } from '../../shared/process/run-until-signal';
import { devnetBridgeEnv } from '../bridge-keys';
import { manifestChainsOf } from '../manifest-chains';
import { devnetExecutorKeys } from '../manifest-executors';

/**
 * `npm run devnet:keeper`: the keeper alone on the chains of the devnet named by DEVNET_MANIFEST. Without keys of
 * its own it sends from the devnet's registered executor wallets (public test keys), and says so.
 */
runUntilSignal(
  async (life) => {
    const devnet = manifestChainsOf(process.env);
    if (!devnet)
      throw new ConfigError(
        'Invalid configuration: DEVNET_MANIFEST is empty: name the devnet.json that `npm run devnet` wrote',
      );
    // On a devnet the bridges' keys and relayer address are the devnet's unless set explicitly.
    const config = loadConfig({ ...process.env, ...devnetBridgeEnv(process.env) }, { chains: devnet.chains });
    const { executorPrivateKeys, executorKeystoreFiles } = config.keeper;
    const executorKeys =
      executorPrivateKeys.length === 0 && executorKeystoreFiles.length === 0
        ? devnetExecutorKeys(devnet, process.env)
        : [];
    await runKeeper(life, config, executorKeys);
    const wallets = executorKeys.length
      ? `the devnet's ${executorKeys.length} executor wallets (public test keys)`
      : 'its own executor wallets';
    console.warn(`keeper: chains of ${devnet.file}, executing with ${wallets}`);
  },
  { failedToStart: 'keeper failed to start' },
);
