import { ConfigError, loadConfig } from '../shared/config/load-config';
import { runUntilSignal } from '../shared/process/run-until-signal';
import { serveApi } from './serve-api';

/**
 * `npm run start:api`: the api alone, on the chains of CHAINS_FILE, as production runs it. It knows nothing of the
 * devnet: on a devnet's manifest the api runs as `npm run devnet:api` (devnet/apart/api-main.ts).
 */
runUntilSignal(
  async (life) => {
    if (process.env.DEVNET_MANIFEST?.trim())
      throw new ConfigError(
        'Invalid configuration: DEVNET_MANIFEST is read by `npm run devnet:api`, not by `npm run start:api` (which serves CHAINS_FILE)',
      );
    const config = loadConfig(process.env);
    await serveApi(life, config, config.chainsFile);
  },
  { failedToStart: 'api failed to start' },
);
