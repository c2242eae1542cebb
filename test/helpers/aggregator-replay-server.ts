/**
 * A local HTTP server answering from recorded aggregator exchanges (test/fixtures/aggregators/<id>/*.json): the
 * request the aggregator got (method, path, query and, for POSTs, the JSON body) and what it answered. Like
 * test/helpers/replay-server.ts, but it also reads and matches request bodies (ParaSwap, Odos and KyberSwap take
 * POSTs), and records whether the client gave up on a request (the budget aborts the late ones).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendReplayAnswer } from './replay-answer';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export interface RecordedAggregatorExchange {
  request: { method: string; path: string; query: Record<string, string>; body?: unknown };
  response: { status: number; headers?: Record<string, string>; body: unknown };
}

export interface AggregatorReplayRoute extends RecordedAggregatorExchange {
  /** Answer only after this many milliseconds. */
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
}

export interface ReceivedAggregatorRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
  matched: boolean;
  /** Set when the client closed the connection before the answer was sent. */
  abandoned: boolean;
}

export interface AggregatorReplayServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  readonly requests: readonly ReceivedAggregatorRequest[];
  unmatched(): ReceivedAggregatorRequest[];
  add(route: AggregatorReplayRoute): void;
  reset(): void;
  close(): Promise<void>;
}

const FIXTURES = join(__dirname, '../fixtures/aggregators');

/** Reads test/fixtures/aggregators/<aggregator>/<name>, checking its shape. */
export function loadAggregatorExchange(aggregator: string, name: string): RecordedAggregatorExchange {
  const file = join(FIXTURES, aggregator, name);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordedAggregatorExchange>;
  const { request, response } = parsed;
  if (
    !request ||
    typeof request.method !== 'string' ||
    typeof request.path !== 'string' ||
    typeof request.query !== 'object' ||
    !response ||
    typeof response.status !== 'number'
  ) {
    throw new Error(`${file} is not a recorded exchange ({request: {method, path, query, body?}, response})`);
  }
  return { request, response };
}

export async function startAggregatorReplayServer(): Promise<AggregatorReplayServer> {
  const routes: AggregatorReplayRoute[] = [];
  const requests: ReceivedAggregatorRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://replay.local');
      const query = Object.fromEntries(url.searchParams.entries());
      const method = req.method ?? 'GET';
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      const route = routes.find(
        ({ request }) =>
          request.method === method &&
          request.path === url.pathname &&
          isDeepStrictEqual(request.query, query) &&
          (request.body === undefined || isDeepStrictEqual(request.body, body)),
      );
      const received: ReceivedAggregatorRequest = {
        method,
        path: url.pathname,
        query,
        headers: req.headers,
        body,
        matched: route !== undefined,
        abandoned: false,
      };
      requests.push(received);
      res.on('close', () => {
        if (!res.writableFinished) received.abandoned = true;
      });

      if (!route) {
        console.warn(
          `aggregator replay: no recorded exchange for ${method} ${url.pathname}${url.search} ${text}`,
        );
        res.writeHead(404, { 'content-type': 'application/json', 'x-replay-unmatched': 'true' });
        res.end(JSON.stringify({ message: 'no recorded exchange' }));
        return;
      }
      sendReplayAnswer(res, route, timers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unmatched: () => requests.filter((request) => !request.matched),
    add: (route) => {
      routes.push(route);
    },
    reset: () => {
      routes.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
