/**
 * `npm run bench:fairness`: while key A lists its 3,000 limit orders (about 3 MB, unpaginated as the spec says)
 * in 4 parallel loops, key B sends signed GET /chains one at a time; prints B's p50/p99 beside B alone in the
 * same run (the comparator), on SQLite and on MySQL. Targets: B's p50 ≤ 50 ms and p99 ≤ 300 ms under the load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { signRequest, type Credentials } from '../shared/signing/request-signature';
import { mysqlReachable, mysqlServerUrl } from '../test/helpers/mysql-probe';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LIST_LOOPS = 4;
const P50_TARGET_MS = 50;
const P99_TARGET_MS = 300;

interface ServerInfo {
  baseUrl: string;
  lister: Credentials;
  other: Credentials;
  orders: number;
}

interface Figures {
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  bytes: number;
}

function startServer(args: string[]): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'fairness-bench', 'list-server.ts'), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, info: JSON.parse(line) as ServerInfo }));
    child.once('exit', (code) => reject(new Error(`fairness server exited with ${code}`)));
  });
}

async function load(
  origin: string,
  credentials: Credentials,
  apiPath: string,
  connections: number,
): Promise<Figures> {
  const url = `/api/v1${apiPath}`;
  const result = await autocannon({
    url: origin,
    connections,
    duration: SECONDS,
    requests: [
      {
        // Every request is signed anew: a nonce works once.
        setupRequest: (req) => ({
          ...req,
          method: 'GET',
          path: url,
          headers: signRequest(credentials, { method: 'GET', url }).headers,
        }),
      },
    ],
  });
  return {
    requests: result.requests.total,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    bytes: result.throughput.total,
  };
}

async function main(): Promise<void> {
  const mysqlUrl = mysqlServerUrl();
  const stores = ['sqlite'];
  const problem = await mysqlReachable(mysqlUrl);
  if (problem) console.warn(`MySQL unreachable (${problem}); MySQL rows left out`);
  else stores.push('mysql');

  const rows: string[] = [];
  let pass = true;
  for (const store of stores) {
    const { child, info } = await startServer([store, mysqlUrl]);
    const origin = new URL(info.baseUrl).origin;
    const alone = await load(origin, info.other, '/chains', 1);
    const [lists, contended] = await Promise.all([
      load(origin, info.lister, '/limit-order', LIST_LOOPS),
      load(origin, info.other, '/chains', 1),
    ]);
    child.kill('SIGTERM');
    const ok = contended.p50 <= P50_TARGET_MS && contended.p99 <= P99_TARGET_MS && contended.non2xx === 0;
    pass &&= ok;
    const mb = lists.requests ? lists.bytes / lists.requests / 1e6 : 0;
    rows.push(
      [
        store.padEnd(7),
        `${alone.p50}/${alone.p99}`.padStart(14),
        `${contended.p50}/${contended.p99}`.padStart(16),
        `${(contended.p50 / Math.max(alone.p50, 1)).toFixed(1)}x`.padStart(8),
        lists.reqPerSec.toFixed(1).padStart(10),
        `${mb.toFixed(2)} MB`.padStart(9),
        String(lists.non2xx + contended.non2xx).padStart(8),
        (ok ? 'PASS' : 'FAIL').padStart(6),
      ].join(' '),
    );
  }
  console.log(
    `\nkey A: ${LIST_LOOPS} loops of GET /limit-order (3,000 orders); key B: 1 loop of GET /chains; ${SECONDS} s per row`,
  );
  console.log(`targets for B under load: p50 <= ${P50_TARGET_MS} ms, p99 <= ${P99_TARGET_MS} ms\n`);
  console.log(
    [
      'store'.padEnd(7),
      'B alone p50/99'.padStart(14),
      'B loaded p50/99'.padStart(16),
      'p50 x'.padStart(8),
      'A lists/s'.padStart(10),
      'per list'.padStart(9),
      'non-2xx'.padStart(8),
      'result'.padStart(6),
    ].join(' '),
  );
  for (const row of rows) console.log(row);
  if (!pass) process.exitCode = 1;
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
