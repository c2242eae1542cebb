import path from 'node:path';
import { buildApi, type ApiInstance, type ApiOptions } from '../../api/build-api';
import type { AppConfig } from '../../shared/config/config-schema';
import { loadConfig } from '../../shared/config/load-config';
import type { Store } from '../../shared/store/store';
import { createStoreTarget, type StoreKind, type StoreTarget } from './store-targets';

export const REPO_ROOT = path.resolve(__dirname, '../..');

export interface RunningApi {
  api: ApiInstance;
  baseUrl: string;
  adminUrl: string;
  store: Store;
  config: AppConfig;
  close(): Promise<void>;
}

/** Test config: the repo's chains file, ephemeral ports, silent logs, a generous rate limit unless overridden. */
export function testConfig(
  target: StoreTarget,
  env: Record<string, string> = {},
  overrides: Partial<AppConfig> = {},
): AppConfig {
  return loadConfig(
    {
      CHAINS_FILE: path.join(REPO_ROOT, 'config/chains.json'),
      DATA_DIR: target.dataDir,
      DATABASE_URL: target.databaseUrl,
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      AUTH_FAILURE_LIMIT_PER_SECOND: '100000',
      AUTH_FAILURE_LIMIT_BURST: '100000',
      ...env,
    },
    overrides,
  );
}

/** Starts the real api over real HTTP on a store target. */
export async function startApi(
  target: StoreTarget,
  env: Record<string, string> = {},
  overrides: Partial<AppConfig> = {},
  options: ApiOptions = {},
): Promise<RunningApi> {
  const config = testConfig(target, env, overrides);
  const api = await buildApi(config, options);
  const { baseUrl, adminUrl } = await api.listen();
  return { api, baseUrl, adminUrl, store: api.store, config, close: () => api.close() };
}

/** A store target plus an api on it, for a `describeEachStore` suite: call in beforeAll, close in afterAll. */
export async function startApiOn(
  kind: StoreKind,
  env: Record<string, string> = {},
  overrides: Partial<AppConfig> = {},
): Promise<RunningApi & { target: StoreTarget }> {
  const target = await createStoreTarget(kind);
  const running = await startApi(target, env, overrides);
  return {
    ...running,
    target,
    async close() {
      await running.close();
      await target.cleanup();
    },
  };
}
