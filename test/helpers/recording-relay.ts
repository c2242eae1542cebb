import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256 } from 'ethers';

/** One eth_sendRawTransaction the relay took. */
export interface RelayedSend {
  raw: string;
  /** keccak256 of `raw`: what the relay answered at once. */
  hash: string;
  /** Date.now() when it arrived. */
  receivedAt: number;
  /** Date.now() when it was passed to the target; undefined while held. */
  forwardedAt?: number;
  /** The target's JSON-RPC error message, when it refused the transaction (a copy already mined: nonce too low). */
  forwardError?: string;
}

export interface RecordingRelayOptions {
  /** The chain's RPC the held transactions are finally sent to. */
  targetUrl: string;
  /** How long each transaction is held before it is forwarded (default 0; Infinity: never, until `release`). */
  delayMs?: number;
  /** Hold every transaction until `release()`, whatever `delayMs` says. */
  hold?: boolean;
}

export interface RecordingRelay {
  url: string;
  /** Every eth_sendRawTransaction received, in arrival order. */
  sends(): readonly RelayedSend[];
  /** Resolves with the sends once there are at least `count` (default 1); rejects after `timeoutMs`. */
  waitForSends(count?: number, timeoutMs?: number): Promise<readonly RelayedSend[]>;
  /** Forwards everything held now, and from now on forwards after `delayMs` (default 0). */
  release(delayMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/**
 * A private transaction relay for tests, as Flashbots Protect behaves: an HTTP JSON-RPC server on 127.0.0.1 that
 * answers eth_sendRawTransaction with the transaction's hash at once, records it and forwards it to the chain only
 * after a delay (or never, while holding), so the public node does not see it before then. Every other method is
 * passed to the target straight away.
 */
export async function startRecordingRelay(opts: RecordingRelayOptions): Promise<RecordingRelay> {
  const sends: RelayedSend[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let delayMs = opts.delayMs ?? 0;
  let holding = opts.hold === true || delayMs === Infinity;
  let nextId = 1;

  const post = async (body: string): Promise<string> => {
    const response = await fetch(opts.targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return response.text();
  };

  const forward = async (send: RelayedSend): Promise<void> => {
    if (send.forwardedAt !== undefined) return;
    send.forwardedAt = Date.now();
    try {
      const text = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: nextId++,
          method: 'eth_sendRawTransaction',
          params: [send.raw],
        }),
      );
      const answer = JSON.parse(text) as { error?: { message?: string } };
      if (answer.error) send.forwardError = answer.error.message ?? JSON.stringify(answer.error);
    } catch (err) {
      send.forwardError = err instanceof Error ? err.message : String(err);
    }
  };

  const schedule = (send: RelayedSend): void => {
    if (holding) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void forward(send);
    }, delayMs);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let request: JsonRpcRequest | undefined;
      try {
        request = JSON.parse(body) as JsonRpcRequest;
      } catch {
        request = undefined;
      }
      const params = Array.isArray(request?.params) ? (request.params as unknown[]) : [];
      if (request?.method === 'eth_sendRawTransaction' && typeof params[0] === 'string') {
        const raw = params[0];
        const send: RelayedSend = { raw, hash: keccak256(raw), receivedAt: Date.now() };
        sends.push(send);
        schedule(send);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result: send.hash }));
        return;
      }
      post(body)
        .then((text) => res.writeHead(200, { 'content-type': 'application/json' }).end(text))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    sends: () => sends,
    async waitForSends(count = 1, timeoutMs = 20_000) {
      for (const deadline = Date.now() + timeoutMs; sends.length < count;) {
        if (Date.now() > deadline)
          throw new Error(`the relay received ${sends.length} transaction(s), not ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return sends;
    },
    async release(after = 0) {
      holding = false;
      delayMs = after;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // In arrival order: a sender's later nonces reach the chain after its earlier ones, as a relay sends them.
      for (const send of sends) await forward(send);
    },
    close: () =>
      new Promise<void>((resolve) => {
        holding = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
