import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  status: number;
  text: string;
}

/**
 * What a proxy does with one request: `forward` it (and answer what came back, or something else), answer it
 * itself, or leave it hanging ('hang', until the client gives up or the proxy closes).
 */
export type ProxyHandler = (
  body: string,
  forward: () => Promise<Upstream>,
) => Promise<Upstream | 'hang'> | Upstream | 'hang';

export interface JsonRpcProxy {
  url: string;
  close(): Promise<void>;
}

/** An HTTP JSON-RPC proxy on 127.0.0.1 in front of `targetUrl`, answering each request as `handle` decides. */
export async function startJsonRpcProxy(targetUrl: string, handle: ProxyHandler): Promise<JsonRpcProxy> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const forward = async (): Promise<Upstream> => {
        const upstream = await fetch(targetUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: upstream.status, text: await upstream.text() };
      };
      Promise.resolve(handle(body, forward))
        .then((answer) => {
          if (answer === 'hang') return;
          const type = answer.status === 503 ? 'text/plain' : 'application/json';
          res.writeHead(answer.status, { 'content-type': type }).end(answer.text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
