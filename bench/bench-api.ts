import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApi } from '../api/build-api';
import { loadConfig } from '../shared/config/load-config';
import type { Credentials } from '../shared/signing/request-signature';
import { limitOrderBody } from '../test/factories/limit-orders';
import { referencePrice } from '../test/factories/reference-prices';
import { ApiClient } from '../test/helpers/api-client';
import { benchMysqlDatabase } from './bench-database';

/**
 * Our api for a benchmark server process: a fresh store (SQLite in a temp folder named `prefix`, or a fresh MySQL
 * database), limits out of the way, and the WETH/USDC reference price limit orders need. Resolves with its base URL.
 */
export async function startBenchApi(
  store: string,
  mysqlUrl: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<string> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), `${prefix.replace(/_/g, '-')}-`)),
    DATABASE_URL: store === 'mysql' ? await benchMysqlDatabase(mysqlUrl, prefix) : '',
    PORT: '0',
    ADMIN_PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...env,
  });
  const api = await buildApi(config);
  const { baseUrl } = await api.listen();
  await api.store.referencePrices.upsert([referencePrice()]);
  return baseUrl;
}

/** A signed POST /limit-order of `limitOrderBody()`; resolves with the new order's id. */
export async function createBenchOrder(baseUrl: string, credentials: Credentials): Promise<string> {
  const res = await new ApiClient(baseUrl, credentials).post<{ id: string }>(
    '/limit-order',
    limitOrderBody(),
  );
  if (res.status !== 200 || !res.body.data) {
    throw new Error(`could not create a benchmark order: ${res.status} ${res.text}`);
  }
  return res.body.data.id;
}
