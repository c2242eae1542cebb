import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { MetaQuoter } from '../../../shared/routing/meta-quoter';
import type { QuoteEngine } from '../../../shared/routing/quote-engine';
import type { TokenRecord, TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { tradeAmountIn } from './trade-amount';

export const NO_ROUTE_MESSAGE = 'No route found for this pair and amount';
export const GWEI = 10n ** 9n;

export const noRoute = (): ServiceError => new ServiceError('NO_ROUTE', 422, NO_ROUTE_MESSAGE);

export interface TradeDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
  /** Absent when no chain can be quoted (no chain has contracts and an RPC client). */
  engine?: QuoteEngine;
  /** The engine plus the operator's external aggregators; default: the engine alone. */
  quoter?: MetaQuoter;
}

export interface SingleChainTrade {
  engine: QuoteEngine;
  quoter: MetaQuoter;
  tokenIn: TokenRecord;
  tokenOut: TokenRecord;
  /** `amount` in base units of tokenIn, exactly. */
  amountIn: bigint;
}

/**
 * The checks a single-chain quote and swap share, in the same order so both answer a bad request alike: the
 * chain is enabled (400); the amount exact, positive and within a uint256 when the input token is listed (400,
 * the request's own fault whatever the chain can route); the chain tradable and both tokens listed (422 NO_ROUTE).
 */
export async function resolveSingleChainTrade(
  deps: TradeDeps,
  params: { chainId: number; inTokenAddress: string; outTokenAddress: string; amount: string },
): Promise<SingleChainTrade> {
  const { chainId } = params;
  if (!deps.chains.isEnabled(chainId)) {
    throw new ValidationError(`Chain ${chainId} is not enabled`, [
      { field: 'params.chainId', message: `Chain ${chainId} is not enabled` },
    ]);
  }
  const [tokenIn, tokenOut] = await Promise.all([
    deps.tokens.find(chainId, params.inTokenAddress),
    deps.tokens.find(chainId, params.outTokenAddress),
  ]);
  const amountIn = tokenIn ? tradeAmountIn(params.amount, tokenIn) : 0n;
  const engine = deps.engine;
  // An enabled chain without contracts is listed but not tradable: nothing can route on it.
  if (!engine?.isQuotable(chainId)) throw noRoute();
  // A token GET /tokens does not list is a pair no source routes.
  if (!tokenIn || !tokenOut) throw noRoute();
  const quoter = deps.quoter?.engine === engine ? deps.quoter : new MetaQuoter(engine);
  return { engine, quoter, tokenIn, tokenOut, amountIn };
}
