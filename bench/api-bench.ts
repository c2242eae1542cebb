/**
 * `npm run bench:api`: a bare Koa server and our api in the same run, 50 connections for BENCH_SECONDS
 * (default 10) per scenario, on SQLite, on MySQL and on MySQL with Redis (shared rate limits and nonces); prints
 * req/s, p50/p99 and the ratio to bare Koa.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { signRequest, type Credentials } from '../shared/signing/request-signature';
import { mysqlReachable, mysqlServerUrl } from '../test/helpers/mysql-probe';
import { redisReachable, redisServerUrl } from '../test/helpers/redis-probe';
import { limitOrderBody } from '../test/factories/limit-orders';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

interface ServerInfo {
  baseUrl: string;
  credentials?: Credentials;
  orderId?: string;
}

interface Figures {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function startServer(args: string[]): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'bench-server.ts'), ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, info: JSON.parse(line) as ServerInfo }));
    child.once('exit', (code) => reject(new Error(`bench server ${args.join(' ')} exited with ${code}`)));
  });
}

async function load(
  name: string,
  origin: string,
  build: () => { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string },
): Promise<Figures> {
  const result = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        // Every request is signed anew: a nonce works once.
        setupRequest: (req) => {
          const r = build();
          return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body };
        },
      },
    ],
  });
  return {
    name,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

function signed(info: ServerInfo, method: 'GET' | 'POST', apiPath: string, body?: unknown) {
  return () => {
    const s = signRequest(info.credentials!, { method, url: `/api/v1${apiPath}`, body });
    return { method, path: `/api/v1${apiPath}`, headers: s.headers, body: s.bodyString || undefined };
  };
}

async function main(): Promise<void> {
  const results: Figures[] = [];
  const bare = await startServer(['bare']);
  const bareOrigin = new URL(bare.info.baseUrl).origin;
  const bareFigures = await load('bare Koa GET', bareOrigin, () => ({
    method: 'GET',
    path: '/api/v1/chains',
    headers: { 'content-type': 'application/json' },
  }));
  results.push(bareFigures);
  bare.child.kill();

  const mysqlUrl = mysqlServerUrl();
  const redisUrl = redisServerUrl();
  const setups: Array<{ name: string; args: string[] }> = [{ name: 'sqlite', args: ['sqlite', mysqlUrl] }];
  const problem = await mysqlReachable(mysqlUrl);
  if (problem) console.warn(`MySQL unreachable (${problem}); MySQL rows left out`);
  else {
    setups.push({ name: 'mysql', args: ['mysql', mysqlUrl] });
    const redisProblem = await redisReachable(redisUrl);
    if (redisProblem) console.warn(`Redis unreachable (${redisProblem}); MySQL+Redis rows left out`);
    else setups.push({ name: 'mysql+redis', args: ['mysql', mysqlUrl, redisUrl] });
  }

  for (const { name: store, args } of setups) {
    const server = await startServer(['api', ...args]);
    const info = server.info;
    const origin = new URL(info.baseUrl).origin;
    results.push(await load(`${store}: signed GET /chains`, origin, signed(info, 'GET', '/chains')));
    results.push(
      await load(
        `${store}: signed GET /limit-order/{id}`,
        origin,
        signed(info, 'GET', `/limit-order/${info.orderId}`),
      ),
    );
    results.push(
      await load(`${store}: signed POST /limit-order`, origin, () =>
        signed(info, 'POST', '/limit-order', limitOrderBody())(),
      ),
    );
    server.child.kill();
  }

  console.log(`\n${CONNECTIONS} connections, ${SECONDS} s per row\n`);
  console.log(
    [
      'scenario'.padEnd(40),
      'req/s'.padStart(9),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'vs bare'.padStart(8),
      'non-2xx'.padStart(8),
    ].join(' '),
  );
  for (const r of results) {
    console.log(
      [
        r.name.padEnd(40),
        r.reqPerSec.toFixed(0).padStart(9),
        String(r.p50).padStart(8),
        String(r.p99).padStart(8),
        `${((r.reqPerSec / bareFigures.reqPerSec) * 100).toFixed(1)}%`.padStart(8),
        String(r.non2xx).padStart(8),
      ].join(' '),
    );
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
