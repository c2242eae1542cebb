import { readiness, type MarketFeed, type Readiness } from '../shared/metrics/chain-readiness';

/** A store answers a trivial query well within this, or the keeper is not healthy. */
export const STORE_PROBE_TIMEOUT_MS = 2_000;

/** One chain's block feed as the health check reads it (the keeper's BlockFeedWatch). */
export interface FeedHealth {
  readonly chainId: number;
  /** How long the feed has been stalled now (0 when it delivers or no block is expected). */
  stalledFor(now: number): number;
}

export interface KeeperHealthParts {
  /** A cheap round trip to the store (`select 1`). */
  probeStore: () => PromiseLike<unknown>;
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
  storeTimeoutMs?: number;
  now?: () => number;
}

export interface KeeperHealth {
  /** `/healthz`: the store answers and no chain's block feed has been stalled beyond the bound. */
  healthy(): Promise<boolean>;
  /** `/readyz` (issue #7): every traded chain (or the one asked for) serves fresh pool state. */
  ready(chainId: number | undefined): Readiness;
}

/** The keeper's liveness and readiness, for `createAdminServer(registry, health.healthy, health.ready)`. */
export function keeperHealth(parts: KeeperHealthParts): KeeperHealth {
  const now = parts.now ?? Date.now;
  const timeoutMs = parts.storeTimeoutMs ?? STORE_PROBE_TIMEOUT_MS;
  return {
    async healthy() {
      if (parts.stopping()) return false;
      const at = now();
      for (const feed of parts.feeds()) if (feed.stalledFor(at) > parts.stalledAtMostMs) return false;
      return storeAnswers(parts.probeStore, timeoutMs);
    },
    ready: (chainId) => readiness(parts.market, parts.chainIds, chainId),
  };
}

/** A store that hangs is as dead as one that refuses: the probe gives up after `timeoutMs`. */
async function storeAnswers(probe: () => PromiseLike<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([probe().then(() => true), timedOut]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
