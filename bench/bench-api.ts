import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApi } from '../api/build-api';
import { loadConfig } from '../shared/config/load-config';
import { signRequest, type Credentials } from '../shared/signing/request-signature';
import { benchMysqlDatabase } from './bench-database';
import { limitOrderBody } from './bench-requests';

const PASSWORD = 'bench-password';

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
  await api.store.referencePrices.upsert([
    {
      chainId: 1,
      baseSymbol: 'WETH',
      quoteSymbol: 'USDC',
      price: '3000',
      blockNumber: 1,
      updatedAt: Date.now(),
    },
  ]);
  return baseUrl;
}

export async function createBenchAccount(baseUrl: string, name: string): Promise<Credentials> {
  const res = await fetch(`${baseUrl}/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: PASSWORD }),
  });
  const body = (await res.json()) as { data: { apiKey: string; secretKey: string } };
  return { apiKey: body.data.apiKey, secretKey: body.data.secretKey, passphrase: PASSWORD };
}

/** A signed POST /limit-order of `limitOrderBody()`; resolves with the new order's id. */
export async function createBenchOrder(baseUrl: string, credentials: Credentials): Promise<string> {
  const signed = signRequest(credentials, {
    method: 'POST',
    url: '/api/v1/limit-order',
    body: limitOrderBody(),
  });
  const res = await fetch(`${baseUrl}/limit-order`, {
    method: 'POST',
    headers: signed.headers,
    body: signed.bodyString,
  });
  const body = (await res.json()) as { data?: { id: string } };
  if (res.status !== 200 || !body.data) {
    throw new Error(`could not create a benchmark order: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.data.id;
}
