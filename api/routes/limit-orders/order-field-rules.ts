import { fractionDigits, toBaseUnits, UINT256_MAX, valueAtPrice } from '../../../shared/domain/amount-bounds';
import type { ErrorDetail } from '../../../shared/domain/errors';
import { LIMIT_ORDER_MUTABLE_FIELDS } from '../../../shared/domain/limit-order';

/** The rules of limit-order fields that the JSON schema cannot express; each returns the details it finds. */

const DAY_MS = 86_400_000;
export const MAX_EXPIRY_AHEAD_MS = 365 * DAY_MS;

const has = (body: object, key: string): boolean => Object.prototype.hasOwnProperty.call(body, key);

export function emptyChangeSetDetails(body: object): ErrorDetail[] {
  if (LIMIT_ORDER_MUTABLE_FIELDS.some((field) => has(body, field))) return [];
  return [
    { field: 'body', message: `Must contain at least one of: ${LIMIT_ORDER_MUTABLE_FIELDS.join(', ')}` },
  ];
}

/** `expired`: 13 digits of Unix milliseconds, later than now and at most 365 days ahead. */
export function expiredDetails(expired: string, now: number): ErrorDetail[] {
  const problem = !/^[0-9]{13}$/.test(expired)
    ? 'Must be a Unix timestamp in milliseconds (13 digits)'
    : Number(expired) <= now
      ? 'Must be in the future'
      : Number(expired) > now + MAX_EXPIRY_AHEAD_MS
        ? 'Must be at most 365 days ahead'
        : undefined;
  return problem ? [{ field: 'expired', message: problem }] : [];
}

export interface TokenDecimals {
  symbol: string;
  decimals: number;
}

const PRICE_FIELDS = ['priceTrigger', 'price'] as const;
const UINT256_TEXT = '2^256 − 1';

/** `amount` must be whole base units of the sold token (trailing zeros do not count) that a uint256 holds. */
export function amountDetails(amount: string, token: TokenDecimals): ErrorDetail[] {
  const { symbol, decimals } = token;
  if (fractionDigits(amount) > decimals) {
    return [
      {
        field: 'amount',
        message: `Must have at most ${decimals} decimal places (${symbol} has ${decimals} decimals)`,
      },
    ];
  }
  if (toBaseUnits(amount, decimals) <= UINT256_MAX) return [];
  return [
    {
      field: 'amount',
      message: `Must be at most ${UINT256_TEXT} in base units (amount × 10^${decimals} for ${symbol})`,
    },
  ];
}

/** The order's amount and prices, as they will be once the request applies. */
export interface OrderAmounts {
  amount: string;
  priceTrigger: string;
  price: string;
}

/**
 * The amount, and the output it buys at each price, must fit the uint256 the keeper encodes them in. A price
 * that overflows is reported on the price when the request sent it, otherwise on the amount (a PATCH of the
 * amount alone against the stored prices). Without a listed token there is nothing to check against.
 */
export function orderAmountDetails(
  values: OrderAmounts,
  sent: ReadonlySet<string>,
  tokenIn: TokenDecimals | undefined,
  tokenOut: TokenDecimals | undefined,
): ErrorDetail[] {
  if (!tokenIn) return [];
  const details = sent.has('amount') ? amountDetails(values.amount, tokenIn) : [];
  if (details.length || !tokenOut) return details;
  // A stored amount that no longer reads (the token list changed since) leaves nothing to weigh the prices by.
  if (fractionDigits(values.amount) > tokenIn.decimals) return details;
  const amountIn = toBaseUnits(values.amount, tokenIn.decimals);
  for (const field of PRICE_FIELDS) {
    if (valueAtPrice(amountIn, values[field], tokenIn.decimals, tokenOut.decimals, 'up') <= UINT256_MAX)
      continue;
    const rule = `amount × ${field} × 10^${tokenOut.decimals} (${tokenOut.symbol} decimals) must be at most ${UINT256_TEXT}`;
    details.push(
      sent.has(field)
        ? { field, message: `Is too large for the amount: ${rule}` }
        : { field: 'amount', message: `Is too large for the order's ${field}: ${rule}` },
    );
  }
  return details;
}
