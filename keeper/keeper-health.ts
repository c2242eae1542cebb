import { readiness, type MarketFeed, type Readiness } from '../shared/metrics/chain-readiness';

/** One chain's block feed as the health check reads it (the keeper's BlockFeedWatch). */
export interface FeedHealth {
  readonly chainId: number;
  /** How long the feed has been stalled now (0 when it delivers or no block is expected). */
  stalledFor(now: number): number;
}

export interface KeeperHealthParts {
  /** Whether the store answers a cheap round trip in time (the keeper's StoreWatch). */
  storeAnswers: () => Promise<boolean>;
  /** Every traded chain's block feed. */
  feeds: () => Iterable<FeedHealth>;
  /** The pool state the keeper prices with, and the chains it trades: readiness as the api reports it. */
  market: MarketFeed;
  chainIds: readonly number[];
  /** Whether the keeper is shutting down (SIGTERM): no longer live for a supervisor. */
  stopping: () => boolean;
  /**
   * How long a feed may stay stalled before the keeper is unhealthy: the stall is an alert first; only one that
   * lasts this long more means a keeper that no longer works (KEEPER_BLOCK_STALL_MS is a fair value).
   */
  stalledAtMostMs: number;
  now?: () => number;
}

export interface KeeperHealth {
  /** `/healthz`: the store answers and no chain's block feed has been stalled beyond the bound. */
  healthy(): Promise<boolean>;
  /** `/readyz` (issue #7): every traded chain (or the one asked for) serves fresh pool state. */
  ready(chainId: number | undefined): Readiness;
  /** `/readyz`'s store: whether it answers now. */
  storeAnswers(): Promise<boolean>;
}

/** The keeper's liveness and readiness, for `createAdminServer(registry, health)`. */
export function keeperHealth(parts: KeeperHealthParts): KeeperHealth {
  const now = parts.now ?? Date.now;
  return {
    async healthy() {
      if (parts.stopping()) return false;
      const at = now();
      for (const feed of parts.feeds()) if (feed.stalledFor(at) > parts.stalledAtMostMs) return false;
      return parts.storeAnswers();
    },
    ready: (chainId) => readiness(parts.market, parts.chainIds, chainId),
    storeAnswers: () => parts.storeAnswers(),
  };
}
