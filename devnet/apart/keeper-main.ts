import { runKeeper } from '../../keeper/run-keeper';
import { runUntilSignal } from '../../shared/process/run-until-signal';
import { devnetExecutorKeys } from '../manifest-executors';
import { apartConfig } from './apart-config';

/**
 * `npm run devnet:keeper`: the keeper alone on the chains of the devnet named by DEVNET_MANIFEST. Without keys of
 * its own it sends from the devnet's registered executor wallets (public test keys), and says so.
 */
runUntilSignal(
  async (life) => {
    const { devnet, config } = apartConfig(process.env);
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
