import { keccak256 } from 'ethers';
import { startJsonRpcProxy } from '../../test/helpers/json-rpc-proxy';

export interface KnownTxRpcProxy {
  url: string;
  /** eth_sendRawTransaction calls answered "already known" instead of being forwarded. */
  refused(): number;
  close(): Promise<void>;
}

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/**
 * A JSON-RPC proxy in front of a ganache chain that answers a second eth_sendRawTransaction of the same signed
 * transaction with "already known", as geth and every production node do. ganache 7 accepts the duplicate while
 * the first copy waits in its pool and then mines the transaction TWICE in one block (same hash, same nonce;
 * bench/keeper-bench.ts explains what that does to the keeper); anvil refuses the duplicate itself ("transaction
 * already imported"). Everything else passes through unchanged.
 */
export async function startKnownTxRpcProxy(targetUrl: string): Promise<KnownTxRpcProxy> {
  const seen = new Set<string>();
  let refused = 0;
  const proxy = await startJsonRpcProxy(targetUrl, async (body, forward) => {
    let parsed: RpcRequest | undefined;
    try {
      const value = JSON.parse(body) as unknown;
      parsed = Array.isArray(value) ? undefined : (value as RpcRequest);
    } catch {
      parsed = undefined;
    }
    const raw = parsed?.method === 'eth_sendRawTransaction' ? parsed.params?.[0] : undefined;
    if (typeof raw === 'string' && seen.has(keccak256(raw))) {
      refused += 1;
      const error = {
        jsonrpc: '2.0',
        id: parsed?.id ?? null,
        error: { code: -32000, message: 'already known' },
      };
      return { status: 200, text: JSON.stringify(error) };
    }
    const answer = await forward();
    // Only a transaction the node accepted is "known": a refused one may be sent again.
    if (typeof raw === 'string' && /"result"/.test(answer.text)) seen.add(keccak256(raw));
    return answer;
  });
  return { url: proxy.url, refused: () => refused, close: () => proxy.close() };
}
