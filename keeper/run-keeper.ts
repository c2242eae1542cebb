import type { AppConfig } from '../shared/config/config-schema';
import { createLogger } from '../shared/log/create-logger';
import type { Lifecycle } from '../shared/process/run-until-signal';
import { buildKeeper, type KeeperInstance } from './build-keeper';

/**
 * Builds the keeper on `config` (with `executorKeys` beside the configured ones), starts it and stops it with the
 * process, letting the ticks in flight finish.
 */
export async function runKeeper(
  life: Lifecycle,
  config: AppConfig,
  executorKeys: readonly string[] = [],
): Promise<KeeperInstance> {
  const log = createLogger(config.logLevel, 'keeper');
  life.useLog(log);
  const keeper = await buildKeeper(config, { log, executorKeys: [...executorKeys] });
  life.onStop(() => keeper.stop());
  const { adminUrl } = await keeper.start();
  console.warn(`keeper: ${keeper.owner} (admin ${adminUrl})`);
  return keeper;
}
