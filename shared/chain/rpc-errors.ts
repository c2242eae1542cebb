import { redactUrls } from './redact-url';

/**
 * What a failed attempt means for the call:
 * - timeout / transient: the endpoint failed (network, HTTP 429/5xx, node overloaded or behind); another attempt,
 *   on the next URL, may succeed;
 * - deterministic: the node answered and the answer will not change (execution reverted, invalid params, unknown
 *   method); retrying only adds load, so the caller gets the error at once.
 */
export type RpcFailureKind = 'timeout' | 'transient' | 'deterministic';

/** Raised by our transport when a request runs past the per-call timeout. */
export class RpcTimeoutError extends Error {
  override readonly name = 'RpcTimeoutError';
  readonly code = 'TIMEOUT';

  constructor(readonly timeoutMs: number) {
    super(`RPC request timed out after ${timeoutMs} ms`);
  }
}

/** Every attempt of one call failed: no configured URL of the chain could answer it. */
export class RpcUnavailableError extends Error {
  override readonly name = 'RpcUnavailableError';
  /** The last attempt's error, reduced to a message without URLs' credentials and its code. */
  override readonly cause: Error;

  constructor(
    readonly chainId: number,
    readonly method: string,
    readonly attempts: number,
    lastError: unknown,
  ) {
    const cause = sanitizedError(lastError);
    super(
      `chain ${chainId}: ${method} failed after ${attempts} attempt(s) on every RPC URL: ${cause.message}`,
    );
    this.cause = cause;
  }
}

/** ethers error codes that describe the request itself, not the endpoint. */
const DETERMINISTIC_ETHERS_CODES = new Set([
  'INVALID_ARGUMENT',
  'MISSING_ARGUMENT',
  'UNEXPECTED_ARGUMENT',
  'NUMERIC_FAULT',
  'UNSUPPORTED_OPERATION',
  'CALL_EXCEPTION',
  'INSUFFICIENT_FUNDS',
  'NONCE_EXPIRED',
  'REPLACEMENT_UNDERPRICED',
  'UNCONFIGURED_NAME',
  'ACTION_REJECTED',
]);

/** JSON-RPC codes of overloaded or lagging nodes: -32005 limit exceeded, -32603 internal error. */
const TRANSIENT_RPC_CODES = new Set([-32005, -32603]);
/** Messages nodes send when they are behind, pruned, rate limiting or overloaded, whatever code they use. */
const TRANSIENT_RPC_MESSAGE =
  /header not found|unknown block|missing trie node|rate limit|too many requests|limit exceeded|exceeded .*capacity|timed? ?out|try again|temporarily|busy|overloaded|unavailable/i;
const REVERT_MESSAGE = /revert/i;

interface JsonRpcErrorBody {
  code: number;
  message: string;
}

/** Classifies the error of one attempt (thrown by ethers, fetch or our transport). */
export function classifyRpcFailure(err: unknown): RpcFailureKind {
  if (isTimeout(err)) return 'timeout';
  const rpc = jsonRpcErrorOf(err);
  if (rpc) {
    // A revert is the contract's answer (JSON-RPC code 3 on geth), even when a node wraps it in -32603.
    if (rpc.code === 3 || REVERT_MESSAGE.test(rpc.message)) return 'deterministic';
    if (TRANSIENT_RPC_CODES.has(rpc.code) || TRANSIENT_RPC_MESSAGE.test(rpc.message)) return 'transient';
    return 'deterministic';
  }
  const code = propertyOf(err, 'code');
  if (typeof code === 'string' && DETERMINISTIC_ETHERS_CODES.has(code)) return 'deterministic';
  // Network errors, HTTP errors (ethers SERVER_ERROR), malformed responses: the endpoint failed.
  return 'transient';
}

function isTimeout(err: unknown): boolean {
  const name = propertyOf(err, 'name');
  return err instanceof RpcTimeoutError || name === 'TimeoutError' || propertyOf(err, 'code') === 'TIMEOUT';
}

/** The node's JSON-RPC error object: ethers keeps it in `info.error` (calls) or `error` (other methods). */
function jsonRpcErrorOf(err: unknown): JsonRpcErrorBody | undefined {
  for (const candidate of [propertyOf(propertyOf(err, 'info'), 'error'), propertyOf(err, 'error')]) {
    const code = propertyOf(candidate, 'code');
    const message = propertyOf(candidate, 'message');
    if (typeof code === 'number' && typeof message === 'string') return { code, message };
  }
  return undefined;
}

function propertyOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * A copy of an error that is safe to log and return: the message with URLs redacted, the code kept, and none of
 * the original's fields (ethers errors hold the request, whose URL may carry credentials).
 */
export function sanitizedError(err: unknown): Error {
  const rpc = jsonRpcErrorOf(err);
  // ethers appends every detail of the request to its message; its short message is what an operator needs.
  const short = propertyOf(err, 'shortMessage');
  const message = typeof short === 'string' ? short : err instanceof Error ? err.message : String(err);
  // fetch reports network failures as 'fetch failed' with the reason (ECONNREFUSED…) in `cause`.
  const reason = propertyOf(propertyOf(err, 'cause'), 'message');
  const text = rpc
    ? `${message} (JSON-RPC ${rpc.code}: ${rpc.message})`
    : typeof reason === 'string'
      ? `${message}: ${reason}`
      : message;
  const safe = new Error(redactUrls(text));
  const code = propertyOf(err, 'code') ?? propertyOf(propertyOf(err, 'cause'), 'code');
  if (typeof code === 'string' || typeof code === 'number') Object.assign(safe, { code });
  return safe;
}
