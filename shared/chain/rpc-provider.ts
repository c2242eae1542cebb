import { FetchRequest, JsonRpcProvider, Network, type FetchGetUrlFunc, type GetUrlResponse } from 'ethers';
import { RpcTimeoutError } from './rpc-errors';

/**
 * One ethers provider for one RPC URL, set up for a client that does its own retries and failover:
 * - a static network: no eth_chainId probe before requests, and no gas-station lookups ethers does for the
 *   networks it knows;
 * - `cacheTimeout: -1`: ethers would hand out a cached answer to identical requests for 250 ms (nonces, blocks);
 * - `batchMaxCount: 1`: one request per HTTP call, so a timeout or failure concerns one method only;
 * - ethers' own 429 retry loop is off: a throttled endpoint must count as a failure and trigger failover;
 * - the HTTP request goes through fetch with an abort on timeout. ethers' node transport only rejects on its
 *   socket timeout and leaves the request open, which piles up sockets on a hanging endpoint.
 */
export function rpcProvider(url: string, chainId: number, name: string, timeoutMs: number): JsonRpcProvider {
  const { href, authorization } = splitCredentials(url);
  const request = new FetchRequest(href);
  if (authorization) request.setHeader('authorization', authorization);
  request.timeout = timeoutMs;
  request.retryFunc = async () => false;
  request.getUrlFunc = fetchWithTimeout(timeoutMs);
  const network = new Network(name, chainId);
  return new JsonRpcProvider(request, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    batchMaxCount: 1,
  });
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

function fetchWithTimeout(timeoutMs: number): FetchGetUrlFunc {
  return async (req, signal): Promise<GetUrlResponse> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new RpcTimeoutError(timeoutMs)), timeoutMs);
    signal?.addListener(() => controller.abort());
    try {
      const response = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? undefined,
        signal: controller.signal,
      });
      // Reading the body is covered by the same timeout: a node may send headers and then stall.
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
  };
}
