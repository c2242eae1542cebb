/**
 * A server for the api benchmark, in its own process so the load generator does not share its event loop.
 * `bare`: a bare Koa app answering the same paths with a fixed body; a POST's JSON body is read and parsed (the work
 * any JSON API does before its handler), nothing is signed or verified. `api`: our api on a fresh store (SQLite in
 * a temp folder, or a fresh MySQL database), with Redis when given a URL, with an account, a reference price and
 * one order. `quote`: a devnet chain 1 and our api on it (SQLite), once its pool state is warm; it also times the
 * quote engine alone on the same request in this process (the floor of a quote over HTTP).
 * Prints one JSON line with what the load generator needs, then serves until SIGTERM (then exits normally, so a
 * `--cpu-prof` run writes its profile).
 */
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { createAccount } from '../test/factories/accounts';
import { createBenchOrder, startBenchApi, startBenchQuoteApi } from './bench-api';

async function serveBare(): Promise<void> {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.set('apigw-requestid', 'bare');
    if (ctx.method === 'POST') {
      const raw = await getRawBody(ctx.req, { limit: 1_048_576 });
      const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      ctx.body = { success: true, data: body, meta: { requestId: 'bare', version: 'v1' } };
      return;
    }
    ctx.body = { success: true, data: { chainIds: [1, 137] }, meta: { requestId: 'bare', version: 'v1' } };
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
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

async function serveQuotes(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-bench-quote-'));
  const { baseUrl, credentials, quoteBody, engine } = await startBenchQuoteApi(dataDir);
  console.log(JSON.stringify({ baseUrl, credentials, quoteBody, engine }));
}

const [mode, store = 'sqlite', mysqlUrl = 'mysql://root@127.0.0.1:3306/', redisUrl = ''] =
  process.argv.slice(2);
const serving =
  mode === 'bare' ? serveBare() : mode === 'quote' ? serveQuotes() : serveApi(store, mysqlUrl, redisUrl);
serving
  .then(() => {
    // The MySQL database drops itself on SIGTERM (bench-database); elsewhere a plain exit, which writes a profile.
    if (process.listenerCount('SIGTERM') === 0) process.once('SIGTERM', () => process.exit(0));
  })
  .catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
