import {
  FetchRequest,
  JsonRpcProvider,
  makeError,
  Network,
  type FetchGetUrlFunc,
  type GetUrlResponse,
  type JsonRpcApiProviderOptions,
  type JsonRpcPayload,
  type JsonRpcResult,
} from 'ethers';
import { RpcTimeoutError } from './rpc-errors';

/**
 * One ethers provider for one RPC URL, set up for a client that does its own retries and failover:
 * - a static network: no eth_chainId probe before requests, and no gas-station lookups ethers does for the
 *   networks it knows;
 * - `cacheTimeout: -1`: ethers would hand out a cached answer to identical requests for 250 ms (nonces, blocks);
 * - `batchMaxCount: 1`: one request per HTTP call, so a timeout or failure concerns one method only;
 * - ethers' own 429 retry loop is off: a throttled endpoint must count as a failure and trigger failover;
 * - the HTTP request goes through fetch with an abort on timeout. ethers' node transport only rejects on its
 *   socket timeout and leaves the request open, which piles up sockets on a hanging endpoint;
 * - request and answer bodies are turned to and from JSON by Node's own UTF-8 codecs (JsonRpcTransport). ethers
 *   converts them character by character in JavaScript: a receipt of a 500-order batch, a megabyte of logs, took
 *   tens of milliseconds.
 */
export function rpcProvider(url: string, chainId: number, name: string, timeoutMs: number): JsonRpcProvider {
  const { href, authorization } = splitCredentials(url);
  const request = new FetchRequest(href);
  if (authorization) request.setHeader('authorization', authorization);
  request.timeout = timeoutMs;
  request.retryFunc = async () => false;
  request.getUrlFunc = fetchWithTimeout(timeoutMs);
  const network = new Network(name, chainId);
  return new JsonRpcTransport(request, timeoutMs, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    batchMaxCount: 1,
  });
}

/** A JsonRpcProvider whose requests skip ethers' FetchRequest (see rpcProvider). */
class JsonRpcTransport extends JsonRpcProvider {
  constructor(
    private readonly request: FetchRequest,
    private readonly timeoutMs: number,
    network: Network,
    options: JsonRpcApiProviderOptions,
  ) {
    super(request, network, options);
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const headers = { ...this.request.headers, 'content-type': 'application/json' };
    const response = await timedFetch(
      this.request.url,
      { method: 'POST', headers, body: JSON.stringify(payload) },
      this.timeoutMs,
    );
    const text = Buffer.from(response.body).toString('utf8');
    if (response.statusCode < 200 || response.statusCode >= 300) {
      // As ethers' FetchResponse.assertOk reports it: an HTTP failure is the endpoint's (SERVER_ERROR).
      throw makeError(`server response ${response.statusCode} ${response.statusMessage}`, 'SERVER_ERROR', {
        request: this.request,
        info: { responseBody: text, responseStatus: `${response.statusCode} ${response.statusMessage}` },
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw makeError('response body is not valid JSON', 'UNSUPPORTED_OPERATION', {
        operation: 'bodyJson',
        info: { responseBody: text.slice(0, 200) },
      });
    }
    return (Array.isArray(body) ? body : [body]) as JsonRpcResult[]; // errors ride in the same array, as in ethers
  }
}

/** fetch refuses URLs with userinfo: it becomes a basic Authorization header, as browsers and curl send it. */
function splitCredentials(url: string): { href: string; authorization?: string } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { href: url };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    href: parsed.href,
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  };
}

/** fetch with an abort after `timeoutMs`, reading the body included: a node may send headers and then stall. */
async function timedFetch(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array },
  timeoutMs: number,
  signal?: { addListener(listener: () => void): void },
): Promise<GetUrlResponse & { body: Uint8Array }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RpcTimeoutError(timeoutMs)), timeoutMs);
  signal?.addListener(() => controller.abort());
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    const body = new Uint8Array(await response.arrayBuffer());
    return {
      statusCode: response.status,
      statusMessage: response.statusText,
      headers: Object.fromEntries(response.headers.entries()),
      body,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** ethers' own transport, for whatever still sends through the FetchRequest. */
function fetchWithTimeout(timeoutMs: number): FetchGetUrlFunc {
  return (req, signal) =>
    timedFetch(
      req.url,
      { method: req.method, headers: req.headers, body: req.body ?? undefined },
      timeoutMs,
      signal,
    );
}
