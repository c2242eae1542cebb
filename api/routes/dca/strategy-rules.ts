import { formatUnits } from 'ethers';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import {
  fractionDigits,
  plainDecimalOf,
  toBaseUnits,
  UINT256_MAX,
} from '../../../shared/domain/amount-bounds';
import type { PriceBoundsChange } from '../../../shared/domain/dca-strategy-change';
import type { ErrorDetail } from '../../../shared/domain/errors';
import type { TokenRecord, TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import type { CreateStrategyBody } from './dca-schemas';

export const GREATER_THAN_ZERO = 'Must be greater than 0';
export const MIN_ABOVE_MAX = 'Must not be greater than maxPrice';

export interface StrategyRuleDeps {
  chains: ChainRegistry;
  tokens: TokensRepository;
}

/**
 * Price bounds: each greater than 0 (strict lower bounds are checked here: OpenAPI 3.0 and ajv disagree on
 * `exclusiveMinimum`; the upper bound is the schema's), and minPrice not above maxPrice once both are valid.
 * A null bound means "none" and passes.
 */
export function priceBoundsDetails(bounds: PriceBoundsChange): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const field of ['minPrice', 'maxPrice'] as const) {
    const value = bounds[field];
    if (value !== undefined && value !== null && !(value > 0))
      details.push({ field, message: GREATER_THAN_ZERO });
  }
  const { minPrice, maxPrice } = bounds;
  if (typeof minPrice === 'number' && typeof maxPrice === 'number' && maxPrice > 0 && minPrice > maxPrice) {
    details.push({ field: 'minPrice', message: MIN_ABOVE_MAX });
  }
  return details;
}

/**
 * `totalAmount` as the keeper will read it: the double written in plain digits, then exact base units of the
 * sold token, split into `iterations` orders of floor(total / iterations) (the last takes the remainder). What
 * the keeper could not convert, encode in a uint256, or split into orders of at least 1 base unit is refused.
 */
export function totalAmountDetails(
  totalAmount: number,
  iterations: number,
  token: Pick<TokenRecord, 'symbol' | 'decimals'>,
): ErrorDetail[] {
  const { symbol, decimals } = token;
  const problem = (message: string): ErrorDetail[] => [{ field: 'totalAmount', message }];
  if (!Number.isFinite(totalAmount)) return problem('Must be a finite number');
  const decimal = plainDecimalOf(totalAmount);
  if (fractionDigits(decimal) > decimals) {
    return problem(`Must have at most ${decimals} decimal places (${symbol} has ${decimals} decimals)`);
  }
  const baseUnits = toBaseUnits(decimal, decimals);
  if (baseUnits > UINT256_MAX) {
    return problem(`Must be at most 2^256 − 1 in base units (totalAmount × 10^${decimals} for ${symbol})`);
  }
  if (baseUnits < BigInt(iterations)) {
    const least = formatUnits(BigInt(iterations), decimals).replace(/\.0$/, '');
    return problem(
      `Must be at least ${least} ${symbol}: each of the ${iterations} iterations must sell at least 1 base unit`,
    );
  }
  return [];
}

async function checkTokens(
  body: CreateStrategyBody,
  tokens: TokensRepository,
): Promise<{ details: ErrorDetail[]; from?: TokenRecord }> {
  const details: ErrorDetail[] = [];
  const chainId = body.chainIdFrom;
  const [from, to] = await Promise.all([
    tokens.find(chainId, body.tokenAddressFrom),
    tokens.find(chainId, body.tokenAddressTo),
  ]);
  if (!from) details.push({ field: 'tokenAddressFrom', message: `Token is not listed on chain ${chainId}` });
  if (!to) details.push({ field: 'tokenAddressTo', message: `Token is not listed on chain ${chainId}` });
  return { details, from };
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
  let from: TokenRecord | undefined;
  if (!deps.chains.isEnabled(chainId)) {
    details.push({ field: 'chainIdFrom', message: `Chain ${chainId} is not enabled` });
  } else {
    const tokens = await checkTokens(body, deps.tokens);
    details.push(...tokens.details);
    from = tokens.from;
  }
  if (body.tokenAddressFrom.toLowerCase() === body.tokenAddressTo.toLowerCase()) {
    details.push({ field: 'tokenAddressTo', message: 'Must differ from tokenAddressFrom' });
  }
  const pair = `${body.tokenSymbolFrom}/${body.tokenSymbolTo}`;
  if (body.pair !== pair)
    details.push({ field: 'pair', message: `Must be "${pair}" (tokenSymbolFrom/tokenSymbolTo)` });
  if (!(body.totalAmount > 0)) details.push({ field: 'totalAmount', message: GREATER_THAN_ZERO });
  else if (from) details.push(...totalAmountDetails(body.totalAmount, body.iterations, from));
  if (body.slippage !== undefined && body.slippage >= 100) {
    details.push({ field: 'slippage', message: 'Must be less than 100' });
  }
  details.push(...priceBoundsDetails(body));
  return details;
}
