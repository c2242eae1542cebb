import { serveApi } from '../../api/serve-api';
import { ConfigError, loadConfig } from '../../shared/config/load-config';
import { runUntilSignal } from '../../shared/process/run-until-signal';
import { devnetBridgeEnv } from '../bridge-keys';
import { manifestChainsOf } from '../manifest-chains';

/** `npm run devnet:api`: the api alone on the chains of the devnet named by DEVNET_MANIFEST. */
runUntilSignal(
  async (life) => {
    const devnet = manifestChainsOf(process.env);
    if (!devnet)
      throw new ConfigError(
        'Invalid configuration: DEVNET_MANIFEST is empty: name the devnet.json that `npm run devnet` wrote',
      );
    // On a devnet the bridges' keys and relayer address are the devnet's unless set explicitly.
    const config = loadConfig({ ...process.env, ...devnetBridgeEnv(process.env) }, { chains: devnet.chains });
    await serveApi(life, config, devnet.file);
  },
  { failedToStart: 'api failed to start' },
);
