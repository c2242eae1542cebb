import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  NetworkError,
  ServerError,
  SseParser,
  TasClient,
  TasError,
  ValidationError,
  type Credentials,
  type RetryEvent,
  type SseMessage,
  type TasEvent,
} from '../../../sdk/src';
import {
  EMPTY_BODY_HASH,
  decodeValueInfo,
  hmacHex,
  signedMessage,
} from '../../../shared/signing/request-signature';

const CREDENTIALS: Credentials = {
  apiKeyId: '7d0c3a52-4a0e-4b8e-9c55-1f2a3b4c5d6e',
  secretKey: 'secret-key-for-the-event-stream-tests',
  passphrase: 'passphrase-123',
};

describe('SseParser (WHATWG event stream interpretation)', () => {
  const parseAll = (chunks: string[]): { messages: SseMessage[]; parser: SseParser } => {
    const parser = new SseParser();
    const messages = chunks.flatMap((chunk) => parser.push(chunk));
    parser.end();
    return { messages, parser };
  };

  it('reads id, event and data; joins data lines with LF; defaults the type to message', () => {
    const { messages } = parseAll([
      'id: 1\nevent: limit_order.updated\ndata: {"a":1}\n\n',
      'data: first\ndata:second\ndata:  two spaces\n\n',
    ]);
    expect(messages).toEqual([
      { id: '1', event: 'limit_order.updated', data: '{"a":1}' },
      // The id stays until the server sends another; only one leading space is removed.
      { id: '1', event: 'message', data: 'first\nsecond\n two spaces' },
    ]);
  });

  it('ends lines at CRLF, LF or CR, a CRLF split across chunks included', () => {
    const { messages } = parseAll(['id: a\r\ndata: x\r', '\n\r', '\nid: b\rdata: y\r\rdata: z\n', '\n']);
    expect(messages).toEqual([
      { id: 'a', event: 'message', data: 'x' },
      { id: 'b', event: 'message', data: 'y' },
      { id: 'b', event: 'message', data: 'z' },
    ]);
  });

  it('ignores comments (keep-alives) and unknown fields; a field without a colon has an empty value', () => {
    const { messages } = parseAll([
      ': keep-alive\n\n',
      ':\n',
      'foo: bar\ndata\n\n',
      'data:\ndata\n\n',
      'event: only-a-type\n\n',
    ]);
    expect(messages).toEqual([
      { id: '', event: 'message', data: '' },
      { id: '', event: 'message', data: '\n' },
    ]);
  });

  it('assembles fields split anywhere across chunks, byte by byte', () => {
    const text = 'id: evt_1\nevent: ping\ndata: {"x":"ü"}\n\n: keep-alive\n\nid: evt_2\ndata: 2\n\n';
    const { messages } = parseAll([...text]);
    expect(messages).toEqual([
      { id: 'evt_1', event: 'ping', data: '{"x":"ü"}' },
      { id: 'evt_2', event: 'message', data: '2' },
    ]);
  });

  it('keeps retry (digits only) and the last event id; an id with NULL is ignored; an unfinished event is dropped', () => {
    const { messages, parser } = parseAll([
      'retry: 2500\nretry: 1.5\nid: a\u0000b\ndata: 1\n\nid: c\n\n',
      'data: cut',
    ]);
    expect(messages).toEqual([{ id: '', event: 'message', data: '1' }]);
    expect(parser.retryMs).toBe(2500);
    // An id-only event moves the last event id without a message.
    expect(parser.lastEventId).toBe('c');
  });
});

interface Connection {
  headers: http.IncomingHttpHeaders;
  url: string;
  res: http.ServerResponse;
  closed: Promise<void>;
}

type Handler = (conn: Connection, index: number) => void;

/** A local HTTP server speaking SSE on /api/v1/events, one handler per connection, recording each. */
class SseServer {
  readonly connections: Connection[] = [];
  private handlers: Handler[] = [];
  private readonly server = http.createServer((req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    const conn: Connection = { headers: req.headers, url: req.url ?? '', res, closed };
    const index = this.connections.push(conn) - 1;
    const handler = this.handlers[Math.min(index, this.handlers.length - 1)];
    if (!handler) {
      res.statusCode = 500;
      res.end();
      return;
    }
    handler(conn, index);
  });
  baseUrl = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1`;
  }

  script(...handlers: Handler[]): void {
    this.handlers = handlers;
    this.connections.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const event = (n: number, type: TasEvent['type'] = 'limit_order.updated'): TasEvent =>
  ({
    id: `evt_${String(n).padStart(32, '0')}`,
    type,
    createdAt: new Date(Date.UTC(2025, 10, 24, 16, 0, n)).toISOString(),
    data: { id: `order-${n}`, status: n % 2 ? 'pending' : 'completed' },
  }) as TasEvent;

/** The SSE frame of an event, as the service writes it. */
const frame = (e: TasEvent, eol = '\n'): string =>
  [`id: ${e.id}`, `event: ${e.type}`, `data: ${JSON.stringify(e)}`, '', ''].join(eol);

const openStream = (res: http.ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
};

const envelopeError = (
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(
    JSON.stringify({ success: false, error: { code, message, details: [] }, meta: { requestId: 'req-1' } }),
  );
};

/** Whether a connection's headers are a valid signature of GET /api/v1/events with an empty body. */
function signedForEvents(headers: http.IncomingHttpHeaders): boolean {
  const info = decodeValueInfo(String(headers['x-value-info']));
  if (!info || info.bodyHash !== EMPTY_BODY_HASH) return false;
  const message = signedMessage({ ...info, method: 'GET', path: '/api/v1/events', query: '' });
  return (
    headers['x-api-key-id'] === CREDENTIALS.apiKeyId &&
    headers['x-passphrase'] === CREDENTIALS.passphrase &&
    headers['x-signature'] === hmacHex(CREDENTIALS.secretKey, message)
  );
}

async function take(iterable: AsyncIterable<TasEvent>, n: number): Promise<TasEvent[]> {
  const out: TasEvent[] = [];
  if (n === 0) return out;
  for await (const e of iterable) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

describe('client.events() against a local SSE server', () => {
  const server = new SseServer();
  const retries: RetryEvent[] = [];
  let client: TasClient;

  beforeAll(async () => {
    await server.start();
    client = new TasClient({
      baseUrl: server.baseUrl,
      credentials: CREDENTIALS,
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      userAgent: 'event-stream-test',
      onRetry: (e) => retries.push(e),
    });
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    retries.length = 0;
  });

  it('reconnects after a dropped connection with Last-Event-ID, signed anew: no duplicate, no gap', async () => {
    const all = [1, 2, 3, 4, 5, 6].map((n) => event(n));
    server.script(
      ({ res }) => {
        openStream(res);
        // Two events, a keep-alive, the start of a third, then the connection drops.
        res.write(`: keep-alive\n\n${frame(all[0]!)}${frame(all[1]!, '\r\n')}`);
        res.write(frame(all[2]!).slice(0, 40), () => setTimeout(() => res.socket?.destroy(), 20));
      },
      ({ res, headers }) => {
        openStream(res);
        const after = all.findIndex((e) => e.id === headers['last-event-id']);
        // At least once: the server may replay the last event seen; the iterator drops it.
        for (const e of all.slice(Math.max(0, after))) res.write(frame(e));
      },
    );
    const got = await take(client.events(), 6);
    expect(got).toEqual(all);
    expect(server.connections).toHaveLength(2);
    const [first, second] = server.connections;
    expect(first!.headers['last-event-id']).toBeUndefined();
    expect(second!.headers['last-event-id']).toBe(all[1]!.id);
    for (const conn of [first!, second!]) {
      expect(conn.url).toBe('/api/v1/events');
      expect(conn.headers.accept).toBe('text/event-stream');
      expect(conn.headers['content-type']).toBe('application/json');
      expect(conn.headers['user-agent']).toBe('event-stream-test');
      expect(signedForEvents(conn.headers)).toBe(true);
    }
    expect(first!.headers['x-signature']).not.toBe(second!.headers['x-signature']);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ method: 'GET', path: '/events', attempt: 1 });
    expect(retries[0]!.error).toBeInstanceOf(NetworkError);
    // Breaking out of the loop closed the connection.
    await second!.closed;
  });

  it('starts after lastEventId, and follows the server through a clean end of the stream', async () => {
    server.script(
      ({ res }) => {
        openStream(res);
        res.end(frame(event(8)));
      },
      ({ res }) => {
        openStream(res);
        res.write(frame(event(9)));
      },
    );
    const got = await take(client.events({ lastEventId: event(7).id }), 2);
    expect(got.map((e) => e.id)).toEqual([event(8).id, event(9).id]);
    expect(server.connections.map((c) => c.headers['last-event-id'])).toEqual([event(7).id, event(8).id]);
  });

  it('waits at least the Retry-After of a 503 before reconnecting', async () => {
    server.script(
      ({ res }) =>
        envelopeError(res, 503, 'SERVICE_UNAVAILABLE', 'Store unavailable', { 'retry-after': '1' }),
      ({ res }) => {
        openStream(res);
        res.write(frame(event(1)));
      },
    );
    const started = Date.now();
    const got = await take(client.events(), 1);
    expect(got).toEqual([event(1)]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toBeInstanceOf(ServerError);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('rejects on a 400 (an unknown Last-Event-ID) without retrying', async () => {
    server.script(({ res }) => envelopeError(res, 400, 'VALIDATION_ERROR', 'Unknown Last-Event-ID'));
    const failure = take(client.events({ lastEventId: 'evt_gone' }), 1);
    await expect(failure).rejects.toBeInstanceOf(ValidationError);
    await expect(failure).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      serverMessage: 'Unknown Last-Event-ID',
    });
    expect(server.connections).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('gives up after maxAttempts consecutive failures to connect', async () => {
    server.script(({ res }) => envelopeError(res, 500, 'INTERNAL_ERROR', 'boom'));
    await expect(take(client.events({ maxAttempts: 3 }), 1)).rejects.toBeInstanceOf(ServerError);
    expect(server.connections).toHaveLength(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('refuses a 200 that is not an event stream', async () => {
    server.script(({ res }) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, data: [], meta: {} }));
    });
    await expect(take(client.events(), 1)).rejects.toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
  });

  it('ends on an event that is not the JSON body, rather than skipping it', async () => {
    server.script(({ res }) => {
      openStream(res);
      res.write('id: evt_bad\nevent: limit_order.updated\ndata: not json\n\n');
    });
    const failure = take(client.events(), 1);
    await expect(failure).rejects.toBeInstanceOf(TasError);
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_EVENT' });
  });

  it('replaces a connection that goes quiet past idleTimeoutMs', async () => {
    server.script(
      ({ res }) => {
        openStream(res);
        res.write(': keep-alive\n\n');
      },
      ({ res }) => {
        openStream(res);
        res.write(frame(event(3)));
      },
    );
    const got = await take(client.events({ idleTimeoutMs: 150 }), 1);
    expect(got).toEqual([event(3)]);
    expect(retries[0]!.error.message).toContain('no data on the event stream for 150 ms');
    await server.connections[0]!.closed;
  });

  it('stops on abort: the iterator rejects with the reason and the connection closes', async () => {
    server.script(({ res }) => {
      openStream(res);
      res.write(frame(event(1)));
    });
    const controller = new AbortController();
    const got: TasEvent[] = [];
    const reason = new Error('stop');
    const run = (async () => {
      for await (const e of client.events({ signal: controller.signal })) {
        got.push(e);
        setTimeout(() => controller.abort(reason), 20);
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(got).toEqual([event(1)]);
    await server.connections[0]!.closed;
  });

  it('needs credentials, and a printable lastEventId', async () => {
    const anonymous = new TasClient({ baseUrl: server.baseUrl });
    server.script(({ res }) => openStream(res));
    await expect(take(anonymous.events(), 1)).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS' });
    await expect(take(client.events({ lastEventId: 'evt\n1' }), 1)).rejects.toMatchObject({
      code: 'INVALID_LAST_EVENT_ID',
    });
    expect(server.connections).toEqual([]);
  });
});
