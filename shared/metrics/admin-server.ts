import http from 'node:http';
import type { Registry } from 'prom-client';
import type { Readiness } from './chain-readiness';

export interface AdminChecks {
  /** `/healthz`: the process is live. */
  healthy: () => Promise<boolean>;
  /** `/readyz`'s chains: every traded one (or the one asked for) serves fresh market data. */
  ready?: (chainId: number | undefined) => Readiness;
  /** Whether the store answers now: `/readyz` names it, and is never ready without it. */
  storeAnswers: () => Promise<boolean>;
}

/**
 * The operator's port, never exposed publicly: `/metrics` for Prometheus, `/healthz` for liveness (the process
 * and its store answer) and `/readyz` for readiness (the store answers and every traded chain's market feed is
 * fresh; `?chainId=N` asks about one chain).
 */
export function createAdminServer(registry: Registry, checks: AdminChecks): http.Server {
  const { healthy, ready, storeAnswers } = checks;
  return http.createServer((req, res) => {
    const reply = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => reply(200, registry.contentType, text),
        () => reply(500, 'text/plain', 'metrics unavailable'),
      );
      return;
    }
    if (req.method === 'GET' && req.url === '/healthz') {
      healthy().then(
        (ok) =>
          reply(ok ? 200 : 503, 'application/json', JSON.stringify({ status: ok ? 'ok' : 'unavailable' })),
        () => reply(503, 'application/json', JSON.stringify({ status: 'unavailable' })),
      );
      return;
    }
    const url = new URL(req.url ?? '/', 'http://admin');
    if (req.method === 'GET' && url.pathname === '/readyz' && ready) {
      const asked = url.searchParams.get('chainId');
      const chainId = asked !== null && /^\d{1,16}$/.test(asked) ? Number(asked) : undefined;
      if (asked !== null && chainId === undefined)
        return reply(400, 'text/plain', 'chainId must be an integer');
      Promise.all([healthy(), storeAnswers()]).then(
        ([live, store]) => {
          const state = ready(chainId);
          const isReady = live && store && state.ready;
          reply(
            isReady ? 200 : 503,
            'application/json',
            JSON.stringify({
              status: isReady ? 'ready' : 'not ready',
              store: store ? 'ok' : 'unavailable',
              ...state,
            }),
          );
        },
        () => reply(503, 'application/json', JSON.stringify({ status: 'not ready', store: 'unavailable' })),
      );
      return;
    }
    reply(404, 'text/plain', 'not found');
  });
}
