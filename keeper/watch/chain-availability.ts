import { RpcTimeoutError, RpcUnavailableError } from '../../shared/chain/rpc-errors';
import type { QuoteEngine } from '../../shared/routing/quote-engine';
import { SendError } from '../outbox/send-error';

/**
 * Whether an error says the chain could not be reached (every RPC URL failed or timed out, or a send found no
 * node), as opposed to an answer of the chain (a revert, a refused transaction): no fault of any order.
 */
export function isOutageError(err: unknown): boolean {
  return (
    err instanceof RpcUnavailableError ||
    err instanceof RpcTimeoutError ||
    (err instanceof SendError && err.kind === 'unavailable')
  );
}

/** Why the keeper claims nothing on a chain now. */
export type HoldReason = 'stale-state' | 'rpc-failing';

/**
 * One chain's availability as the keeper sees it: its pool state's freshness (the block follower's polls) and the
 * keeper's own RPC calls. While either fails, the chain's orders are not claimed (their prices may be long gone and
 * nothing could be sent); the keeper takes them up again once both recover.
 */
export class ChainAvailability {
  private rpcFailing = false;

  constructor(
    private readonly chainId: number,
    private readonly feed: Pick<QuoteEngine, 'freshness'>,
  ) {}

  /** The state is stale: quotes and reference prices from it are refused too. */
  stale(nowMs: number): boolean {
    return this.feed.freshness(this.chainId, nowMs).stale;
  }

  /** A keeper RPC call found the chain unreachable. */
  rpcFailed(): void {
    this.rpcFailing = true;
  }

  /** A keeper RPC call was answered. */
  rpcAnswered(): void {
    this.rpcFailing = false;
  }

  heldBy(nowMs: number): HoldReason | undefined {
    if (this.stale(nowMs)) return 'stale-state';
    return this.rpcFailing ? 'rpc-failing' : undefined;
  }
}
