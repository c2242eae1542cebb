/**
 * A server for the api benchmark, in its own process so the load generator does not share its event loop.
 * `bare`: a bare Koa app answering the same paths with a fixed body. `api`: our api on a fresh store
 * (SQLite in a temp folder, or a fresh MySQL database), with Redis when given a URL, with an account, a reference
 * price and one order.
 * Prints one JSON line with what the load generator needs, then serves until killed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createAccount } from '../test/factories/accounts';
import { createBenchOrder, startBenchApi } from './bench-api';

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
  const baseUrl = await startBenchApi(store, mysqlUrl, 'tas_bench', {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `tas-bench:${process.pid}:`,
  });
  const credentials = await createAccount(baseUrl, { name: 'bench-account' });
  const orderId = await createBenchOrder(baseUrl, credentials);
  console.log(JSON.stringify({ baseUrl, credentials, orderId }));
}

const [mode, store = 'sqlite', mysqlUrl = 'mysql://root@127.0.0.1:3306/', redisUrl = ''] =
  process.argv.slice(2);
(mode === 'bare' ? serveBare() : serveApi(store, mysqlUrl, redisUrl)).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
