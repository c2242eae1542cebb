import { Gauge, type Registry } from 'prom-client';
import type { QuoteEngine } from '../routing/quote-engine';

export type MarketFeed = Pick<QuoteEngine, 'isQuotable' | 'freshness' | 'blockNumber'>;

/** One chain's market feed as `/readyz` reports it. */
export interface ChainReadiness {
  chainId: number;
  /** `fresh`: served; `stale`: refused until the feed recovers; `loading`: no state yet; `not-traded`: no contracts. */
  status: 'fresh' | 'stale' | 'loading' | 'not-traded';
  /** Block of the pool state served. */
  blockNumber: number | null;
  /** Seconds since the state was last confirmed at the chain's head. */
  ageSeconds: number | null;
  blocksBehind: number;
}

export interface Readiness {
  ready: boolean;
  chains: ChainReadiness[];
}

export function chainReadiness(feed: MarketFeed, chainId: number, now = Date.now()): ChainReadiness {
  if (!feed.isQuotable(chainId)) {
    return { chainId, status: 'not-traded', blockNumber: null, ageSeconds: null, blocksBehind: 0 };
  }
  const freshness = feed.freshness(chainId, now);
  const status = !freshness.stale ? 'fresh' : freshness.reason === 'no-state' ? 'loading' : 'stale';
  return {
    chainId,
    status,
    blockNumber: feed.blockNumber(chainId) ?? null,
    ageSeconds: Number.isFinite(freshness.ageMs) ? Math.floor(freshness.ageMs / 1000) : null,
    blocksBehind: freshness.blocksBehind,
  };
}

/** Ready when every traded chain (or the one asked for) serves fresh state. */
export function readiness(feed: MarketFeed, chainIds: readonly number[], only?: number): Readiness {
  const now = Date.now();
  const chains = chainIds
    .filter((id) => only === undefined || id === only)
    .map((id) => chainReadiness(feed, id, now));
  return {
    ready: chains.length > 0 && chains.every((c) => c.status !== 'stale' && c.status !== 'loading'),
    chains,
  };
}

/**
 * `<prefix>chain_state_stale{chain_id}` (1 while refused, loading included) and the state's age, read at each
 * scrape so Grafana sees an outage as it happens.
 */
export function registerChainFreshnessGauges(
  registry: Registry,
  prefix: string,
  feed: MarketFeed,
  chainIds: readonly number[],
): void {
  const traded = () =>
    chainIds.map((id) => chainReadiness(feed, id)).filter((c) => c.status !== 'not-traded');
  new Gauge({
    name: `${prefix}chain_state_stale`,
    help: 'Whether a chain serves no market data (stale or not loaded): quotes, swaps and orders wait for it',
    labelNames: ['chain_id'] as const,
    registers: [registry],
    collect() {
      for (const c of traded()) this.set({ chain_id: String(c.chainId) }, c.status === 'fresh' ? 0 : 1);
    },
  });
  new Gauge({
    name: `${prefix}chain_state_age_seconds`,
    help: "Seconds since a chain's pool state was last confirmed at the chain's head",
    labelNames: ['chain_id'] as const,
    registers: [registry],
    collect() {
      for (const c of traded())
        if (c.ageSeconds !== null) this.set({ chain_id: String(c.chainId) }, c.ageSeconds);
    },
  });
}
