import { ServiceError } from '../../../shared/domain/errors';
import { applyFees } from '../../../shared/routing/fees';
import type { GasPriceReader } from '../../../shared/chain/gas-price-reader';
import type { Prices } from '../../../shared/routing/prices/usd-prices';
import type { Logger } from '../../../shared/log/create-logger';
import { defineRoute, type DocumentedRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { dataFeeTransaction, scaledGas } from './data-fee-transaction';
import { assertFreshMarket } from './fresh-market-state';
import { GWEI, noRoute, resolveSingleChainTrade, type TradeDeps } from './single-chain-trade';
import { singleChainQuote, type SingleChainQuote } from './quote-response';
import { CrossChainProviders } from '../../../shared/bridges/provider-registry';
import {
  DEFAULT_CROSS_CHAIN_QUOTE_BUDGET_MS,
  quoteCrossChain,
  type CrossChainQuoteBody,
} from './cross-chain-quote';
import { quoteBody, quoteResponse, type QuoteRequest, type SingleChainQuoteParams } from './schemas';

/** POST /quotes as documented: served by `quotesRoute`, listed in /openapi.json from this very object. */
export const quotesEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/quotes',
  auth: 'signed',
  body: quoteBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: 'Quotes and swaps',
    summary: 'Best aggregated route for a swap on one chain or a transfer between two chains',
    description:
      '`mode` is `single-chain` or `cross-chain` (case-sensitive); cross-chain bodies reject top-level keys other than `mode`, `params` and `fees`. A quote is not reserved: request the swap right after and protect it with `slippage`.\n\n' +
      'Cross-chain: every provider that runs between the two chains is asked at once within a short time budget (a slower one is left out of the answer) and the answers are ranked by output; `aggregatorOrder` and `alternatives` list them best first. The protocol fee and the integrator fee are taken from the input, in the source token. Errors: a chain that is not enabled is `400` (`Chain N is not enabled`, on `params.fromChainId` / `params.toChainId`); the same chain on both sides is `400` on `params.toChainId`; a source chain that takes no cross-chain transfers, a token its chain does not list, or a pair and amount no provider can move (not enough relayer inventory or bridge liquidity included) is `422 NO_ROUTE`; providers that failed or did not answer in time, with no quote from the others, are `500 CROSS_CHAIN_QUOTE_ERROR` (retry with backoff).',
    response: quoteResponse,
    errors: [400, 422, 500],
  },
};

/** The cross-chain providers of the deployment and how long a quote waits for them. */
export interface CrossChainRouteDeps {
  providers: CrossChainProviders;
  /** Default DEFAULT_CROSS_CHAIN_QUOTE_BUDGET_MS. */
  quoteBudgetMs?: number;
}

export interface QuotesDeps extends TradeDeps {
  protocolFeePips: number;
  /** Absent: no provider, so every valid cross-chain quote answers 422 NO_ROUTE. */
  crossChain?: CrossChainRouteDeps;
  /** For `includeGasInfo`; absent: the fee is priced at the request's `gasPrice` and USD fields are null. */
  prices?: Prices;
  gasPrices?: Pick<GasPriceReader, 'effectiveGasPrice'>;
}

/** The chain's gas price now; the request's `gasPrice` hint when the RPC cannot tell (the quote still answers). */
async function effectiveGasPrice(deps: QuotesDeps, chainId: number, hintGwei: string): Promise<bigint> {
  if (deps.gasPrices) {
    try {
      return await deps.gasPrices.effectiveGasPrice(chainId);
    } catch {
      // Fall through to the hint: gas information is an estimate either way.
    }
  }
  return BigInt(hintGwei) * GWEI;
}

async function quoteSingleChain(
  deps: QuotesDeps,
  params: SingleChainQuoteParams,
  feeBps: number,
): Promise<SingleChainQuote> {
  const { chainId } = params;
  const { engine, quoter, tokenIn, tokenOut, amountIn } = await resolveSingleChainTrade(deps, params);
  assertFreshMarket(engine, chainId, 'QUOTE_ERROR');
  const result = await quoter.quote({
    chainId,
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn,
    excludeSourceIds: params.excludeMetaAggregatorId ?? [],
    gasPriceWei: BigInt(params.gasPrice) * GWEI,
    taker: deps.chains.get(chainId)?.contracts?.swapRouter,
  });
  if (!result) throw noRoute();
  const fees = applyFees(result.quotes[0]!.amountOut, deps.protocolFeePips, feeBps);
  const gasMultiplier = params.gasMultiplier ?? 'NONE';
  const quote = singleChainQuote({
    quoter,
    chainId,
    result,
    fees,
    amountIn,
    ends: { tokenIn: params.inTokenAddress, tokenOut: params.outTokenAddress },
    gasMultiplier,
  });
  if (params.includeGasInfo !== true) return quote;
  // The multiplier scales the reported estimate itself, and the fee is computed from the scaled figure.
  const gas = scaledGas(result.quotes[0]!.gasEstimate, gasMultiplier);
  const chain = deps.chains.get(chainId)!;
  const price = await effectiveGasPrice(deps, chainId, params.gasPrice);
  return {
    ...quote,
    estimatedGas: gas.toString(),
    dataFeeTransaction: dataFeeTransaction({
      prices: deps.prices,
      chainId,
      gas,
      effectiveGasPrice: price,
      tokenIn: { address: params.inTokenAddress, decimals: tokenIn.decimals },
      amountIn,
      chain,
    }),
  };
}

async function quoteOverChains(
  deps: QuotesDeps,
  body: Extract<QuoteRequest, { mode: 'cross-chain' }>,
  log: Logger,
): Promise<CrossChainQuoteBody> {
  return quoteCrossChain(
    {
      chains: deps.chains,
      tokens: deps.tokens,
      providers: deps.crossChain?.providers ?? new CrossChainProviders([]),
      protocolFeePips: deps.protocolFeePips,
      quoteBudgetMs: deps.crossChain?.quoteBudgetMs ?? DEFAULT_CROSS_CHAIN_QUOTE_BUDGET_MS,
    },
    body.params,
    body.fees,
    log,
  );
}

/**
 * POST /quotes, served from its definition above: single-chain from the quote engine, cross-chain from the
 * providers. Every route of the api is signed by an API account, so `fees` always applies.
 */
export function quotesRoute(deps: QuotesDeps): RouteDefinition {
  return defineRoute<QuoteRequest>({
    ...quotesEndpoint,
    async handle({ body, log }) {
      if (body.mode === 'cross-chain') {
        try {
          return { mode: 'cross-chain', quote: await quoteOverChains(deps, body, log) };
        } catch (err) {
          if (err instanceof ServiceError) throw err;
          log.error({ err }, 'cross-chain quote failed');
          throw new ServiceError('CROSS_CHAIN_QUOTE_ERROR', 500, 'Could not produce a cross-chain quote');
        }
      }
      try {
        const quote = await quoteSingleChain(deps, body.params, body.fees?.feeBps ?? 0);
        return { mode: 'single-chain', quote };
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        log.error({ err }, 'quote failed');
        throw new ServiceError('QUOTE_ERROR', 500, 'Could not produce a quote');
      }
    },
  });
}
