import type { RetryEvent } from './client';
import { NetworkError, TasError } from './errors';
import { interpretResponse } from './response';
import { backoffDelayMs, nextRetryDelay, type RetryBudget, type RetryPolicy } from './retry';
import type { TasEvent } from './types';
import { abortReason, pause } from './pause';

/** One message of a Server-Sent Events stream, as an EventSource would dispatch it. */
export interface SseMessage {
  /** The last event ID at dispatch (the `id:` field of this message or of an earlier one); '' when none came. */
  id: string;
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `data:` lines joined with line feeds. */
  data: string;
}

/**
 * An incremental parser of the `text/event-stream` format, per the WHATWG HTML standard ("Event stream
 * interpretation"): lines end in CRLF, LF or CR (a CRLF may be split across chunks), `:` lines are comments,
 * `data:` lines accumulate, a blank line dispatches, an `id:` holding NULL is ignored, `retry:` takes digits only,
 * and an event not closed by a blank line when the stream ends is discarded. Feed it decoded text.
 */
export class SseParser {
  /** The server's `retry:` (reconnection time, ms), once it sent one. */
  retryMs?: number;
  /** The last event ID string: set at each blank line from the `id:` fields seen so far (what to resume after). */
  lastEventId = '';
  private partial = '';
  private afterCr = false;
  private data = '';
  private eventType = '';
  private idBuffer = '';

  /** The messages completed by this chunk, in order. */
  push(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    let start = 0;
    let i = 0;
    // A CR ended the previous chunk: an LF opening this one belongs to it.
    if (this.afterCr && chunk.charCodeAt(0) === 10) start = i = 1;
    this.afterCr = false;
    for (; i < chunk.length; i += 1) {
      const code = chunk.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      this.line(this.partial + chunk.slice(start, i), out);
      this.partial = '';
      if (code === 13) {
        if (i + 1 === chunk.length) this.afterCr = true;
        else if (chunk.charCodeAt(i + 1) === 10) i += 1;
      }
      start = i + 1;
    }
    this.partial += chunk.slice(start);
    return out;
  }

  /** The stream ended: an unfinished line or event is discarded (the last event ID stays). */
  end(): void {
    this.partial = '';
    this.afterCr = false;
    this.data = '';
    this.eventType = '';
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
      // Other fields are ignored.
    }
  }

  private dispatch(out: SseMessage[]): void {
    this.lastEventId = this.idBuffer;
    if (this.data === '') {
      this.eventType = '';
      return;
    }
    out.push({ id: this.lastEventId, event: this.eventType || 'message', data: this.data.slice(0, -1) });
    this.data = '';
    this.eventType = '';
  }
}

export interface EventStreamOptions {
  /** Resume right after this event (sent as `Last-Event-ID`); without it the stream starts with new events. */
  lastEventId?: string;
  /** Aborting closes the connection; the iterator then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Consecutive failed connection attempts before the iterator rejects with the last error; default unlimited
   * (it follows the stream until aborted or until a failure no retry can fix, such as a 400 or a 404).
   */
  maxAttempts?: number;
  /** A connection that brings no byte for this long (the server sends a keep-alive every 15 s) is replaced; default 45000. */
  idleTimeoutMs?: number;
  /** Told each time a connection is open (the stream's first one and every reconnection). */
  onOpen?: (info: { lastEventId?: string }) => void;
}

/** What the client hands the stream: where, how to sign each connection, and its retry settings. */
export interface EventStreamConnection {
  url: string;
  fetch: typeof fetch;
  /** Fresh signed headers for `GET url` (a new timestamp and nonce each call). */
  signedHeaders(): Record<string, string>;
  policy: RetryPolicy;
  /** For the answer's headers; the stream itself has no deadline (see idleTimeoutMs). */
  connectTimeoutMs: number;
  onRetry?: (event: RetryEvent) => void;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
/** Event ids remembered to drop a repeated delivery (at-least-once) after a reconnection. */
const REMEMBERED_IDS = 1000;

const HEADER_SAFE = /^[\u0020-\u007e]*$/;

function failureText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `{id, type, createdAt, data}` body a message carries; a message that is not one ends the stream. */
function eventOf(message: SseMessage): TasEvent {
  let body: unknown;
  try {
    body = JSON.parse(message.data);
  } catch {
    body = undefined;
  }
  if (!isObject(body) || typeof body.id !== 'string' || typeof body.type !== 'string') {
    throw new TasError({
      code: 'INVALID_EVENT',
      status: 0,
      message: `event ${JSON.stringify(message.id)} of the stream is not an {id, type, createdAt, data} JSON object`,
    });
  }
  return body as unknown as TasEvent;
}

/** The ids of the latest events, oldest forgotten first. */
class RecentIds {
  private readonly ids = new Set<string>();
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > REMEMBERED_IDS) this.ids.delete(this.ids.values().next().value!);
  }
}

/** Opens one connection: the stream's body, or the typed error of an answer that is not a stream. */
async function open(
  conn: EventStreamConnection,
  lastEventId: string | undefined,
  controller: AbortController,
): Promise<ReadableStream<Uint8Array>> {
  const headers: Record<string, string> = {
    ...conn.signedHeaders(),
    accept: 'text/event-stream',
    'cache-control': 'no-cache',
  };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, conn.connectTimeoutMs);
  try {
    let res: Response;
    try {
      res = await conn.fetch(conn.url, { method: 'GET', headers, signal: controller.signal });
    } catch (err) {
      if (timedOut) throw new NetworkError(`no answer within ${conn.connectTimeoutMs} ms`, err);
      throw new NetworkError(failureText(err), err);
    }
    const type = res.headers.get('content-type') ?? '';
    if (res.status === 200 && /^text\/event-stream\s*(;|$)/i.test(type) && res.body) {
      return res.body as ReadableStream<Uint8Array>;
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new NetworkError(failureText(err), err);
    }
    // An error envelope or a gateway answer throws its typed error here.
    interpretResponse(res.status, res.headers, text);
    throw new TasError({
      code: 'INVALID_RESPONSE',
      status: res.status,
      message: `the answer is not an event stream (content-type ${JSON.stringify(type)})`,
      requestId: res.headers.get('apigw-requestid') ?? undefined,
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /events as an async iterator of events (used by `client.events()`). Every connection is signed anew and sends
 * `Last-Event-ID` with the last event seen, so a dropped connection resumes where it stopped. Failing connections
 * are retried as the client's retry rules say (backoff with jitter, at least a 503's or 429's Retry-After; a
 * gateway 401/403 once, re-signed); answers no retry can fix (400 such as `Unknown Last-Event-ID`, 404, a
 * service 401/403) reject the iterator. Events already yielded are not yielded again.
 */
export async function* streamEvents(
  conn: EventStreamConnection,
  opts: EventStreamOptions = {},
): AsyncGenerator<TasEvent, void, undefined> {
  const { signal } = opts;
  if (opts.lastEventId !== undefined && !HEADER_SAFE.test(opts.lastEventId)) {
    throw new TasError({
      code: 'INVALID_LAST_EVENT_ID',
      status: 0,
      message: 'lastEventId must be printable ASCII (an event id such as evt_...)',
    });
  }
  const policy: RetryPolicy = { ...conn.policy, maxAttempts: opts.maxAttempts ?? Number.POSITIVE_INFINITY };
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const seen = new RecentIds();
  let lastEventId = opts.lastEventId || undefined;
  let serverRetryMs: number | undefined;
  let budget: RetryBudget = { attempts: 0, onceUsed: new Set() };
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    budget.attempts += 1;
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    let idled = false;
    let received = false;
    let failure: TasError;
    try {
      const body = await open(conn, lastEventId, controller);
      opts.onOpen?.({ lastEventId });
      const reader = body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      const arm = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          idled = true;
          controller.abort();
        }, idleTimeoutMs);
      };
      arm();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        if (!received) {
          received = true;
          // The connection works: the next failure starts a new series of retries.
          budget = { attempts: 0, onceUsed: new Set() };
        }
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          const event = eventOf(message);
          const id = message.id || event.id;
          if (HEADER_SAFE.test(id)) lastEventId = id;
          if (seen.has(event.id)) continue;
          seen.add(event.id);
          yield event;
        }
        // An `id:` with no data still moves the resume point (as EventSource's lastEventId).
        if (parser.lastEventId && HEADER_SAFE.test(parser.lastEventId)) lastEventId = parser.lastEventId;
        serverRetryMs = parser.retryMs ?? serverRetryMs;
      }
      failure = new NetworkError('the event stream ended');
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      if (err instanceof TasError && err.code === 'INVALID_EVENT') throw err;
      if (idled) failure = new NetworkError(`no data on the event stream for ${idleTimeoutMs} ms`, err);
      else if (err instanceof TasError) failure = err;
      else failure = new NetworkError(failureText(err), err);
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', onAbort);
      // Closes the connection whatever ended it (a consumer's `break` included).
      controller.abort();
    }
    // After a stream that worked: the server's `retry:` when it sent one, else a first backoff step.
    const delayMs = received
      ? (serverRetryMs ?? backoffDelayMs(policy, 1))
      : nextRetryDelay(failure, budget, policy);
    if (delayMs === undefined) throw failure;
    conn.onRetry?.({
      method: 'GET',
      path: '/events',
      attempt: budget.attempts || 1,
      delayMs,
      error: failure,
    });
    await pause(delayMs, signal);
  }
}
