import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import type { PriceBoundsChange } from '../../../shared/domain/dca-strategy-change';
import type { ErrorDetail } from '../../../shared/domain/errors';
import type { TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import type { CreateStrategyBody } from './dca-schemas';

export const GREATER_THAN_ZERO = 'Must be greater than 0';
export const MIN_ABOVE_MAX = 'Must not be greater than maxPrice';

export interface StrategyRuleDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
}

/**
 * Strict lower bounds: OpenAPI 3.0 and ajv disagree on `exclusiveMinimum`, so it is checked here instead.
 * A null bound means "none" and passes.
 */
export function checkPriceBounds(bounds: PriceBoundsChange): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const field of ['minPrice', 'maxPrice'] as const) {
    const value = bounds[field];
    if (value !== undefined && value !== null && !(value > 0))
      details.push({ field, message: GREATER_THAN_ZERO });
  }
  return details;
}

async function checkTokens(body: CreateStrategyBody, tokens: TokensRepository): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const chainId = body.chainIdFrom;
  const [from, to] = await Promise.all([
    tokens.find(chainId, body.tokenAddressFrom),
    tokens.find(chainId, body.tokenAddressTo),
  ]);
  if (!from) details.push({ field: 'tokenAddressFrom', message: `Token is not listed on chain ${chainId}` });
  if (!to) details.push({ field: 'tokenAddressTo', message: `Token is not listed on chain ${chainId}` });
  return details;
}

/** The rules of a new strategy that its schema cannot express; every problem found is reported at once. */
export async function checkNewStrategy(
  body: CreateStrategyBody,
  deps: StrategyRuleDeps,
): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const chainId = body.chainIdFrom;
  if (body.chainIdTo !== chainId) {
    details.push({
      field: 'chainIdTo',
      message: 'Must equal chainIdFrom (a DCA strategy runs on one chain)',
    });
  }
  if (!deps.chains.isEnabled(chainId)) {
    details.push({ field: 'chainIdFrom', message: `Chain ${chainId} is not enabled` });
  } else {
    details.push(...(await checkTokens(body, deps.tokens)));
  }
  if (body.tokenAddressFrom.toLowerCase() === body.tokenAddressTo.toLowerCase()) {
    details.push({ field: 'tokenAddressTo', message: 'Must differ from tokenAddressFrom' });
  }
  const pair = `${body.tokenSymbolFrom}/${body.tokenSymbolTo}`;
  if (body.pair !== pair)
    details.push({ field: 'pair', message: `Must be "${pair}" (tokenSymbolFrom/tokenSymbolTo)` });
  if (!(body.totalAmount > 0)) details.push({ field: 'totalAmount', message: GREATER_THAN_ZERO });
  if (body.slippage !== undefined && body.slippage >= 100) {
    details.push({ field: 'slippage', message: 'Must be less than 100' });
  }
  details.push(...checkPriceBounds(body));
  const { minPrice, maxPrice } = body;
  // Crossed bounds are worth reporting only once each bound is valid on its own.
  if (typeof minPrice === 'number' && typeof maxPrice === 'number' && maxPrice > 0 && minPrice > maxPrice) {
    details.push({ field: 'minPrice', message: MIN_ABOVE_MAX });
  }
  return details;
}
