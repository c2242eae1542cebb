/**
 * A server for the api benchmark, in its own process so the load generator does not share its event loop.
 * `bare`: a bare Koa app answering the same paths with a fixed body. `api`: our api on a fresh store
 * (SQLite in a temp folder, or a fresh MySQL database), with Redis when given a URL, with an account, a reference
 * price and one order.
 * Prints one JSON line with what the load generator needs, then serves until killed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { buildApi } from '../api/build-api';
import { benchMysqlDatabase } from './bench-database';
import { loadConfig } from '../shared/config/load-config';
import { signRequest } from '../shared/signing/request-signature';
import { limitOrderBody } from './bench-requests';

async function serveBare(): Promise<void> {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.set('apigw-requestid', 'bare');
    ctx.body = { success: true, data: { chainIds: [1, 137] }, meta: { requestId: 'bare', version: 'v1' } };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/api/v1` }));
}

async function serveApi(store: string, mysqlUrl: string, redisUrl: string): Promise<void> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tas-bench-')),
    DATABASE_URL: store === 'mysql' ? await benchMysqlDatabase(mysqlUrl, 'tas_bench') : '',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `tas-bench:${process.pid}:`,
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
  const created = await fetch(`${baseUrl}/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-account', password: 'bench-password' }),
  });
  const account = (await created.json()) as { data: { apiKey: string; secretKey: string } };
  const credentials = {
    apiKey: account.data.apiKey,
    secretKey: account.data.secretKey,
    passphrase: 'bench-password',
  };
  const signed = signRequest(credentials, {
    method: 'POST',
    url: '/api/v1/limit-order',
    body: limitOrderBody(),
  });
  const order = await fetch(`${baseUrl}/limit-order`, {
    method: 'POST',
    headers: signed.headers,
    body: signed.bodyString,
  });
  const orderBody = (await order.json()) as { data?: { id: string } };
  if (!orderBody.data) throw new Error(`could not create the benchmark order: ${JSON.stringify(orderBody)}`);
  console.log(JSON.stringify({ baseUrl, credentials, orderId: orderBody.data.id }));
}

const [mode, store = 'sqlite', mysqlUrl = 'mysql://root@127.0.0.1:3306/', redisUrl = ''] =
  process.argv.slice(2);
(mode === 'bare' ? serveBare() : serveApi(store, mysqlUrl, redisUrl)).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
