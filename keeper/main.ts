import { ConfigError, loadConfig } from '../shared/config/load-config';
import { runUntilSignal } from '../shared/process/run-until-signal';
import { runKeeper } from './run-keeper';

/**
 * `npm run keeper`: the keeper alone, on the store and chains of the configuration (CHAINS_FILE) and its own
 * executor keys, as production runs it. It knows nothing of the devnet: on a devnet's manifest the keeper runs as
 * `npm run devnet:keeper` (devnet/apart/keeper-main.ts). A signal lets the ticks in flight finish first.
 */
runUntilSignal(
  async (life) => {
    if (process.env.DEVNET_MANIFEST?.trim())
      throw new ConfigError(
        'Invalid configuration: DEVNET_MANIFEST is read by `npm run devnet:keeper`, not by `npm run keeper` (which serves CHAINS_FILE)',
      );
    await runKeeper(life, loadConfig(process.env));
  },
  { failedToStart: 'keeper failed to start' },
);
