import { parseUnits } from 'ethers';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import type { QuoteEngine } from '../../../shared/routing/quote-engine';
import type { TokenRecord, TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { INVALID_BODY } from '../../service/validator';

export const NO_ROUTE_MESSAGE = 'No route found for this pair and amount';
export const GWEI = 10n ** 9n;

export const noRoute = (): ServiceError => new ServiceError('NO_ROUTE', 422, NO_ROUTE_MESSAGE);

export interface TradeDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
  /** Absent when no chain can be quoted (no chain has contracts and an RPC client). */
  engine?: QuoteEngine;
}

export interface SingleChainTrade {
  engine: QuoteEngine;
  tokenIn: TokenRecord;
  tokenOut: TokenRecord;
  /** `amount` in base units of tokenIn, exactly. */
  amountIn: bigint;
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

/**
 * The checks a single-chain quote and swap share, in the same order so both answer a bad request alike: the
 * chain is enabled (400), tradable and both tokens listed (422 NO_ROUTE), the amount exact and positive (400).
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
  return { engine, tokenIn, tokenOut, amountIn };
}
