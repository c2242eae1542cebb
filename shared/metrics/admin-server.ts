import http from 'node:http';
import type { Registry } from 'prom-client';

/** The operator's port: `/metrics` for Prometheus and `/healthz` for load balancers, never exposed publicly. */
export function createAdminServer(registry: Registry, healthy: () => Promise<boolean>): http.Server {
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
    reply(404, 'text/plain', 'not found');
  });
}
