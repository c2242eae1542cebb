/**
 * The api for the fairness benchmark, in its own process: a fresh store (SQLite in a temp folder, or a fresh
 * MySQL database), key A with ORDERS limit orders, key B with none. Prints one JSON line with both keys'
 * credentials, then serves until killed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApi } from '../../api/build-api';
import { benchMysqlDatabase } from '../bench-database';
import { loadConfig } from '../../shared/config/load-config';
import { signRequest, type Credentials } from '../../shared/signing/request-signature';
import { limitOrderBody } from '../bench-requests';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 3000);
const CREATE_CONCURRENCY = 20;

async function account(baseUrl: string, name: string): Promise<Credentials> {
  const res = await fetch(`${baseUrl}/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'bench-password' }),
  });
  const body = (await res.json()) as { data: { apiKey: string; secretKey: string } };
  return { apiKey: body.data.apiKey, secretKey: body.data.secretKey, passphrase: 'bench-password' };
}

async function createOrders(baseUrl: string, credentials: Credentials, count: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
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
      if (res.status !== 200) throw new Error(`order creation answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

async function serve(store: string, mysqlUrl: string): Promise<void> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tas-fair-')),
    DATABASE_URL: store === 'mysql' ? await benchMysqlDatabase(mysqlUrl, 'tas_fair') : '',
    PORT: '0',
    ADMIN_PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
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
  const [lister, other] = [await account(baseUrl, 'bench-lister'), await account(baseUrl, 'bench-other')];
  await createOrders(baseUrl, lister, ORDERS);
  console.log(JSON.stringify({ baseUrl, lister, other, orders: ORDERS }));
}

const [store = 'sqlite', mysqlUrl = 'mysql://root@127.0.0.1:3306/'] = process.argv.slice(2);
serve(store, mysqlUrl).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
