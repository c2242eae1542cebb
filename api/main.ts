import { loadConfig } from '../shared/config/load-config';
import { dialectOf } from '../shared/store/create-knex';
import { buildApi } from './build-api';

async function main(): Promise<void> {
  const config = loadConfig();
  const api = await buildApi(config);
  const { baseUrl, adminUrl } = await api.listen();
  api.log.info({ baseUrl, adminUrl, store: dialectOf(config) }, 'api listening');
  console.warn(`api: ${baseUrl} (admin ${adminUrl}, store ${dialectOf(config)}, data ${config.dataDir})`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    api.log.info({ signal }, 'shutting down');
    api.close().then(
      () => process.exit(0),
      (err: unknown) => {
        api.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: Error) => {
  console.error(`api failed to start: ${err.message}`);
  process.exit(1);
});
