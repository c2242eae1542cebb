/**
 * KEEPER_PRIVATE_RPC_URLS: the private transaction endpoints of each chain (Flashbots Protect, MEV Blocker…) that
 * receive the keeper's `eth_sendRawTransaction` instead of the public RPCs. Format `chainId=url|url,chainId=url`.
 * These URLs often carry an API key (a path segment or a query parameter), so no message here repeats one.
 */

/** One chain's private endpoints. */
export interface PrivateRpcUrls {
  chainId: number;
  urls: string[];
}

export class PrivateRpcUrlsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateRpcUrlsError';
  }
}

/** An absolute http(s) URL with a host: what `fetch` can POST to. */
export function isHttpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/**
 * Reads the variable's value; empty means no chain sends privately. Throws PrivateRpcUrlsError naming the entry
 * at fault by position and chain, never by its URL.
 */
export function parsePrivateRpcUrls(value: string): PrivateRpcUrls[] {
  const chains: PrivateRpcUrls[] = [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const [index, entry] of entries.entries()) {
    const position = `entry ${index + 1}`;
    const equals = entry.indexOf('=');
    const id = equals < 0 ? '' : entry.slice(0, equals).trim();
    const chainId = Number(id);
    if (!/^[1-9][0-9]*$/.test(id) || !Number.isSafeInteger(chainId)) {
      throw new PrivateRpcUrlsError(`${position} must be chainId=url|url with a positive integer chain id`);
    }
    const urls = entry
      .slice(equals + 1)
      .split('|')
      .map((url) => url.trim())
      .filter((url) => url !== '');
    if (urls.length === 0) throw new PrivateRpcUrlsError(`${position} (chain ${chainId}) names no URL`);
    for (const [k, url] of urls.entries()) {
      if (!isHttpUrl(url))
        throw new PrivateRpcUrlsError(`chain ${chainId}'s URL ${k + 1} must be an http(s) URL`);
    }
    if (chains.some((c) => c.chainId === chainId))
      throw new PrivateRpcUrlsError(`chain ${chainId} is listed twice`);
    chains.push({ chainId, urls });
  }
  return chains;
}
