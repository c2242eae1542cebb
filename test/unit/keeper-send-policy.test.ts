import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { keccak256, Wallet } from 'ethers';
import { PrivateRpcError, PrivateSendPolicy } from '../../keeper/outbox/private-send-policy';
import { PublicSendPolicy } from '../../keeper/outbox/public-send-policy';
import { sendPoliciesOf, sendPolicyOf } from '../../keeper/outbox/send-policy-of-chain';
import type { SendPolicy } from '../../keeper/outbox/send-policy';
import { ExecutorWallet } from '../../keeper/outbox/executor-wallet';
import type { TxFees } from '../../keeper/outbox/fee-policy';
import type { RawRpc } from '../../keeper/outbox/raw-rpc';
import { classifyBroadcastFailure, SendError } from '../../keeper/outbox/send-error';
import { isOutageError } from '../../keeper/watch/chain-availability';
import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import type { KeeperConfig } from '../../shared/config/config-schema';
import { createLogger, type Logger } from '../../shared/log/create-logger';

/** A signed transfer: what the policies carry; its hash is what a relay answers. */
const KEY = `0x${'11'.repeat(32)}`;
const GWEI = 10n ** 9n;
let RAW: string;
/** What an endpoint URL may hide: a key in the path and in the query. Never in a log or an error. */
const SECRET = 's3cretKey0123456789';

interface Answer {
  status?: number;
  /** A JSON body (serialized), or text sent as it is. */
  body?: unknown;
  /** Never answer (a hung endpoint). */
  hang?: boolean;
}

interface Endpoint {
  /** The URL with a key in its path and query. */
  url: string;
  origin: string;
  /** The JSON-RPC requests received. */
  requests: Array<{ method: string; params: unknown[] }>;
  answer: (request: { id: unknown }) => Answer;
}

const servers: Server[] = [];

async function endpoint(answer: Endpoint['answer']): Promise<Endpoint> {
  const requests: Endpoint['requests'] = [];
  const ep: Endpoint = { url: '', origin: '', requests, answer };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: unknown;
        method: string;
        params: unknown[];
      };
      requests.push({ method: request.method, params: request.params });
      const a = ep.answer(request);
      if (a.hang) return;
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(text);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  ep.origin = `http://127.0.0.1:${port}`;
  ep.url = `${ep.origin}/rpc/${SECRET}?apikey=${SECRET}`;
  return ep;
}

const accepts = (): Endpoint['answer'] => (r) => ({
  body: { jsonrpc: '2.0', id: r.id, result: keccak256(RAW) },
});
const refuses =
  (code: number, message: string): Endpoint['answer'] =>
  (r) => ({ body: { jsonrpc: '2.0', id: r.id, error: { code, message } } });

/** A port nothing listens on: connection refused. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/key/${SECRET}`;
}

/** A public RPC that records its sends and answers as told. */
function publicRpc(answer: () => unknown = () => keccak256(RAW)): RawRpc & { sent: unknown[][] } {
  const sent: unknown[][] = [];
  return {
    chainId: 1,
    sent,
    async send(method: string, params: readonly unknown[] = []) {
      if (method !== 'eth_sendRawTransaction') throw new Error(`unexpected ${method}`);
      sent.push([...params]);
      const value = answer();
      if (value instanceof Error) throw value;
      return value;
    },
  };
}

const nodeError = (code: number, message: string) =>
  Object.assign(new Error('could not coalesce error'), { code: 'UNKNOWN_ERROR', error: { code, message } });

function capturedLog(): { log: Logger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = createLogger('debug', 'test', stream);
  return {
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

function privatePolicy(
  urls: string[],
  over: Partial<{
    publicRpc: RawRpc;
    fallbackAfterBlocks: number;
    fallbackToPublic: boolean;
    log: Logger;
  }> = {},
): PrivateSendPolicy {
  return new PrivateSendPolicy({
    chainId: 1,
    urls,
    publicPolicy: new PublicSendPolicy(over.publicRpc ?? publicRpc()),
    fallbackAfterBlocks: over.fallbackAfterBlocks ?? 3,
    fallbackToPublic: over.fallbackToPublic ?? false,
    log: over.log ?? createLogger('silent', 'test'),
    timeoutMs: 500,
  });
}

/** Polls `read` until `done` holds (2 s at most): for what happens after the call under test resolved. */
async function until<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + 2_000; ;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ ok: true as const }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  if (outcome.ok) throw new Error('expected a failure');
  return outcome.err;
}

beforeAll(async () => {
  RAW = await new Wallet(KEY).signTransaction({
    chainId: 1n,
    nonce: 0,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gasLimit: 21_000n,
    type: 2,
    maxFeePerGas: 20n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe('the public send policy', () => {
  it("sends and re-sends through the chain's RPC, its refusal passed on as raised", async () => {
    const rpc = publicRpc();
    const policy: SendPolicy = new PublicSendPolicy(rpc);
    await policy.broadcast(RAW);
    await policy.rebroadcast(RAW, 50);
    expect(rpc.sent).toEqual([[RAW], [RAW]]);
    const refusal = nodeError(-32000, 'nonce too low');
    const err = await failure(new PublicSendPolicy(publicRpc(() => refusal)).broadcast(RAW));
    expect(err).toBe(refusal);
  });
});

describe('the private send policy', () => {
  it('posts eth_sendRawTransaction to every private endpoint and nothing to the public RPC', async () => {
    const [a, b] = [await endpoint(accepts()), await endpoint(accepts())];
    const rpc = publicRpc();
    await privatePolicy([a.url, b.url], { publicRpc: rpc }).broadcast(RAW);
    for (const e of [a, b]) expect(e.requests).toEqual([{ method: 'eth_sendRawTransaction', params: [RAW] }]);
    expect(rpc.sent).toEqual([]);
  });

  it('succeeds when any endpoint accepts, and logs a failing one by its origin only', async () => {
    const good = await endpoint(accepts());
    const down = await deadUrl();
    const busy = await endpoint(() => ({ status: 503, body: 'Service Unavailable' }));
    const { log, lines } = capturedLog();
    await privatePolicy([down, busy.url, good.url], { log }).broadcast(RAW);
    expect(good.requests).toHaveLength(1);
    // Both failures are reported (the send did not wait for them), naming the endpoint by its origin; no key.
    const warned = await until(
      () => lines().filter((l) => l.level === 40),
      (w) => w.length >= 2,
    );
    expect(warned.map((l) => l.url).sort()).toEqual([new URL(down).origin, busy.origin].sort());
    expect(JSON.stringify(lines())).not.toContain(SECRET);
  });

  it.each([
    ['nonce too low', 'nonce-too-low'],
    ['already known', 'already-known'],
    ['replacement transaction underpriced', 'replacement-underpriced'],
    ['transaction underpriced', 'fee-too-low'],
    ['insufficient funds for gas * price + value', 'insufficient-funds'],
    ['intrinsic gas too low', 'rejected'],
  ])('throws the endpoint\'s "%s" so that it classifies as %s', async (message, kind) => {
    const refusing = await endpoint(refuses(-32000, message));
    const err = await failure(privatePolicy([refusing.url]).broadcast(RAW));
    expect(err).toBeInstanceOf(PrivateRpcError);
    expect(classifyBroadcastFailure(err)).toBe(kind);
    expect(isOutageError(err)).toBe(false);
    expect(String((err as Error).message)).not.toContain(SECRET);
  });

  it('prefers an endpoint\'s answer to an outage, and "already known" to any other answer', async () => {
    const down = await deadUrl();
    const low = await endpoint(refuses(-32000, 'nonce too low'));
    const known = await endpoint(refuses(-32000, 'already known'));
    expect(classifyBroadcastFailure(await failure(privatePolicy([down, low.url]).broadcast(RAW)))).toBe(
      'nonce-too-low',
    );
    expect(
      classifyBroadcastFailure(await failure(privatePolicy([low.url, known.url, down]).broadcast(RAW))),
    ).toBe('already-known');
  });

  it('reports endpoints that are down, busy, rate limiting or silent as the chain being unavailable, keys unseen', async () => {
    const busy = await endpoint(() => ({ status: 502, body: '<html>Bad Gateway</html>' }));
    const limited = await endpoint(refuses(-32005, 'rate limit exceeded'));
    const silent = await endpoint(() => ({ hang: true }));
    const nonsense = await endpoint(() => ({ body: { jsonrpc: '2.0', id: 1 } }));
    const err = await failure(
      privatePolicy([await deadUrl(), busy.url, limited.url, silent.url, nonsense.url]).broadcast(RAW),
    );
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect(isOutageError(err)).toBe(true);
    expect(classifyBroadcastFailure(err)).toBe('unavailable');
    expect((err as RpcUnavailableError).attempts).toBe(5);
    expect((err as Error).message).toContain('eth_sendRawTransaction');
    expect(`${(err as Error).message} ${(err as RpcUnavailableError).cause.message}`).not.toContain(SECRET);
  });

  it('re-sends privately only while the transaction has waited fewer than the fallback blocks', async () => {
    const relay = await endpoint(accepts());
    const rpc = publicRpc();
    const policy = privatePolicy([relay.url], {
      publicRpc: rpc,
      fallbackAfterBlocks: 3,
      fallbackToPublic: true,
    });
    await policy.rebroadcast(RAW, 0);
    await policy.rebroadcast(RAW, 2);
    expect(relay.requests).toHaveLength(2);
    expect(rpc.sent).toEqual([]);
  });

  it('from the fallback block on, also sends publicly when the operator allows it, warning once per transaction', async () => {
    const relay = await endpoint(accepts());
    const rpc = publicRpc();
    const { log, lines } = capturedLog();
    const policy = privatePolicy([relay.url], {
      publicRpc: rpc,
      fallbackAfterBlocks: 3,
      fallbackToPublic: true,
      log,
    });
    await policy.rebroadcast(RAW, 3);
    await policy.rebroadcast(RAW, 4);
    await policy.rebroadcast(RAW, 9);
    expect(relay.requests).toHaveLength(3);
    expect(rpc.sent).toEqual([[RAW], [RAW], [RAW]]);
    const warnings = lines().filter(
      (l) => l.msg === 'private path has not landed the transaction: sent publicly',
    );
    expect(warnings).toEqual([
      expect.objectContaining({ level: 40, txHash: keccak256(RAW), waitedBlocks: 3 }),
    ]);
  });

  it('never sends publicly when the operator does not allow it, however long the transaction waits', async () => {
    const relay = await endpoint(accepts());
    const rpc = publicRpc();
    const policy = privatePolicy([relay.url], {
      publicRpc: rpc,
      fallbackAfterBlocks: 3,
      fallbackToPublic: false,
    });
    for (const waited of [3, 10, 1_000]) await policy.rebroadcast(RAW, waited);
    expect(relay.requests).toHaveLength(3);
    expect(rpc.sent).toEqual([]);
  });

  it('on fallback succeeds if either path takes it; when both refuse, the public node has the say unless it is down', async () => {
    const down = await deadUrl();
    const low = await endpoint(refuses(-32000, 'nonce too low'));
    const fallback = (urls: string[], answer: () => unknown) =>
      privatePolicy(urls, { publicRpc: publicRpc(answer), fallbackToPublic: true }).rebroadcast(RAW, 5);

    await expect(fallback([down], () => keccak256(RAW))).resolves.toBeUndefined();
    const low2 = await endpoint(refuses(-32000, 'insufficient funds'));
    expect(
      classifyBroadcastFailure(await failure(fallback([low2.url], () => nodeError(-32000, 'already known')))),
    ).toBe('already-known');
    const unreachable = new RpcUnavailableError(
      1,
      'eth_sendRawTransaction',
      3,
      new Error('connect ECONNREFUSED'),
    );
    expect(classifyBroadcastFailure(await failure(fallback([low.url], () => unreachable)))).toBe(
      'nonce-too-low',
    );
    expect(await failure(fallback([down], () => unreachable))).toBe(unreachable);
  });

  it("makes an executor wallet's send fail with the kind the private endpoint's answer means", async () => {
    const low = await endpoint(refuses(-32000, 'nonce too low'));
    let pending = 5;
    const reads: RawRpc = {
      chainId: 1,
      async send(method: string) {
        if (method === 'eth_getTransactionCount') return `0x${(pending++).toString(16)}`;
        if (method === 'eth_getTransactionByHash') return null;
        throw new Error(`unexpected ${method}`);
      },
    };
    const wallet = new ExecutorWallet(new Wallet(KEY), reads, { sendPolicy: privatePolicy([low.url]) });
    const fees: TxFees = { type: 2, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: GWEI };
    const err = await failure(
      wallet.send({ to: '0x000000000000000000000000000000000000dEaD', data: '0x', gasLimit: 21_000n }, fees),
    );
    expect(err).toBeInstanceOf(SendError);
    expect(err).toMatchObject({ kind: 'nonce-too-low', nonce: 5 });
    expect(low.requests).toHaveLength(1);
  });
});

describe("a chain's send policy", () => {
  const keeper = (over: Partial<KeeperConfig> = {}) => ({
    privateRpcUrls: [{ chainId: 1, urls: ['https://rpc.flashbots.net/fast'] }],
    privateFallbackBlocks: 10,
    privateFallbackPublic: false,
    ...over,
  });
  const silent = createLogger('silent', 'test');

  it('is private where KEEPER_PRIVATE_RPC_URLS names the chain, public elsewhere', () => {
    expect(sendPolicyOf({ chainId: 1 }, publicRpc(), keeper(), silent)).toBeInstanceOf(PrivateSendPolicy);
    expect(sendPolicyOf({ chainId: 137 }, publicRpc(), keeper(), silent)).toBeInstanceOf(PublicSendPolicy);
  });

  it("follows the chain entry's own list first, an empty one meaning public", () => {
    const own = sendPolicyOf(
      { chainId: 137, privateRpcUrls: ['https://polygon.example/key'] },
      publicRpc(),
      keeper(),
      silent,
    );
    expect(own).toBeInstanceOf(PrivateSendPolicy);
    expect((own as PrivateSendPolicy).origins).toEqual(['https://polygon.example']);
    expect(sendPolicyOf({ chainId: 1, privateRpcUrls: [] }, publicRpc(), keeper(), silent)).toBeInstanceOf(
      PublicSendPolicy,
    );
  });

  it('is built for every chain with a client, and names the configured chains it does not serve', () => {
    const { log, lines } = capturedLog();
    const policies = sendPoliciesOf(
      [{ chainId: 1 }, { chainId: 10 }],
      { find: (chainId) => (chainId === 1 ? publicRpc() : undefined) },
      keeper({
        privateRpcUrls: [
          { chainId: 1, urls: ['https://a.example'] },
          { chainId: 56, urls: ['https://b.example'] },
        ],
      }),
      log,
    );
    expect([...policies.keys()]).toEqual([1]);
    expect(lines().find((l) => l.chainId === 56)?.msg).toBe(
      'KEEPER_PRIVATE_RPC_URLS names a chain the keeper does not serve',
    );
    expect(lines().find((l) => l.chainId === 1)?.privateRpcs).toEqual(['https://a.example']);
  });
});
