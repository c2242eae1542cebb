import { fractionDigits, toBaseUnits, UINT256_MAX } from '../../../shared/domain/amount-bounds';
import { ValidationError } from '../../../shared/domain/errors';
import { INVALID_BODY } from '../../http/validator';

const amountError = (message: string): ValidationError =>
  new ValidationError(INVALID_BODY, [{ field: 'params.amount', message }]);

/**
 * `amount` in base units of the input token, exactly: a fraction finer than the token's decimals, zero, or more
 * than a uint256 holds (what the calldata encodes) is a 400 on the field naming the rule.
 */
export function tradeAmountIn(amount: string, token: { symbol: string; decimals: number }): bigint {
  const { symbol, decimals } = token;
  if (fractionDigits(amount) > decimals) {
    throw amountError(`Must have at most ${decimals} decimal places (${symbol} has ${decimals} decimals)`);
  }
  const amountIn = toBaseUnits(amount, decimals);
  if (amountIn === 0n) throw amountError('Must be greater than 0');
  if (amountIn > UINT256_MAX) {
    throw amountError(`Must be at most 2^256 − 1 in base units (amount × 10^${decimals} for ${symbol})`);
  }
  return amountIn;
}
