import type {
  CrossChainProvider,
  CrossChainQuote,
  CrossChainRequest,
  RouteAsset,
} from '../../../shared/bridges/cross-chain-provider';
import { ServiceError } from '../../../shared/domain/errors';
import type { Logger } from '../../../shared/log/create-logger';
import { PIPS_PER_BPS } from '../../../shared/routing/fees';
import { resolveCrossChainTrade, type CrossChainTradeDeps } from './cross-chain-trade';
import { noRoute } from './single-chain-trade';
import type { CrossChainQuoteParams, Fees } from './schemas';

/** How long a cross-chain quote waits for its providers by default: a slower provider is left out of the answer. */
export const DEFAULT_CROSS_CHAIN_QUOTE_BUDGET_MS = 3_000;

export interface CrossChainQuoteDeps extends CrossChainTradeDeps {
  /** Milliseconds the quote waits for the providers; one that answers later is not in this answer. */
  quoteBudgetMs: number;
}

export interface ProviderAlternative {
  aggregatorId: string;
  displayName: string;
  toTokenAmount: string;
  minimumReceived: string;
  estimatedSeconds: number;
  estimateCostInUSD: string | null;
}

export interface CrossChainQuoteBody {
  aggregatorId: string;
  aggregatorOrder: string[];
  fromChainId: number;
  toChainId: number;
  fromTokenAmount: string;
  toTokenAmount: string;
  minimumReceived: string;
  estimateCostInUSD: string | null;
  estimatedGas: string;
  estimatedSeconds: number;
  bridgeInfo: { displayName: string };
  middlewareRoute: RouteAsset[];
  integratorFeeBreakdown: {
    protocolFeeBps: number;
    integratorMarginBps: number;
    protocolFeeAmount: string;
    integratorMarginAmount: string;
  };
  alternatives: ProviderAlternative[];
}

type Outcome =
  | { kind: 'quote'; quote: CrossChainQuote }
  | { kind: 'none' }
  | { kind: 'failed'; providerId: string; reason: 'error' | 'timeout' };

/** One provider's answer within the budget; never rejects (a failure is logged and counted, not thrown). */
async function ask(
  provider: CrossChainProvider,
  request: CrossChainRequest,
  budgetMs: number,
  log: Logger,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'failed', providerId: provider.id, reason: 'timeout' }),
      budgetMs,
    );
  });
  const answer = provider.quote(request).then(
    (quote): Outcome => (quote ? { kind: 'quote', quote } : { kind: 'none' }),
    (err: unknown): Outcome => {
      log.warn({ err, provider: provider.id }, 'cross-chain provider failed to quote');
      return { kind: 'failed', providerId: provider.id, reason: 'error' };
    },
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Best first: the most output, then the fastest, then the registry's order (the sort is stable). */
function byOutput(a: CrossChainQuote, b: CrossChainQuote): number {
  if (a.amountOut !== b.amountOut) return a.amountOut > b.amountOut ? -1 : 1;
  return a.estimatedSeconds - b.estimatedSeconds;
}

function quoteBody(
  quotes: readonly CrossChainQuote[],
  request: CrossChainRequest,
  amount: string,
  feeBps: number,
  protocolFeePips: number,
): CrossChainQuoteBody {
  const best = quotes[0]!;
  return {
    aggregatorId: best.providerId,
    aggregatorOrder: quotes.map((q) => q.providerId),
    fromChainId: request.fromChainId,
    toChainId: request.toChainId,
    fromTokenAmount: amount,
    toTokenAmount: best.amountOut.toString(),
    minimumReceived: best.minimumReceived.toString(),
    estimateCostInUSD: best.estimateCostInUSD,
    estimatedGas: best.estimatedGas.toString(),
    estimatedSeconds: best.estimatedSeconds,
    bridgeInfo: { displayName: best.bridgeName },
    middlewareRoute: best.route,
    integratorFeeBreakdown: {
      protocolFeeBps: protocolFeePips / PIPS_PER_BPS,
      integratorMarginBps: feeBps,
      protocolFeeAmount: best.protocolFeeAmount.toString(),
      integratorMarginAmount: best.integratorFeeAmount.toString(),
    },
    alternatives: quotes.map((q) => ({
      aggregatorId: q.providerId,
      displayName: q.bridgeName,
      toTokenAmount: q.amountOut.toString(),
      minimumReceived: q.minimumReceived.toString(),
      estimatedSeconds: q.estimatedSeconds,
      estimateCostInUSD: q.estimateCostInUSD,
    })),
  };
}

/**
 * A cross-chain quote: every provider that runs between the two chains is asked at once, each within the budget,
 * and the answers are ranked by output. No quote at all: 422 NO_ROUTE when every provider answered that it cannot
 * move the amount, 500 CROSS_CHAIN_QUOTE_ERROR (retry with backoff) when some could not answer.
 */
export async function quoteCrossChain(
  deps: CrossChainQuoteDeps,
  params: CrossChainQuoteParams,
  fees: Fees | undefined,
  log: Logger,
): Promise<CrossChainQuoteBody> {
  const { request, providers } = await resolveCrossChainTrade(deps, params, fees);
  const outcomes = await Promise.all(providers.map((p) => ask(p, request, deps.quoteBudgetMs, log)));
  const quotes = outcomes
    .flatMap((o) => (o.kind === 'quote' ? [o.quote] : []))
    .filter((q) => q.amountOut > 0n)
    .sort(byOutput);
  if (quotes.length > 0)
    return quoteBody(quotes, request, params.amount, request.integratorFeeBps, deps.protocolFeePips);
  const failed = outcomes.flatMap((o) => (o.kind === 'failed' ? [o] : []));
  if (failed.length === 0) throw noRoute();
  throw new ServiceError(
    'CROSS_CHAIN_QUOTE_ERROR',
    500,
    'No cross-chain provider could quote this transfer now; retry with backoff',
    failed.map((f) => ({
      message: f.reason === 'timeout' ? `${f.providerId}: no answer in time` : `${f.providerId}: failed`,
    })),
  );
}
