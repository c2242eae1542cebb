import { keccak256 } from 'ethers';
import { RpcUnavailableError, classifyRpcFailure, sanitizedError } from '../../shared/chain/rpc-errors';
import type { Logger } from '../../shared/log/create-logger';
import { classifyBroadcastFailure } from './send-error';
import type { SendPolicy } from './send-policy';

export interface PrivateSendPolicyOptions {
  chainId: number;
  /** The chain's private endpoints (at least one). They may carry API keys: only their origins are logged. */
  urls: readonly string[];
  /** The chain's public path, used only for the fallback. */
  publicPolicy: SendPolicy;
  /** Blocks a transaction may wait unmined before the fallback applies. */
  fallbackAfterBlocks: number;
  /** Whether the fallback also sends publicly; otherwise the transaction stays private, however long it waits. */
  fallbackToPublic: boolean;
  log: Logger;
  /** Per request to an endpoint, the answer read included (default 5000 ms). */
  timeoutMs?: number;
}

export const DEFAULT_PRIVATE_TIMEOUT_MS = 5000;

/**
 * A JSON-RPC error a private endpoint answered. It carries the node's `error` object where ethers puts it, so the
 * send-error classification (already known, nonce too low, underpriced…) and `sanitizedError` read it exactly as
 * they read a public node's refusal.
 */
export class PrivateRpcError extends Error {
  override readonly name = 'PrivateRpcError';

  constructor(
    /** The endpoint's origin (scheme, host, port): never its path or query, which may hold a key. */
    readonly origin: string,
    readonly error: { code: number; message: string },
  ) {
    super(`private RPC ${origin} refused the transaction: ${error.message}`);
  }
}

interface Endpoint {
  url: string;
  origin: string;
}

/** How many transactions' fallback warnings are remembered: enough for every transaction in flight at once. */
const NOTED_LIMIT = 4096;

/**
 * Sends the keeper's transactions to private endpoints (Flashbots Protect, MEV Blocker…) so that they are not seen
 * in the public mempool before they are mined: nobody can sandwich or front-run a batch they cannot see. Receipts,
 * nonces and reads stay on the public RPCs. Each broadcast goes to every endpoint at once (each reaches its own
 * builders, so more endpoints land sooner) and succeeds when any accepts. A transaction that has waited
 * `fallbackAfterBlocks` goes out publicly too, if the operator allows it: a private path that cannot land it (a
 * relay down, builders that skip it) must not hold orders forever when the operator prefers inclusion to privacy.
 */
export class PrivateSendPolicy implements SendPolicy {
  readonly publicPool = false;
  private readonly chainId: number;
  private readonly endpoints: readonly Endpoint[];
  private readonly timeoutMs: number;
  private readonly log: Logger;
  /** Hashes whose fallback was logged: once per transaction, not at every block it keeps waiting. */
  private readonly noted = new Set<string>();
  private requestId = 0;

  constructor(private readonly opts: PrivateSendPolicyOptions) {
    if (opts.urls.length === 0) throw new Error(`chain ${opts.chainId}: a private send policy needs a URL`);
    if (!Number.isInteger(opts.fallbackAfterBlocks) || opts.fallbackAfterBlocks < 1)
      throw new Error(`fallbackAfterBlocks must be a positive integer, got ${opts.fallbackAfterBlocks}`);
    this.chainId = opts.chainId;
    this.endpoints = opts.urls.map((url) => ({ url, origin: originOf(url) }));
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PRIVATE_TIMEOUT_MS;
    this.log = opts.log;
  }

  /** The endpoints' origins, for a start-up line (the URLs themselves may hold keys). */
  get origins(): string[] {
    return this.endpoints.map((e) => e.origin);
  }

  /**
   * Every endpoint is asked; the first acceptance wins. When none accepts, an endpoint's own answer is thrown
   * ("already known" first, since it means the transaction is out), and when none answered at all, an
   * RpcUnavailableError: the same outage the public path reports when no node can be reached.
   */
  async broadcast(raw: string): Promise<void> {
    try {
      await Promise.any(this.endpoints.map((endpoint) => this.sendTo(endpoint, raw)));
    } catch (err) {
      const errors: unknown[] = err instanceof AggregateError ? err.errors : [err];
      const answered = errors.filter((e) => e instanceof PrivateRpcError && !isOutageLike(e));
      const told = answered.find((e) => classifyBroadcastFailure(e) === 'already-known') ?? answered[0];
      if (told) throw told;
      throw new RpcUnavailableError(this.chainId, 'eth_sendRawTransaction', errors.length, errors.at(-1));
    }
  }

  async rebroadcast(raw: string, waitedBlocks: number): Promise<void> {
    if (waitedBlocks < this.opts.fallbackAfterBlocks) return this.broadcast(raw);
    const txHash = keccak256(raw);
    if (!this.opts.fallbackToPublic) {
      this.noteOnce(
        txHash,
        waitedBlocks,
        'private path has not landed the transaction: kept private (no fallback)',
      );
      return this.broadcast(raw);
    }
    this.noteOnce(txHash, waitedBlocks, 'private path has not landed the transaction: sent publicly');
    const [privately, publicly] = await Promise.allSettled([
      this.broadcast(raw),
      this.opts.publicPolicy.broadcast(raw),
    ]);
    if (privately.status === 'fulfilled' || publicly.status === 'fulfilled') return;
    // Both refused. The public node's answer says most (nonces and receipts are read there), unless it could not
    // be reached and a private endpoint did answer.
    const publicReason: unknown = publicly.reason;
    const privateReason: unknown = privately.reason;
    throw isOutageLike(publicReason) && !isOutageLike(privateReason) ? privateReason : publicReason;
  }

  private async sendTo(endpoint: Endpoint, raw: string): Promise<void> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++this.requestId,
      method: 'eth_sendRawTransaction',
      params: [raw],
    });
    try {
      await this.post(endpoint, body);
    } catch (err) {
      const outage = isOutageLike(err);
      // An endpoint that fails is the operator's to look at; a refusal is the caller's to handle (and log).
      this.log[outage ? 'warn' : 'debug'](
        { chainId: this.chainId, url: endpoint.origin },
        `private eth_sendRawTransaction ${outage ? 'failed' : 'refused'}: ${sanitizedError(err).message}`,
      );
      throw err;
    }
  }

  private async post(endpoint: Endpoint, body: string): Promise<void> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      const reason =
        (err as { name?: unknown }).name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : sanitizedError(err).message;
      // Built anew: the fetch error may quote the URL, and with it the key.
      throw new Error(`private RPC ${endpoint.origin}: ${reason}`);
    }
    const answer = parseJson(text);
    const error = jsonRpcErrorOf(answer);
    if (error) throw new PrivateRpcError(endpoint.origin, error);
    if (status < 200 || status >= 300) throw new Error(`private RPC ${endpoint.origin}: HTTP ${status}`);
    if (typeof answer !== 'object' || answer === null || !('result' in answer))
      throw new Error(`private RPC ${endpoint.origin}: answered no JSON-RPC result`);
  }

  private noteOnce(txHash: string, waitedBlocks: number, message: string): void {
    if (this.noted.has(txHash)) return;
    this.noted.add(txHash);
    if (this.noted.size > NOTED_LIMIT) this.noted.delete(this.noted.values().next().value!);
    this.log.warn(
      { chainId: this.chainId, txHash, waitedBlocks, afterBlocks: this.opts.fallbackAfterBlocks },
      message,
    );
  }
}

/**
 * Whether a failure says nothing about the transaction: no answer (network, timeout, HTTP error), a node too
 * busy to answer (rate limit, -32005, -32603) or no node at all. Any other refusal is the node's verdict.
 */
function isOutageLike(err: unknown): boolean {
  return err instanceof RpcUnavailableError || classifyRpcFailure(err) !== 'deterministic';
}

/** `scheme://host[:port]`: what may be logged of a URL whose path or query may hold an API key. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '[unparseable url]';
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function jsonRpcErrorOf(answer: unknown): { code: number; message: string } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const error = (answer as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return { code: typeof code === 'number' ? code : -32000, message };
}
