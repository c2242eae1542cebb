import { ServiceError } from '../../../shared/domain/errors';
import { applyFees } from '../../../shared/routing/fees';
import type { GasPriceReader } from '../../../shared/chain/gas-price-reader';
import type { Prices } from '../../../shared/routing/prices/usd-prices';
import { defineRoute, type DocumentedRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { dataFeeTransaction, scaledGas } from './data-fee-transaction';
import { assertFreshMarket } from './fresh-market-state';
import { GWEI, noRoute, resolveSingleChainTrade, type TradeDeps } from './single-chain-trade';
import { singleChainQuote, type SingleChainQuote } from './quote-response';
import { checkCrossChainAmount } from './trade-amount';
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
      '`mode` is `single-chain` or `cross-chain` (case-sensitive); cross-chain bodies reject top-level keys other than `mode`, `params` and `fees`. A quote is not reserved: request the swap right after and protect it with `slippage`.',
    response: quoteResponse,
    errors: [400, 422, 500],
  },
};

export interface QuotesDeps extends TradeDeps {
  protocolFeePips: number;
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
  const { engine, tokenIn, tokenOut, amountIn } = await resolveSingleChainTrade(deps, params);
  assertFreshMarket(engine, chainId, 'QUOTE_ERROR');
  const result = engine.quote({
    chainId,
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn,
    excludeSourceIds: params.excludeMetaAggregatorId ?? [],
    gasPriceWei: BigInt(params.gasPrice) * GWEI,
  });
  if (!result) throw noRoute();
  const fees = applyFees(result.quotes[0]!.amountOut, deps.protocolFeePips, feeBps);
  const gasMultiplier = params.gasMultiplier ?? 'NONE';
  const quote = singleChainQuote({
    engine,
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

/**
 * POST /quotes, served from its definition above. Single-chain only for now: a valid cross-chain body
 * (amount within its token's bounds) answers 422 NO_ROUTE until cross-chain providers exist. Every route of the api is signed by an API account,
 * so `fees` always applies.
 */
export function quotesRoute(deps: QuotesDeps): RouteDefinition {
  return defineRoute<QuoteRequest>({
    ...quotesEndpoint,
    async handle({ body, log }) {
      if (body.mode !== 'single-chain') {
        await checkCrossChainAmount(deps, body.params);
        throw noRoute();
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
