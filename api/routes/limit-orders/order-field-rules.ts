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

/** `slippage` is a percent below 100; compared on the integer digits so no rounding can let 99.999… through as 100. */
export function slippageDetails(slippage: string): ErrorDetail[] {
  const integerPart = slippage.split('.')[0];
  return BigInt(integerPart) >= 100n ? [{ field: 'slippage', message: 'Must be less than 100' }] : [];
}

/** The amount must be expressible in the token's base units; trailing zeros do not count. */
export function amountDecimalsDetails(
  amount: string,
  token: { symbol: string; decimals: number },
): ErrorDetail[] {
  const fraction = (amount.split('.')[1] ?? '').replace(/0+$/, '');
  if (fraction.length <= token.decimals) return [];
  return [
    {
      field: 'amount',
      message: `Must have at most ${token.decimals} decimal places (${token.symbol} has ${token.decimals} decimals)`,
    },
  ];
}
