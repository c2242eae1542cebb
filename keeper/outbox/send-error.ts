import { RpcUnavailableError, sanitizedError } from '../../shared/chain/rpc-errors';

/**
 * Why a send or a replacement failed, and so what the caller does:
 * - `nonce-too-low`: the nonce was taken by another transaction (a send from the same key elsewhere, or, for a
 *   replacement, the mined original). A send was resynced and can be retried at once; a replacement's caller
 *   looks for the receipt.
 * - `replacement-underpriced`: a transaction with that nonce is pending and the new fees do not beat it by the
 *   node's price bump.
 * - `fee-too-low`: below the node's minimum tip or the block's base fee; retry with current fees.
 * - `insufficient-funds`: the wallet cannot pay gas × price + value; it is marked low and skipped.
 * - `unavailable`: no node answered and the transaction is not known to the node: nothing was sent.
 * - `before-broadcast-failed`: the caller's hook threw; nothing was sent.
 * - `rejected`: any other refusal (intrinsic gas, block gas limit, invalid transaction); retrying will not help.
 * In every case but `replacement-underpriced` on a send, the nonce of a failed send is free again.
 */
export type SendErrorKind =
  | 'nonce-too-low'
  | 'replacement-underpriced'
  | 'fee-too-low'
  | 'insufficient-funds'
  | 'unavailable'
  | 'before-broadcast-failed'
  | 'rejected';

/** How the node answered eth_sendRawTransaction, as far as the submit stage cares. */
export type BroadcastFailure = Exclude<SendErrorKind, 'before-broadcast-failed'> | 'already-known';

/** A failed send or replacement; the message holds the node's reason (no URLs, no keys), never the raw transaction. */
export class SendError extends Error {
  override readonly name = 'SendError';

  constructor(
    readonly kind: SendErrorKind,
    /** The nonce the transaction was signed with; -1 when no nonce could be had (the chain was unreachable). */
    readonly nonce: number,
    /** The hash of the signed transaction that was refused; '' when nothing was signed. */
    readonly hash: string,
    reason: string,
  ) {
    super(`${kind}: ${reason}`);
  }
}

const ALREADY_KNOWN = /already known|known transaction|already imported|already in (the )?(tx)?pool/i;
// ganache without pending transactions of the sender: "the tx doesn't have the correct nonce. account has nonce of: 5
// tx has nonce of: 4" (it says so only for a nonce below the account's).
const NONCE_TOO_LOW =
  /nonce too low|nonce is too low|nonce has already been used|NONCE_EXPIRED|doesn't have the correct nonce/i;
// anvil: "replacement fee too low" for a replacement paying less than the pending transaction.
const REPLACEMENT_UNDERPRICED =
  /replacement transaction underpriced|replacement fee too low|REPLACEMENT_UNDERPRICED/i;
const FEE_TOO_LOW =
  /underpriced|less than (the )?block base fee|fee cap less than|max fee per gas less than|gas price too low|tip too low|below (the )?minimum/i;
const INSUFFICIENT_FUNDS = /insufficient funds|INSUFFICIENT_FUNDS/i;

/**
 * Reads a failed eth_sendRawTransaction. ganache refuses a replacement with too small a bump as "transaction
 * underpriced", as geth does a tip under its minimum: both read `fee-too-low` here and the sender tells them apart
 * by whether the nonce is taken.
 */
export function classifyBroadcastFailure(err: unknown): BroadcastFailure {
  if (err instanceof RpcUnavailableError) return 'unavailable';
  const text = broadcastFailureText(err);
  if (ALREADY_KNOWN.test(text)) return 'already-known';
  if (NONCE_TOO_LOW.test(text)) return 'nonce-too-low';
  if (REPLACEMENT_UNDERPRICED.test(text)) return 'replacement-underpriced';
  if (INSUFFICIENT_FUNDS.test(text)) return 'insufficient-funds';
  if (FEE_TOO_LOW.test(text)) return 'fee-too-low';
  return 'rejected';
}

/** The node's reason with ethers' error code, safe to log. */
export function broadcastFailureText(err: unknown): string {
  const safe = sanitizedError(err);
  const code = (safe as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${safe.message}` : safe.message;
}
