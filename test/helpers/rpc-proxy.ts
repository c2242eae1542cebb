import { startJsonRpcProxy } from './json-rpc-proxy';

export type ProxyFailure = '503' | 'hang';

export interface RpcProxyOptions {
  /** Fail every Nth request (the Nth, 2Nth…); 0 = never. */
  failEvery?: number;
  failure?: ProxyFailure;
}

export interface RpcProxy {
  url: string;
  /** Requests received, failed ones included. */
  received(): number;
  /** Requests answered 503 or left hanging. */
  failed(): number;
  /** JSON-RPC bodies of every request, in arrival order. */
  bodies(): Array<{ method: string; params: unknown[] }>;
  setFailure(opts: RpcProxyOptions): void;
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of a devnet chain that injects endpoint failures: every Nth request is
 * answered 503 or held without an answer (until the client gives up or the proxy closes).
 */
export async function startRpcProxy(targetUrl: string, opts: RpcProxyOptions = {}): Promise<RpcProxy> {
  let failEvery = opts.failEvery ?? 0;
  let failure: ProxyFailure = opts.failure ?? '503';
  let received = 0;
  let failed = 0;
  const bodies: Array<{ method: string; params: unknown[] }> = [];

  const proxy = await startJsonRpcProxy(targetUrl, (body, forward) => {
    received += 1;
    try {
      const parsed = JSON.parse(body) as { method: string; params: unknown[] };
      bodies.push({ method: parsed.method, params: parsed.params });
    } catch {
      bodies.push({ method: '(unparseable)', params: [] });
    }
    if (failEvery > 0 && received % failEvery === 0) {
      failed += 1;
      return failure === 'hang' ? 'hang' : { status: 503, text: 'service unavailable' };
    }
    return forward();
  });

  return {
    url: proxy.url,
    received: () => received,
    failed: () => failed,
    bodies: () => bodies,
    setFailure: (next) => {
      failEvery = next.failEvery ?? 0;
      failure = next.failure ?? '503';
    },
    close: () => proxy.close(),
  };
}
