import { parseUnits } from 'ethers';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { applyFees } from '../../../shared/routing/fees';
import type { QuoteEngine } from '../../../shared/routing/quote-engine';
import type { TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { quotesEndpoint } from '../../openapi/documented-endpoints';
import { defineRoute, type RouteDefinition } from '../../service/route-definition';
import { INVALID_BODY } from '../../service/validator';
import { singleChainQuote, type SingleChainQuote } from './quote-response';
import type { QuoteRequest, SingleChainQuoteParams } from './schemas';

/** 15 bps: the spec's default protocol fee (PROTOCOL_FEE_PIPS). */
export const DEFAULT_PROTOCOL_FEE_PIPS = 1500;
export const NO_ROUTE_MESSAGE = 'No route found for this pair and amount';
const GWEI = 10n ** 9n;

export const noRoute = (): ServiceError => new ServiceError('NO_ROUTE', 422, NO_ROUTE_MESSAGE);

export interface QuotesDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
  /** Absent when no chain can be quoted (no chain has contracts and an RPC client). */
  engine?: QuoteEngine;
  protocolFeePips: number;
}

/** `amount` in base units, exactly; a fraction finer than the token's decimals is a 400 on the field. */
function baseUnits(amount: string, token: { symbol: string; decimals: number }): bigint {
  try {
    return parseUnits(amount, token.decimals);
  } catch {
    throw new ValidationError(INVALID_BODY, [
      {
        field: 'params.amount',
        message: `Must have at most ${token.decimals} decimal places (${token.symbol} has ${token.decimals} decimals)`,
      },
    ]);
  }
}

async function quoteSingleChain(
  deps: QuotesDeps,
  params: SingleChainQuoteParams,
  feeBps: number,
): Promise<SingleChainQuote> {
  const { chainId } = params;
  if (!deps.chains.isEnabled(chainId)) {
    throw new ValidationError(`Chain ${chainId} is not enabled`, [
      { field: 'params.chainId', message: `Chain ${chainId} is not enabled` },
    ]);
  }
  const engine = deps.engine;
  // An enabled chain without contracts is listed but not tradable: nothing can route on it.
  if (!engine?.isQuotable(chainId)) throw noRoute();
  const [tokenIn, tokenOut] = await Promise.all([
    deps.tokens.find(chainId, params.inTokenAddress),
    deps.tokens.find(chainId, params.outTokenAddress),
  ]);
  // A token GET /tokens does not list is a pair no source routes.
  if (!tokenIn || !tokenOut) throw noRoute();
  const amountIn = baseUnits(params.amount, tokenIn);
  if (amountIn === 0n) {
    throw new ValidationError(INVALID_BODY, [{ field: 'params.amount', message: 'Must be greater than 0' }]);
  }
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
  return singleChainQuote({
    engine,
    chainId,
    result,
    fees,
    amountIn,
    ends: { tokenIn: params.inTokenAddress, tokenOut: params.outTokenAddress },
    gasMultiplier: params.gasMultiplier ?? 'NONE',
  });
}

/**
 * POST /quotes, served from its documented definition. Single-chain only for now: a valid cross-chain body
 * answers 422 NO_ROUTE until cross-chain providers exist. Every route of the api is signed by an API account,
 * so `fees` always applies.
 */
export function quotesRoute(deps: QuotesDeps): RouteDefinition {
  return defineRoute<QuoteRequest>({
    ...quotesEndpoint,
    async handle({ body, log }) {
      if (body.mode !== 'single-chain') throw noRoute();
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
