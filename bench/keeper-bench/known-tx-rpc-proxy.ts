import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256 } from 'ethers';

export interface KnownTxRpcProxy {
  url: string;
  /** eth_sendRawTransaction calls answered "already known" instead of being forwarded. */
  refused(): number;
  close(): Promise<void>;
}

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/**
 * A JSON-RPC proxy in front of a ganache chain that answers a second eth_sendRawTransaction of the same signed
 * transaction with "already known", as geth and every production node do. ganache 7 accepts the duplicate while
 * the first copy waits in its pool and then mines the transaction TWICE in one block (same hash, same nonce;
 * bench/keeper-bench.ts explains what that does to the keeper). Everything else passes through unchanged.
 */
export async function startKnownTxRpcProxy(targetUrl: string): Promise<KnownTxRpcProxy> {
  const seen = new Set<string>();
  let refused = 0;
  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const upstream = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: upstream.status, text: await upstream.text() };
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: RpcRequest | undefined;
      try {
        const value = JSON.parse(body) as unknown;
        parsed = Array.isArray(value) ? undefined : (value as RpcRequest);
      } catch {
        parsed = undefined;
      }
      const raw = parsed?.method === 'eth_sendRawTransaction' ? parsed.params?.[0] : undefined;
      if (typeof raw === 'string') {
        const hash = keccak256(raw);
        if (seen.has(hash)) {
          refused += 1;
          const error = {
            jsonrpc: '2.0',
            id: parsed?.id ?? null,
            error: { code: -32000, message: 'already known' },
          };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(error));
          return;
        }
      }
      forward(body)
        .then(({ status, text }) => {
          // Only a transaction the node accepted is "known": a refused one may be sent again.
          if (typeof raw === 'string' && /"result"/.test(text)) seen.add(keccak256(raw));
          res.writeHead(status, { 'content-type': 'application/json' }).end(text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
