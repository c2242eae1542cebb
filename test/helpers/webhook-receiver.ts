import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  /** Milliseconds since the epoch when the request arrived. */
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  /** What the receiver answered. */
  status: number;
}

/**
 * A webhook receiver written from the contract alone: records every POST with its raw body, and answers what
 * `answer` says (200 unless told otherwise).
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  answer: (raw: string) => number = () => 200;
  private server: http.Server | undefined;
  private waiters: Array<() => void> = [];

  async start(port = 0): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const status = this.answer(raw);
        let body: ReceivedDelivery['body'];
        try {
          body = JSON.parse(raw) as ReceivedDelivery['body'];
        } catch {
          body = { id: '', type: '', createdAt: '', data: {} };
        }
        this.received.push({ at: Date.now(), headers: req.headers, raw, body, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Deliveries answered with a 2xx. */
  accepted(): ReceivedDelivery[] {
    return this.received.filter((d) => d.status < 300);
  }

  /** Resolves once `done` holds for what was received, or rejects after `timeoutMs`. */
  async waitFor(done: (received: ReceivedDelivery[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`webhook receiver: condition not met in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Checks a delivery's signature as an integrator would: HMAC-SHA256 of `<timestamp>.<raw body>` under the secret. */
export function signatureValid(secret: string, delivery: ReceivedDelivery): boolean {
  const timestamp = String(delivery.headers['x-tas-timestamp'] ?? '');
  const signature = String(delivery.headers['x-tas-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${delivery.raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
