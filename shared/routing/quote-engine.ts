/**
 * Single-chain quotes over the pool states the block follower keeps in the PoolStateCache: per liquidity source,
 * the best split over that source's pools only; plus our own multi-source router over every source's pools.
 * Reads memory only (no RPC per quote): before the first refresh of a chain there are no pools, hence no route.
 */
import { LRUCache } from 'lru-cache';
import { PoolGraph } from './pathfinding/find-routes';
import { PoolSwapMemo } from './pools/pool-swap-memo';
import type {
  CachedPools,
  ChainFreshness,
  PoolStateCache,
  StalenessBounds,
} from './sources/pool-state-cache';
import { bestSplit, type Split } from './splitting/best-split';
import { priceImpactBps, spotAmountOut } from './splitting/price-impact';
import { simulateRoute } from './splitting/route-simulation';
import { NATIVE_TOKEN_KEY } from '../domain/addresses';

/** aggregatorId of our own router, which combines every source's pools in one route set. */
export const SMART_ROUTER_ID = 'tas-smart';
export const SMART_ROUTER_NAME = 'TAS Smart Router';

/** Symbols of the stables routed through as intermediate tokens (besides the wrapped native). */
export const CONNECTOR_STABLES: readonly string[] = ['USDC', 'USDT', 'DAI'];

export interface QuoteSourceInfo {
  id: string;
  name: string;
}

export interface QuoteChain {
  chainId: number;
  /** Routing works on ERC-20s: the native pseudo-address stands for this token. */
  wrappedNative: string;
  /** Tokens allowed in the middle of a route (any casing). */
  connectors: readonly string[];
  sources: readonly QuoteSourceInfo[];
  /** When the chain's state is too old to serve (default DEFAULT_STALENESS). */
  staleness?: StalenessBounds;
}

/**
 * The split search of a single source's quote: 10 chunks, one refinement level. One venue's few pools gain little
 * from finer splits; our router, which splits across every venue, gets the full search. The same in a quote and in
 * the swap that re-routes it, so both agree at the same state.
 */
const SINGLE_SOURCE_SEARCH = { parts: 10, refineLevels: 1 } as const;

/** MAX_PRICE_IMPACT_BPS default: 15%, as ParaSwap's default maximum impact. */
export const DEFAULT_MAX_PRICE_IMPACT_BPS = 1500;

export interface QuoteEngineOptions {
  /**
   * A route whose output is further than this below its output at the pools' marginal prices (net of their fees)
   * is not offered: a trade that empties pools gets no quote rather than a ruinous one. Default 1500.
   */
  maxPriceImpactBps?: number;
}

/** STALE_AFTER_SECONDS / STALE_AFTER_BLOCKS defaults. */
export const DEFAULT_STALENESS: StalenessBounds = { afterSeconds: 30, afterBlocks: 20 };

export interface QuoteRequestInput {
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  excludeSourceIds?: readonly string[];
  /** Wei per gas unit: ranks candidates by output net of the gas they cost. */
  gasPriceWei: bigint;
}

export interface SourceQuote {
  /** The liquidity source, or SMART_ROUTER_ID. */
  sourceId: string;
  /** Gross: before the protocol fee and the integrator margin. */
  amountOut: bigint;
  /** Gas of the pools' hops only (no router overhead). */
  gasEstimate: bigint;
  splits: Split[];
  /** amountOut less the gas cost in output-token units: what results are ranked by. */
  netAmountOut: bigint;
  /** How far amountOut is below the output at the pools' marginal prices, in basis points (float, >= 0). */
  priceImpactBps: number;
}

export interface QuoteResult {
  blockNumber: number;
  /** Best first; never empty. */
  quotes: SourceQuote[];
  /**
   * The best output of any candidate route at the pools' marginal prices (a float in base units): the reference an
   * outside quote's price impact is measured against.
   */
  spotAmountOut: number;
  /** Output-token base units per gas unit at the request's gas price (0 when tokenOut has no native price). */
  gasPriceInTokenOut: bigint;
}

/** Per-chain list of connectors: the wrapped native plus the listed stables found by symbol. */
export function connectorsOf(
  wrappedNative: string,
  tokens: readonly { address: string; symbol: string }[],
): string[] {
  const stables = tokens
    .filter((t) => CONNECTOR_STABLES.includes(t.symbol.toUpperCase()))
    .map((t) => t.address.toLowerCase());
  return [...new Set([wrappedNative.toLowerCase(), ...stables])].filter((a) => a !== NATIVE_TOKEN_KEY);
}

/** Probe size for the native price in tokenOut: 1/1000 of a native unit (18 decimals on every EVM chain). */
const NATIVE_PROBE = 10n ** 15n;

/**
 * What every quote at one block would compute alike: the token graph of a set of sources' pools, and the best
 * output of the native probe into a token over it. Built on first use, dropped with the snapshot.
 */
interface SnapshotViews {
  /** By the ids of the sources whose pools it holds, joined. */
  graphs: Map<string, PoolGraph>;
  /** By `${source ids}>${token}`. */
  nativeProbeOut: Map<string, bigint>;
  /** Evaluations of this snapshot by their request (see resultKey); null: no answer. */
  results: LRUCache<string, QuoteResult | typeof NO_RESULT>;
}

/** Evaluations kept per snapshot: a block's repeated requests (integrators polling, the keeper's batch search). */
const RESULTS_PER_SNAPSHOT = 512;
const NO_RESULT = Symbol('no result');

/** Everything of a request an evaluation depends on besides the snapshot and the engine's own settings. */
function resultKey(tokenIn: string, tokenOut: string, input: QuoteRequestInput): string {
  const excluded = input.excludeSourceIds?.length
    ? [...new Set(input.excludeSourceIds)].sort().join(',')
    : '';
  return `${tokenIn}>${tokenOut}:${input.amountIn}:${input.gasPriceWei}:${excluded}`;
}

export class QuoteEngine {
  private readonly chains = new Map<number, QuoteChain>();
  private readonly views = new WeakMap<CachedPools, SnapshotViews>();
  private readonly maxPriceImpactBps: number;

  constructor(
    private readonly cache: PoolStateCache,
    chains: readonly QuoteChain[],
    options: QuoteEngineOptions = {},
  ) {
    for (const chain of chains) this.chains.set(chain.chainId, chain);
    const max = options.maxPriceImpactBps ?? DEFAULT_MAX_PRICE_IMPACT_BPS;
    if (!Number.isFinite(max) || max < 0 || max > 10_000) {
      throw new RangeError('maxPriceImpactBps must be within 0..10000');
    }
    this.maxPriceImpactBps = max;
  }

  /** Whether the chain has sources configured (it may still have no pools loaded yet). */
  isQuotable(chainId: number): boolean {
    return this.chains.has(chainId);
  }

  /** Block of the pool states quotes read now; undefined before the chain's first refresh. */
  blockNumber(chainId: number): number | undefined {
    return this.cache.get(chainId)?.blockNumber;
  }

  /**
   * Whether the chain's pool state may be served now: quotes, swaps, reference prices and the keeper's claims
   * all refuse a stale chain rather than act on a market that may have moved.
   */
  freshness(chainId: number, nowMs?: number): ChainFreshness {
    return this.cache.freshness(chainId, this.chains.get(chainId)?.staleness ?? DEFAULT_STALENESS, nowMs);
  }

  /** Routing address of a token: lowercase, the native pseudo-address as the wrapped native. */
  routingToken(chainId: number, address: string): string {
    const chain = this.chainOf(chainId);
    const lower = address.toLowerCase();
    return lower === NATIVE_TOKEN_KEY ? chain.wrappedNative.toLowerCase() : lower;
  }

  /** Every aggregatorId a quote on the chain can return: its sources, then our router. */
  sourceIds(chainId: number): string[] {
    return [...this.chainOf(chainId).sources.map((s) => s.id), SMART_ROUTER_ID];
  }

  sourceName(chainId: number, sourceId: string): string {
    if (sourceId === SMART_ROUTER_ID) return SMART_ROUTER_NAME;
    return this.chainOf(chainId).sources.find((s) => s.id === sourceId)?.name ?? sourceId;
  }

  /** Undefined when no candidate can route the amount (including before the chain's first refresh). */
  quote(input: QuoteRequestInput): QuoteResult | undefined {
    const result = this.evaluate(input);
    return result && result.quotes.length > 0 ? result : undefined;
  }

  /**
   * As `quote`, but answers (with no quotes) when every candidate was left out, so the reference figures (marginal
   * output, gas price in tokenOut) still price outside quotes. Undefined before the first refresh or for no swap.
   */
  evaluate(input: QuoteRequestInput): QuoteResult | undefined {
    const chain = this.chainOf(input.chainId);
    const cached = this.cache.get(input.chainId);
    if (!cached || input.amountIn <= 0n) return undefined;
    const tokenIn = this.routingToken(input.chainId, input.tokenIn);
    const tokenOut = this.routingToken(input.chainId, input.tokenOut);
    // Wrapping and unwrapping is no swap a source quotes.
    if (tokenIn === tokenOut) return undefined;
    // Pool states are immutable per snapshot and the search is a pure function of them and the request: the same
    // request on the same snapshot gets the same (frozen) answer; a new block's snapshot starts afresh.
    const views = this.viewsOf(cached);
    const key = resultKey(tokenIn, tokenOut, input);
    const known = views.results.get(key);
    if (known !== undefined) return known === NO_RESULT ? undefined : known;
    const result = this.search(chain, cached, views, tokenIn, tokenOut, input);
    views.results.set(key, result ? freezeResult(result) : NO_RESULT);
    return result;
  }

  private search(
    chain: QuoteChain,
    cached: CachedPools,
    views: SnapshotViews,
    tokenIn: string,
    tokenOut: string,
    input: QuoteRequestInput,
  ): QuoteResult | undefined {
    // An excluded aggregator is not asked; our router still combines every source's pools (it is an aggregator
    // of its own, so excluding all but it still gets its quote).
    const excluded = new Set(input.excludeSourceIds ?? []);
    const sources = chain.sources.filter((s) => !excluded.has(s.id));
    const graphOf = (ids: readonly string[]): PoolGraph => {
      const key = ids.join(',');
      let graph = views.graphs.get(key);
      if (!graph) {
        graph = new PoolGraph(cached.pools.filter((p) => ids.includes(p.sourceId)));
        views.graphs.set(key, graph);
      }
      return graph;
    };
    const allIds = chain.sources.map((s) => s.id);
    const gasPriceInTokenOut = this.gasPriceInToken(
      chain,
      views,
      allIds,
      graphOf(allIds),
      tokenOut,
      input.gasPriceWei,
    );

    const candidates: { id: string; sourceIds: readonly string[] }[] = sources.map((s) => ({
      id: s.id,
      sourceIds: [s.id],
    }));
    if (!excluded.has(SMART_ROUTER_ID)) candidates.push({ id: SMART_ROUTER_ID, sourceIds: allIds });

    // Every search below reads the same pool states: a hop one source's search simulated is free for the rest.
    const memo = new PoolSwapMemo();
    const quotes: SourceQuote[] = [];
    let bestSpot = 0;
    for (const candidate of candidates) {
      if (candidate.sourceIds.length === 0) continue;
      const routes = graphOf(candidate.sourceIds).routes(tokenIn, tokenOut, {
        connectors: chain.connectors,
        estimateAmountIn: input.amountIn,
      });
      const result = bestSplit(routes, input.amountIn, {
        gasPriceInTokenOut,
        memo,
        ...(candidate.id === SMART_ROUTER_ID ? {} : SINGLE_SOURCE_SEARCH),
      });
      if (!result || result.amountOut === 0n) continue;
      const spot = spotAmountOut(result.splits);
      if (spot > bestSpot) bestSpot = spot;
      const impact = priceImpactBps(result.amountOut, spot);
      if (impact > this.maxPriceImpactBps) continue;
      quotes.push({
        sourceId: candidate.id,
        amountOut: result.amountOut,
        gasEstimate: result.gasEstimate,
        splits: result.splits,
        netAmountOut: result.amountOut - result.gasEstimate * gasPriceInTokenOut,
        priceImpactBps: impact,
      });
    }
    // Best net first; on a tie a single source before our router (same route, fewer parties), then by id.
    quotes.sort((a, b) => {
      const d = b.netAmountOut - a.netAmountOut;
      if (d !== 0n) return d > 0n ? 1 : -1;
      const smart = Number(a.sourceId === SMART_ROUTER_ID) - Number(b.sourceId === SMART_ROUTER_ID);
      return smart || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0);
    });
    return { blockNumber: cached.blockNumber, quotes, spotAmountOut: bestSpot, gasPriceInTokenOut };
  }

  private chainOf(chainId: number): QuoteChain {
    const chain = this.chains.get(chainId);
    if (!chain) throw new Error(`chain ${chainId} has no liquidity sources`);
    return chain;
  }

  private viewsOf(cached: CachedPools): SnapshotViews {
    let views = this.views.get(cached);
    if (!views) {
      views = {
        graphs: new Map(),
        nativeProbeOut: new Map(),
        results: new LRUCache({ max: RESULTS_PER_SNAPSHOT }),
      };
      this.views.set(cached, views);
    }
    return views;
  }

  /**
   * Output-token units per gas unit: the gas price times the native token's price in tokenOut, read from the
   * best route for a small probe. 0 (gas ignored) when tokenOut has no route from the wrapped native.
   */
  private gasPriceInToken(
    chain: QuoteChain,
    views: SnapshotViews,
    sourceIds: readonly string[],
    graph: PoolGraph,
    tokenOut: string,
    gasPriceWei: bigint,
  ): bigint {
    if (gasPriceWei <= 0n) return 0n;
    const wrapped = chain.wrappedNative.toLowerCase();
    if (tokenOut === wrapped) return gasPriceWei;
    const key = `${sourceIds.join(',')}>${tokenOut}`;
    let best = views.nativeProbeOut.get(key);
    if (best === undefined) {
      best = 0n;
      const routes = graph.routes(wrapped, tokenOut, {
        connectors: chain.connectors,
        maxRoutes: 3,
        estimateAmountIn: NATIVE_PROBE,
      });
      for (const route of routes) {
        const out = simulateRoute(route, NATIVE_PROBE)?.amountOut ?? 0n;
        if (out > best) best = out;
      }
      views.nativeProbeOut.set(key, best);
    }
    return (gasPriceWei * best) / NATIVE_PROBE;
  }
}

/** A cached answer is shared by every caller: frozen (the result, its list and quotes) so none can change it. */
function freezeResult(result: QuoteResult): QuoteResult {
  for (const quote of result.quotes) Object.freeze(quote);
  Object.freeze(result.quotes);
  return Object.freeze(result);
}
