import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyFailure = '503' | 'hang';

export interface RpcProxyOptions {
  /** Fail every Nth request (the Nth, 2Nth…); 0 = never. */
  failEvery?: number;
  failure?: ProxyFailure;
}

export interface RpcProxy {
  url: string;
  /** Requests received, failed ones included. */
  received(): number;
  /** Requests answered 503 or left hanging. */
  failed(): number;
  /** JSON-RPC bodies of every request, in arrival order. */
  bodies(): Array<{ method: string; params: unknown[] }>;
  setFailure(opts: RpcProxyOptions): void;
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of a devnet chain that injects endpoint failures: every Nth request is
 * answered 503 or held without an answer (until the client gives up or the proxy closes).
 */
export async function startRpcProxy(targetUrl: string, opts: RpcProxyOptions = {}): Promise<RpcProxy> {
  let failEvery = opts.failEvery ?? 0;
  let failure: ProxyFailure = opts.failure ?? '503';
  let received = 0;
  let failed = 0;
  const bodies: Array<{ method: string; params: unknown[] }> = [];

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received += 1;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { method: string; params: unknown[] };
        bodies.push({ method: parsed.method, params: parsed.params });
      } catch {
        bodies.push({ method: '(unparseable)', params: [] });
      }
      if (failEvery > 0 && received % failEvery === 0) {
        failed += 1;
        if (failure === 'hang') return; // never answered; closeAllConnections ends it
        res.writeHead(503, { 'content-type': 'text/plain' }).end('service unavailable');
        return;
      }
      fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          const text = await upstream.text();
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    failed: () => failed,
    bodies: () => bodies,
    setFailure: (next) => {
      failEvery = next.failEvery ?? 0;
      failure = next.failure ?? '503';
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
