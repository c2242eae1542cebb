/**
 * A typed client for the two LI.FI endpoints we use (https://docs.li.fi/api-reference): GET /v1/quote and
 * GET /v1/status. Every call is bounded by the configured timeout, every answer is checked against the documented
 * shape, and every failure is a LifiError whose message never carries the API key.
 */
import type { Logger } from '../../log/create-logger';
import { LifiError, type LifiErrorKind } from './lifi-error';
import { parseQuoteStep, parseStatus, type LifiStatus, type LifiStep } from './lifi-responses';

export interface LifiClientOptions {
  /** e.g. https://li.quest (a path prefix is kept: https://proxy.example/lifi). */
  apiUrl: string;
  /** Sent as `x-lifi-api-key` when not empty. */
  apiKey: string;
  timeoutMs: number;
  fetch?: typeof fetch;
  logger?: Logger;
}

/** GET /v1/quote query, in LI.FI's words. */
export interface LifiQuoteQuery {
  fromChain: number;
  toChain: number;
  fromToken: string;
  toToken: string;
  fromAmount: bigint;
  fromAddress: string;
  toAddress?: string;
  /** A fraction: "0.005" = 0.5%. */
  slippage: string;
  integrator?: string;
  /** The integrator fee LI.FI takes from the input, a fraction. */
  fee?: string;
  order?: 'CHEAPEST' | 'FASTEST';
}

/** GET /v1/status query: only txHash is required; fromChain makes LI.FI answer faster. */
export interface LifiStatusQuery {
  txHash: string;
  fromChain?: number;
  toChain?: number;
  bridge?: string;
}

export interface LifiClient {
  getQuote(query: LifiQuoteQuery): Promise<LifiStep>;
  getStatus(query: LifiStatusQuery): Promise<LifiStatus>;
}

/** The longest part of LI.FI's own error message we repeat. */
const MAX_MESSAGE = 300;

export function createLifiClient(options: LifiClientOptions): LifiClient {
  const fetchImpl = options.fetch ?? fetch;
  const base = options.apiUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey) headers['x-lifi-api-key'] = options.apiKey;

  /** Removes the key from text LI.FI (or a proxy) might have echoed back. */
  const scrub = (text: string): string =>
    options.apiKey ? text.split(options.apiKey).join('[redacted]') : text;

  async function get(path: string, query: Record<string, string | undefined>): Promise<unknown> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, value);
    const started = Date.now();
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(`${base}${path}?${search.toString()}`, {
        method: 'GET',
        headers,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      // The body is read under the same signal: a server that sends headers and then stalls times out too.
      text = await response.text();
    } catch (error) {
      const failure = transportFailure(path, error, options.timeoutMs, scrub);
      options.logger?.warn({ path, ms: Date.now() - started, kind: failure.kind }, failure.message);
      throw failure;
    }
    options.logger?.debug({ path, status, ms: Date.now() - started }, 'LI.FI answered');
    if (status < 200 || status > 299) throw httpFailure(path, status, text, scrub);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new LifiError('bad-response', `LI.FI ${path}: the body is not JSON`, status);
    }
  }

  return {
    async getQuote(query) {
      const body = await get('/v1/quote', {
        fromChain: String(query.fromChain),
        toChain: String(query.toChain),
        fromToken: query.fromToken,
        toToken: query.toToken,
        fromAmount: query.fromAmount.toString(),
        fromAddress: query.fromAddress,
        toAddress: query.toAddress,
        slippage: query.slippage,
        integrator: query.integrator || undefined,
        fee: query.fee,
        order: query.order,
      });
      return parseQuoteStep(body);
    },
    async getStatus(query) {
      const body = await get('/v1/status', {
        txHash: query.txHash,
        fromChain: query.fromChain === undefined ? undefined : String(query.fromChain),
        toChain: query.toChain === undefined ? undefined : String(query.toChain),
        bridge: query.bridge,
      });
      return parseStatus(body);
    },
  };
}

function httpFailure(path: string, status: number, text: string, scrub: (text: string) => string): LifiError {
  const { message, code } = errorBody(text);
  const kind: LifiErrorKind =
    status === 404
      ? 'no-route'
      : status === 429
        ? 'rate-limited'
        : status >= 500
          ? 'unavailable'
          : 'rejected';
  const detail = message ? `: ${scrub(message).slice(0, MAX_MESSAGE)}` : '';
  const coded = code === null ? '' : ` (code ${code})`;
  return new LifiError(kind, `LI.FI ${path} answered ${status}${coded}${detail}`, status, code);
}

/** LI.FI's documented error body is `{message, code}`; anything else (a proxy's HTML page) gives neither. */
function errorBody(text: string): { message: string | null; code: number | null } {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body !== 'object' || body === null) return { message: null, code: null };
    const { message, code } = body as { message?: unknown; code?: unknown };
    return {
      message: typeof message === 'string' ? message : null,
      code: typeof code === 'number' && Number.isSafeInteger(code) ? code : null,
    };
  } catch {
    return { message: null, code: null };
  }
}

function transportFailure(
  path: string,
  error: unknown,
  timeoutMs: number,
  scrub: (text: string) => string,
): LifiError {
  // Read by shape, not instanceof: fetch's DOMException and undici's errors may come from another realm (jest's vm).
  const { name, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    cause?: { code?: unknown; message?: unknown } | null;
  };
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new LifiError('unavailable', `LI.FI ${path} did not answer within ${timeoutMs} ms`);
  }
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED…) in `cause`.
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : String(error);
  return new LifiError('unavailable', `LI.FI ${path} unreachable: ${scrub(reason)}`);
}
