import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** One sample of an instant query: the series' labels and its value ("NaN" and "+Inf" as Prometheus writes them). */
export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  url: string;
  /** Seconds between scrapes (and rule evaluations). */
  scrapeIntervalSeconds: number;
  /** An instant query (`/api/v1/query`) at the present; rejects on a query Prometheus refuses. */
  query(expr: string): Promise<PromSample[]>;
  /** Its own output, for a failing test's message. */
  output(): string;
  close(): Promise<void>;
}

export interface PrometheusOptions {
  /** The `prometheus` binary. */
  binary: string;
  /** Scrape targets by job name, as host:port. */
  jobs: Record<string, string[]>;
  scrapeIntervalSeconds?: number;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real Prometheus on a free port of 127.0.0.1, with a configuration and storage of its own in a temporary folder
 * (removed by `close`), scraping the given jobs.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const interval = options.scrapeIntervalSeconds ?? 1;
  const dir = mkdtempSync(path.join(tmpdir(), 'tas-prometheus-'));
  const config = [
    'global:',
    `  scrape_interval: ${interval}s`,
    `  scrape_timeout: ${interval}s`,
    `  evaluation_interval: ${interval}s`,
    'scrape_configs:',
    ...Object.entries(options.jobs).flatMap(([job, targets]) => [
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    ]),
    '',
  ].join('\n');
  writeFileSync(path.join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    options.binary,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));

  const close = async (): Promise<void> => {
    if (running) {
      child.kill('SIGTERM');
      const timer = new AbortController();
      const killed = await Promise.race([
        exited.then(() => true),
        sleep(5_000, false, { signal: timer.signal }).catch(() => true),
      ]);
      timer.abort();
      if (!killed) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (!running) throw new Error(`prometheus exited at start:\n${output}`);
      const ready = await fetch(`${url}/-/ready`).then(
        (res) => res.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus not ready within 20 s:\n${output}`);
      await sleep(100);
    }
  } catch (err) {
    await close();
    throw err;
  }

  return {
    url,
    scrapeIntervalSeconds: interval,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success' || !body.data)
        throw new Error(`query ${expr}: ${body.error ?? res.status}`);
      if (body.data.resultType === 'scalar') {
        const value = body.data.result as unknown as [number, string];
        return [{ metric: {}, value: Number(value[1]) }];
      }
      return body.data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }));
    },
    output: () => output,
    close,
  };
}
