import { ServiceError } from '../../../shared/domain/errors';
import type { QuoteEngine } from '../../../shared/routing/quote-engine';
import type { ChainFreshness } from '../../../shared/routing/sources/pool-state-cache';

export type MarketStateReader = Pick<QuoteEngine, 'isQuotable' | 'freshness'>;

/** Why a chain's stale state is refused, for `error.details`: numbers an operator can act on, no RPC detail. */
export function staleReason(freshness: ChainFreshness): string {
  if (freshness.reason === 'blocks') {
    return `Pool state is ${freshness.blocksBehind} blocks behind the chain head`;
  }
  return Number.isFinite(freshness.ageMs)
    ? `Pool state was last confirmed at the chain head ${Math.floor(freshness.ageMs / 1000)} s ago`
    : 'Pool state has never been confirmed at the chain head';
}

/** Whether the chain is tradable but its market data too old to act on (RPC down, or refreshes lagging). */
export function isStale(engine: MarketStateReader | undefined, chainId: number): ChainFreshness | undefined {
  if (!engine?.isQuotable(chainId)) return undefined;
  const freshness = engine.freshness(chainId);
  // Before the first load there is nothing to serve at all: the routes answer as for a pair with no route.
  return freshness.stale && freshness.reason !== 'no-state' ? freshness : undefined;
}

/**
 * Refuses to quote or build a swap from a market that may have moved: the spec's temporary 500 (QUOTE_ERROR or
 * SWAP_ERROR, retried with backoff) rather than a 200 with a price nobody can get.
 */
export function assertFreshMarket(
  engine: MarketStateReader | undefined,
  chainId: number,
  code: 'QUOTE_ERROR' | 'SWAP_ERROR',
): void {
  const stale = isStale(engine, chainId);
  if (!stale) return;
  throw new ServiceError(code, 500, `Market data of chain ${chainId} is out of date; retry with backoff`, [
    { message: staleReason(stale) },
  ]);
}
