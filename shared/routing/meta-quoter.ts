/**
 * Single-chain quotes from every source of a chain: our on-chain sources and router (the quote engine, memory
 * only) and the operator's external aggregators (HTTP, within a latency budget: a slow or hung one is left out of
 * the answer, never waited for). Every candidate passes the same price-impact bound and is ranked by its output
 * net of gas priced in the output token.
 */
import { getAddress } from 'ethers';
import { sameAddress, type ExternalAggregator, type ExternalSwap } from './aggregators/external-aggregator';
import { quoteWithinBudget } from './aggregators/external-quotes';
import { DEFAULT_MAX_PRICE_IMPACT_BPS, type QuoteEngine, type QuoteRequestInput } from './quote-engine';
import type { Split } from './splitting/best-split';
import { priceImpactBps } from './splitting/price-impact';

export interface RankedQuote {
  /** aggregatorId: an on-chain source, our router, or an external aggregator. */
  sourceId: string;
  /** Gross: before the protocol fee and the integrator margin. */
  amountOut: bigint;
  /** Gas of the source's own part of the route (our contracts' overhead excluded). */
  gasEstimate: bigint;
  netAmountOut: bigint;
  /** The on-chain route (display routes, calldata); absent for an external aggregator. */
  splits?: Split[];
}

export interface MetaQuoteResult {
  /** Block of the on-chain pool state the quote read; undefined before the chain's first refresh. */
  blockNumber: number | undefined;
  /** Best first; never empty. */
  quotes: RankedQuote[];
}

export interface MetaQuoteRequest extends QuoteRequestInput {
  /** The contract that will call an external aggregator and receive its output (the chain's SwapRouter). */
  taker?: string;
}

export interface MetaQuoterOptions {
  /** Per chain, the aggregators the operator enabled (each says which chains it serves). */
  aggregators?: readonly ExternalAggregator[];
  budgetMs?: number;
  maxPriceImpactBps?: number;
}

export const DEFAULT_EXTERNAL_BUDGET_MS = 400;
/** Building an aggregator's calldata may take longer than a quote: the integrator asked for this very source. */
export const EXTERNAL_BUILD_TIMEOUT_MS = 5_000;

/** Why an external aggregator's swap cannot be offered. */
export class ExternalSwapRefused extends Error {
  constructor(
    readonly reason: 'no-route' | 'price-impact' | 'unusable',
    message: string,
  ) {
    super(message);
    this.name = 'ExternalSwapRefused';
  }
}

/**
 * Best net first; on a tie the on-chain quotes (no outside party) before external ones. The sort is stable: ties
 * keep the engine's order (a single source before our router) and the aggregators' configured order.
 */
function byNetOutput(a: RankedQuote, b: RankedQuote): number {
  const d = b.netAmountOut - a.netAmountOut;
  if (d !== 0n) return d > 0n ? 1 : -1;
  return Number(a.splits === undefined) - Number(b.splits === undefined);
}

export class MetaQuoter {
  private readonly aggregators: readonly ExternalAggregator[];
  private readonly budgetMs: number;
  private readonly maxPriceImpactBps: number;

  constructor(
    readonly engine: QuoteEngine,
    options: MetaQuoterOptions = {},
  ) {
    this.aggregators = options.aggregators ?? [];
    this.budgetMs = options.budgetMs ?? DEFAULT_EXTERNAL_BUDGET_MS;
    this.maxPriceImpactBps = options.maxPriceImpactBps ?? DEFAULT_MAX_PRICE_IMPACT_BPS;
  }

  /** The external aggregators serving the chain. */
  externalsOf(chainId: number): ExternalAggregator[] {
    return this.aggregators.filter((a) => a.supports(chainId));
  }

  external(chainId: number, id: string): ExternalAggregator | undefined {
    return this.externalsOf(chainId).find((a) => a.id === id);
  }

  /** Every aggregatorId a quote on the chain can return: the on-chain sources, our router, then the external ones. */
  sourceIds(chainId: number): string[] {
    return [...this.engine.sourceIds(chainId), ...this.externalsOf(chainId).map((a) => a.id)];
  }

  sourceName(chainId: number, sourceId: string): string {
    return this.external(chainId, sourceId)?.name ?? this.engine.sourceName(chainId, sourceId);
  }

  /**
   * The external quotes' price impact is measured against the on-chain pools' marginal prices when those price the
   * pair; an aggregator's own guard covers the pairs our pools do not hold. Undefined when nothing routes.
   */
  async quote(request: MetaQuoteRequest, signal?: AbortSignal): Promise<MetaQuoteResult | undefined> {
    const excluded = new Set(request.excludeSourceIds ?? []);
    const externals = request.taker
      ? this.externalsOf(request.chainId).filter((a) => !excluded.has(a.id))
      : [];
    const outside =
      externals.length > 0 && request.taker
        ? quoteWithinBudget(
            externals,
            {
              chainId: request.chainId,
              tokenIn: getAddress(this.engine.routingToken(request.chainId, request.tokenIn)),
              tokenOut: getAddress(this.engine.routingToken(request.chainId, request.tokenOut)),
              amountIn: request.amountIn,
              taker: request.taker,
            },
            this.budgetMs,
            signal,
          )
        : undefined;
    // The engine answers from memory while the aggregators are asked.
    const onChain = this.engine.evaluate(request);
    const quotes: RankedQuote[] = (onChain?.quotes ?? []).map((q) => ({
      sourceId: q.sourceId,
      amountOut: q.amountOut,
      gasEstimate: q.gasEstimate,
      netAmountOut: q.netAmountOut,
      splits: q.splits,
    }));
    if (outside) {
      const gasPrice = onChain?.gasPriceInTokenOut ?? 0n;
      const spot = onChain?.spotAmountOut ?? 0;
      for (const q of (await outside).quotes) {
        if (q.amountOut <= 0n) continue;
        if (spot > 0 && priceImpactBps(q.amountOut, spot) > this.maxPriceImpactBps) continue;
        quotes.push({
          sourceId: q.aggregatorId,
          amountOut: q.amountOut,
          gasEstimate: q.gasEstimate,
          netAmountOut: q.amountOut - q.gasEstimate * gasPrice,
        });
      }
    }
    if (quotes.length === 0) return undefined;
    quotes.sort(byNetOutput);
    return { blockNumber: onChain?.blockNumber, quotes };
  }

  /**
   * The aggregator's calldata for the trade, with `taker` (our SwapRouter) calling it and receiving the output. Only
   * calldata our router can execute through its external hop is accepted: no native value, and the aggregator's
   * spender must be the contract called. Bounded by the same price impact as every quote. Aggregator errors
   * (ExternalAggregatorError) propagate.
   */
  async buildExternalSwap(
    aggregator: ExternalAggregator,
    request: MetaQuoteRequest & { taker: string; slippageBps: number; account: string },
  ): Promise<ExternalSwap> {
    // EIP-55, as the aggregators' own documentation spells addresses.
    const tokenIn = getAddress(this.engine.routingToken(request.chainId, request.tokenIn));
    const tokenOut = getAddress(this.engine.routingToken(request.chainId, request.tokenOut));
    const swap = await aggregator.buildSwap(
      {
        chainId: request.chainId,
        tokenIn,
        tokenOut,
        amountIn: request.amountIn,
        taker: request.taker,
        slippageBps: request.slippageBps,
        txOrigin: request.account,
      },
      AbortSignal.timeout(EXTERNAL_BUILD_TIMEOUT_MS),
    );
    if (swap.value !== 0n || !sameAddress(swap.spender, swap.to)) {
      throw new ExternalSwapRefused(
        'unusable',
        `${aggregator.id} calldata needs a separate spender or native value`,
      );
    }
    if (swap.amountOut <= 0n) throw new ExternalSwapRefused('no-route', `${aggregator.id} offers no output`);
    const spot = this.engine.evaluate(request)?.spotAmountOut ?? 0;
    if (spot > 0 && priceImpactBps(swap.amountOut, spot) > this.maxPriceImpactBps) {
      throw new ExternalSwapRefused(
        'price-impact',
        `${aggregator.id} output is beyond the price-impact bound`,
      );
    }
    return swap;
  }
}
