/**
 * How a replay server sends a recorded answer: at once, after a delay, or never (a hung upstream). Shared by the
 * replay servers of recorded exchanges (test/helpers/replay-server.ts, test/helpers/aggregator-replay-server.ts).
 */
import type { ServerResponse } from 'node:http';

export interface ReplayAnswer {
  response: { status: number; headers?: Record<string, string>; body: unknown };
  /** Answer only after this many milliseconds. */
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
}

/** Sends `route`'s answer on `res`; delay timers are kept in `timers` so closing the server can clear them. */
export function sendReplayAnswer(
  res: ServerResponse,
  route: ReplayAnswer,
  timers: Set<NodeJS.Timeout>,
): void {
  if (route.hang) return;
  const answer = (): void => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(route.response.status, { 'content-type': 'application/json', ...route.response.headers });
    res.end(
      typeof route.response.body === 'string' ? route.response.body : JSON.stringify(route.response.body),
    );
  };
  if (!route.delayMs) {
    answer();
    return;
  }
  const timer = setTimeout(() => {
    timers.delete(timer);
    answer();
  }, route.delayMs);
  timers.add(timer);
}
