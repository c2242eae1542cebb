/**
 * The HTTP exchange every aggregator client shares: Node's global fetch under the caller's AbortSignal, the body
 * read as text under the same signal (a server that sends headers and then stalls is cut off too), JSON parsed
 * when it is JSON. Transport failures become `unavailable`; what a non-2xx answer means is left to each client,
 * since every aggregator words its errors differently. The API key never reaches a message.
 */
import {
  ExternalAggregatorError,
  type ExternalAggregatorErrorKind,
  type ExternalAggregatorId,
} from './external-aggregator';

/** The longest part of an aggregator's own message we repeat. */
const MAX_MESSAGE = 300;

export interface AggregatorHttpOptions {
  aggregatorId: ExternalAggregatorId;
  /** Display name used in messages: "0x", "1inch"… */
  name: string;
  /** e.g. https://api.0x.org (a path prefix is kept: https://proxy.example/0x). */
  apiUrl: string;
  /** Secret sent in a header; scrubbed from every message. */
  apiKey: string;
  /** Sent with every request (the API key header among them). */
  headers: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
  text: string;
}

export type QueryValues = Record<string, string | undefined>;

export class AggregatorHttp {
  private readonly base: string;

  constructor(private readonly options: AggregatorHttpOptions) {
    this.base = options.apiUrl.replace(/\/+$/, '');
  }

  get(path: string, query: QueryValues, signal: AbortSignal): Promise<HttpAnswer> {
    return this.send('GET', path, query, undefined, signal);
  }

  post(path: string, query: QueryValues, body: unknown, signal: AbortSignal): Promise<HttpAnswer> {
    return this.send('POST', path, query, body, signal);
  }

  /** A failure carrying the aggregator's message, scrubbed and shortened. */
  fail(
    kind: ExternalAggregatorErrorKind,
    path: string,
    status: number | null,
    detail: string | null,
    code: string | number | null = null,
  ): ExternalAggregatorError {
    const answered = status === null ? '' : ` answered ${status}`;
    const coded = code === null ? '' : ` (${code})`;
    const said = detail ? `: ${this.scrub(detail).slice(0, MAX_MESSAGE)}` : '';
    return new ExternalAggregatorError(
      this.options.aggregatorId,
      kind,
      `${this.options.name} ${path}${answered}${coded}${said}`,
      status,
      code,
    );
  }

  /** The usual reading of a status no documented error body explained. */
  failByStatus(
    path: string,
    answer: HttpAnswer,
    detail: string | null,
    code: string | number | null = null,
  ): ExternalAggregatorError {
    const kind: ExternalAggregatorErrorKind =
      answer.status === 429 || answer.status >= 500 ? 'unavailable' : 'rejected';
    return this.fail(kind, path, answer.status, detail, code);
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    query: QueryValues,
    body: unknown,
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, value);
    const encoded = search.toString();
    const url = `${this.base}${path}${encoded ? `?${encoded}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      const text = await response.text();
      return { status: response.status, json: parseJson(text), text };
    } catch (error) {
      throw this.transportFailure(path, error, signal);
    }
  }

  private transportFailure(path: string, error: unknown, signal: AbortSignal): ExternalAggregatorError {
    // Read by shape, not instanceof: fetch's DOMException and undici's errors may come from another realm (jest's vm).
    const { name, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
      name?: unknown;
      cause?: { code?: unknown; message?: unknown } | null;
    };
    if (signal.aborted || name === 'AbortError' || name === 'TimeoutError') {
      return this.fail('unavailable', path, null, 'no answer before the request was aborted');
    }
    // undici reports "fetch failed" and puts the reason (ECONNREFUSED…) in `cause`.
    const reason =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : String(error);
    return this.fail('unavailable', path, null, `unreachable (${reason})`);
  }

  private scrub(text: string): string {
    const { apiKey } = this.options;
    return apiKey ? text.split(apiKey).join('[redacted]') : text;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A string field of an error body, if the body is an object holding one. */
export function stringField(body: unknown, key: string): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A numeric field of an error body (Odos `errorCode`, KyberSwap `code`), if present. */
export function numberField(body: unknown, key: string): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}
