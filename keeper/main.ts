import { loadConfig } from '../shared/config/load-config';
import { createLogger } from '../shared/log/create-logger';
import { buildKeeper } from './build-keeper';

/** `npm run keeper`: the keeper alone, on the store and chains of the configuration. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'keeper');
  const keeper = await buildKeeper(config, { log });
  const { adminUrl } = await keeper.start();
  console.warn(`keeper: ${keeper.owner} (admin ${adminUrl})`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    keeper.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: Error) => {
  console.error(`keeper failed to start: ${err.message}`);
  process.exit(1);
});
