import { devnetBridgeEnv } from '../devnet/bridge-keys';
import { manifestChainsOf } from '../devnet/manifest-chains';
import { loadConfig } from '../shared/config/load-config';
import { runUntilSignal } from '../shared/process/run-until-signal';
import { dialectOf } from '../shared/store/create-knex';
import { buildApi } from './build-api';

/** `npm run start:api`: the api alone, on the chains of CHAINS_FILE or of the devnet named by DEVNET_MANIFEST. */
runUntilSignal(
  async (life) => {
    const devnet = manifestChainsOf(process.env);
    // On a devnet the bridges' keys and relayer address are the devnet's unless set explicitly.
    const env = devnet ? { ...process.env, ...devnetBridgeEnv(process.env) } : process.env;
    const config = loadConfig(env, devnet ? { chains: devnet.chains } : {});
    const api = await buildApi(config);
    life.useLog(api.log);
    life.onStop(() => api.close());
    const { baseUrl, adminUrl } = await api.listen();
    const chains = devnet?.file ?? config.chainsFile;
    api.log.info({ baseUrl, adminUrl, store: dialectOf(config), chains }, 'api listening');
    console.warn(
      `api: ${baseUrl} (admin ${adminUrl}, store ${dialectOf(config)}, data ${config.dataDir}, chains ${chains})`,
    );
  },
  { failedToStart: 'api failed to start' },
);
