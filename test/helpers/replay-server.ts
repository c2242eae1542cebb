/**
 * A local HTTP server that answers from recorded exchanges (fixture files holding the request an upstream API got
 * and what it answered), for testing clients of APIs no machine here reaches (LI.FI). It records every request it
 * receives, can delay or hang a route (timeouts), and answers anything it has no recording for with a loud 404.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendReplayAnswer } from './replay-answer';

/** One recorded exchange, as the fixture files hold it. */
export interface RecordedExchange {
  request: { method: string; path: string; query: Record<string, string> };
  response: { status: number; headers?: Record<string, string>; body: unknown };
}

/** A recorded exchange the server answers, and how. */
export interface ReplayRoute extends RecordedExchange {
  /**
   * `exact` (default): the query holds exactly the recorded parameters and values, nothing more; `subset`: at least
   * the recorded ones.
   */
  queryMatch?: 'exact' | 'subset';
  /** Answer only after this many milliseconds. */
  delayMs?: number;
  /** Never answer (the client must give up on its own). */
  hang?: boolean;
  /** Answer at most this many requests; then the route no longer matches. */
  times?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Whether a recorded exchange answered it. */
  matched: boolean;
}

export interface ReplayServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  /** Every request received, in order. */
  readonly requests: readonly ReceivedRequest[];
  /** Requests no recorded exchange matched (each got a 404 and a warning). */
  unmatched(): ReceivedRequest[];
  /** Adds a route; routes are tried in the order they were added. */
  add(route: ReplayRoute): void;
  /** Forgets every route and every recorded request. */
  reset(): void;
  close(): Promise<void>;
}

/** The header that marks the server's own 404, so it cannot pass for the upstream's. */
export const UNMATCHED_HEADER = 'x-replay-unmatched';

/** Reads a fixture file holding one recorded exchange, checking its shape. */
export function loadExchange(file: string): RecordedExchange {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordedExchange>;
  const { request, response } = parsed;
  if (
    !request ||
    typeof request.method !== 'string' ||
    typeof request.path !== 'string' ||
    typeof request.query !== 'object' ||
    !response ||
    typeof response.status !== 'number'
  ) {
    throw new Error(
      `${file} is not a recorded exchange ({request: {method, path, query}, response: {status, body}})`,
    );
  }
  return { request, response };
}

export async function startReplayServer(initial: readonly ReplayRoute[] = []): Promise<ReplayServer> {
  const routes: { route: ReplayRoute; answered: number }[] = initial.map((route) => ({ route, answered: 0 }));
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay.local');
    const query = Object.fromEntries(url.searchParams.entries());
    const method = req.method ?? 'GET';
    const entry = routes.find(
      ({ route, answered }) =>
        (route.times === undefined || answered < route.times) &&
        route.request.method.toUpperCase() === method &&
        route.request.path === url.pathname &&
        queryMatches(route.request.query, query, route.queryMatch ?? 'exact'),
    );
    requests.push({ method, path: url.pathname, query, headers: req.headers, matched: entry !== undefined });
    // Drain the request body (none is expected) so the connection behaves.
    req.resume();

    if (!entry) {
      const message = `replay server: no recorded exchange for ${method} ${url.pathname}${url.search}`;
      console.warn(message);
      res.writeHead(404, { 'content-type': 'application/json', [UNMATCHED_HEADER]: 'true' });
      res.end(JSON.stringify({ message }));
      return;
    }
    entry.answered += 1;
    const { route } = entry;
    sendReplayAnswer(res, route, timers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unmatched: () => requests.filter((request) => !request.matched),
    add: (route) => {
      routes.push({ route, answered: 0 });
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

function queryMatches(
  recorded: Record<string, string>,
  received: Record<string, string>,
  mode: 'exact' | 'subset',
): boolean {
  const recordedKeys = Object.keys(recorded);
  if (mode === 'exact' && Object.keys(received).length !== recordedKeys.length) return false;
  return recordedKeys.every((key) => received[key] === recorded[key]);
}
