import { getAddress } from 'ethers';
import type { FeeBreakdown } from '../../../shared/routing/fees';
import type { MetaQuoter, MetaQuoteResult, RankedQuote } from '../../../shared/routing/meta-quoter';
import type { DataFeeTransaction } from './data-fee-transaction';
import type { GAS_MULTIPLIERS } from './schemas';

export interface QuoteDex {
  name: string;
  percentage: number;
}

export interface QuoteSubRoute {
  from: string;
  to: string;
  dexes: QuoteDex[];
}

export interface QuoteRoute {
  percentage: number;
  subRoutes: QuoteSubRoute[];
}

export interface SingleChainQuote {
  outAmount: string;
  estimatedGas: string;
  aggregatorId: string;
  aggregatorOrder: string[];
  market: [];
  routes: QuoteRoute[];
  gasMultiplier: (typeof GAS_MULTIPLIERS)[number];
  integratorFeeBreakdown: {
    protocolFeeBps: number;
    integratorMarginBps: number;
    protocolFeeAmount: string;
    integratorMarginAmount: string;
  };
  dataFeeTransaction?: DataFeeTransaction;
}

/** Share of the input in percent with two decimals, from exact amounts (display only). */
function percentOf(part: bigint, whole: bigint): number {
  return Number((part * 10_000n) / whole) / 100;
}

/**
 * Display routes of the winning quote. A route's ends are named as the client sent them (the native
 * pseudo-address stays itself), the hops in between by their checksummed token addresses. An external
 * aggregator's route is its own business: one route through it.
 */
export function displayRoutes(
  quoter: MetaQuoter,
  chainId: number,
  quote: RankedQuote,
  amountIn: bigint,
  ends: { tokenIn: string; tokenOut: string },
): QuoteRoute[] {
  if (!quote.splits) {
    const dexes = [{ name: quoter.sourceName(chainId, quote.sourceId), percentage: 100 }];
    return [{ percentage: 100, subRoutes: [{ from: ends.tokenIn, to: ends.tokenOut, dexes }] }];
  }
  return quote.splits.map((split) => {
    const path = split.route.path;
    const name = (i: number): string =>
      i === 0 ? ends.tokenIn : i === path.length - 1 ? ends.tokenOut : getAddress(path[i]!);
    return {
      percentage: percentOf(split.amountIn, amountIn),
      subRoutes: split.route.pools.map((pool, i) => ({
        from: name(i),
        to: name(i + 1),
        dexes: [{ name: quoter.sourceName(chainId, pool.sourceId), percentage: 100 }],
      })),
    };
  });
}

export function singleChainQuote(args: {
  quoter: MetaQuoter;
  chainId: number;
  result: MetaQuoteResult;
  fees: FeeBreakdown;
  amountIn: bigint;
  ends: { tokenIn: string; tokenOut: string };
  gasMultiplier: (typeof GAS_MULTIPLIERS)[number];
}): SingleChainQuote {
  const best = args.result.quotes[0]!;
  return {
    outAmount: args.fees.amountOut.toString(),
    estimatedGas: best.gasEstimate.toString(),
    aggregatorId: best.sourceId,
    aggregatorOrder: args.result.quotes.map((q) => q.sourceId),
    market: [],
    routes: displayRoutes(args.quoter, args.chainId, best, args.amountIn, args.ends),
    gasMultiplier: args.gasMultiplier,
    integratorFeeBreakdown: {
      protocolFeeBps: args.fees.protocolFeeBps,
      integratorMarginBps: args.fees.integratorMarginBps,
      protocolFeeAmount: args.fees.protocolFeeAmount.toString(),
      integratorMarginAmount: args.fees.integratorMarginAmount.toString(),
    },
  };
}
