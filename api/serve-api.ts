import type { AppConfig } from '../shared/config/config-schema';
import type { Lifecycle } from '../shared/process/run-until-signal';
import { dialectOf } from '../shared/store/create-knex';
import { buildApi } from './build-api';

/**
 * Builds the api on `config`, listens, and stops it with the process. `chains` names where its chains came from
 * (the chains file, or a devnet's manifest) for the start-up line.
 */
export async function serveApi(life: Lifecycle, config: AppConfig, chains: string): Promise<void> {
  const api = await buildApi(config);
  life.useLog(api.log);
  life.onStop(() => api.close());
  const { baseUrl, adminUrl } = await api.listen();
  api.log.info({ baseUrl, adminUrl, store: dialectOf(config), chains }, 'api listening');
  console.warn(
    `api: ${baseUrl} (admin ${adminUrl}, store ${dialectOf(config)}, data ${config.dataDir}, chains ${chains})`,
  );
}
