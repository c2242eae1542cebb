import { signRequest } from '../../shared/signing/request-signature';
import type { ApiClient } from './api-client';

export interface StreamedEvent {
  id: string;
  event: string;
  data: string;
}

/**
 * A signed `GET /events` read the way a spec-only client reads Server-Sent Events: frames split on blank lines,
 * comments kept apart. `events` fills as frames arrive; `close` ends the connection.
 */
export class EventStreamReader {
  readonly events: StreamedEvent[] = [];
  comments = 0;
  status = 0;
  contentType = '';
  private readonly abort = new AbortController();
  private reading: Promise<void> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly lastEventId?: string,
  ) {}

  /** Connects; resolves with the answer's status once the headers came. A non-200 answer's body is returned. */
  async open(): Promise<string> {
    const url = new URL(`${this.client.baseUrl}/events`);
    const signed = signRequest(this.client.credentials, { method: 'GET', url: url.pathname });
    const res = await fetch(url, {
      headers: {
        ...signed.headers,
        accept: 'text/event-stream',
        ...(this.lastEventId ? { 'last-event-id': this.lastEventId } : {}),
      },
      signal: this.abort.signal,
    });
    this.status = res.status;
    this.contentType = res.headers.get('content-type') ?? '';
    if (res.status !== 200 || !res.body) return res.text();
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    this.reading = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.frame(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        // Aborted by close().
      }
    })();
    return '';
  }

  private frame(text: string): void {
    const fields: Record<string, string> = {};
    let comment = false;
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) {
        comment = true;
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields[name] = name in fields && name === 'data' ? `${fields[name]}\n${value}` : value;
    }
    if (fields.data === undefined) {
      if (comment) this.comments += 1;
      return;
    }
    this.events.push({ id: fields.id ?? '', event: fields.event ?? 'message', data: fields.data });
  }

  async waitFor(done: (events: StreamedEvent[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.events)) {
      if (Date.now() > deadline) throw new Error(`event stream: condition not met in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.reading;
  }
}
