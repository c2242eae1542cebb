import { MaxUint256 } from 'ethers';
import type { DcaStrategy } from '../../shared/domain/dca';
import { minimumAfterSlippage } from '../../shared/routing/fees';
import { plainDecimalOf } from '../../shared/domain/amount-bounds';
import { limitOrderMinimumOut } from './order-amounts';

/**
 * Why a stored order or strategy cannot execute, whatever the market does: the API refuses such values, but a row
 * written by an older api, by hand or by a migration must fail (or be set aside) on its own, never throw inside a
 * stage that handles other makers' orders too.
 */
export type UnreadableReason =
  'ZERO_AMOUNT' | 'INVALID_AMOUNT' | 'INVALID_PRICE' | 'INVALID_SLIPPAGE' | 'INVALID_SCHEDULE';

export type Terms<T> = { ok: true; terms: T } | { ok: false; reason: UnreadableReason; detail: string };

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

function refuse<T>(reason: UnreadableReason, detail: string): Terms<T> {
  return { ok: false, reason, detail };
}

/**
 * A human amount (plain decimal string) in base units: digits only (no sign, no exponent), no more significant
 * decimals than the token has (trailing zeros are harmless), and at most what a uint256 holds.
 */
export function amountTerms(amount: string, decimals: number): Terms<bigint> {
  const match = DECIMAL.exec(amount.trim());
  if (!match)
    return refuse('INVALID_AMOUNT', `amount ${JSON.stringify(amount.slice(0, 80))} is not a decimal`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    return refuse('INVALID_AMOUNT', `amount has more than the token's ${decimals} decimals`);
  }
  const units = BigInt(`${match[1]}${fraction.padEnd(decimals, '0')}`);
  if (units > MaxUint256) return refuse('INVALID_AMOUNT', 'amount is beyond what uint256 base units hold');
  if (units === 0n) return refuse('ZERO_AMOUNT', 'amount is zero');
  return { ok: true, terms: units };
}

function slippageTerms(slippagePercent: string): Terms<string> {
  try {
    minimumAfterSlippage(0n, slippagePercent);
    return { ok: true, terms: slippagePercent };
  } catch {
    return refuse('INVALID_SLIPPAGE', 'slippage is not a percentage between 0 and 100');
  }
}

export interface LimitTerms {
  amountIn: bigint;
  minAmountOut: bigint;
}

/** A limit order's amount, trigger and slippage as the batch needs them, or why they cannot execute. */
export function limitOrderTerms(
  order: { amount: string; priceTrigger: string; slippage: string },
  decimalsIn: number,
  decimalsOut: number,
): Terms<LimitTerms> {
  const amount = amountTerms(order.amount, decimalsIn);
  if (!amount.ok) return amount;
  if (!DECIMAL.test(order.priceTrigger.trim()))
    return refuse('INVALID_PRICE', 'priceTrigger is not a decimal');
  const slippage = slippageTerms(order.slippage);
  if (!slippage.ok) return slippage;
  const minAmountOut = limitOrderMinimumOut(
    amount.terms,
    order.priceTrigger.trim(),
    order.slippage,
    decimalsIn,
    decimalsOut,
  );
  if (minAmountOut > MaxUint256) return refuse('INVALID_PRICE', 'the minimum output is beyond uint256');
  return { ok: true, terms: { amountIn: amount.terms, minAmountOut } };
}

export interface StrategyTerms {
  /** totalAmount in base units of tokenAddressFrom. */
  total: bigint;
  slippagePercent: string;
}

/**
 * A DCA strategy's budget, schedule and bounds as the scheduler and the batch need them, or why they cannot
 * execute. Its JSON numbers are doubles: each is checked finite and in range before it is used.
 */
export function strategyTerms(
  strategy: Pick<
    DcaStrategy,
    'totalAmount' | 'iterations' | 'frequency' | 'slippage' | 'minPrice' | 'maxPrice'
  >,
  decimalsIn: number,
): Terms<StrategyTerms> {
  const { totalAmount, iterations, frequency, slippage, minPrice, maxPrice } = strategy;
  if (!Number.isFinite(totalAmount) || totalAmount <= 0) {
    return refuse('INVALID_AMOUNT', `totalAmount ${totalAmount} is not a positive number`);
  }
  const total = amountTerms(plainDecimalOf(totalAmount), decimalsIn);
  if (!total.ok) return total;
  if (!Number.isSafeInteger(iterations) || iterations < 1) {
    return refuse('INVALID_SCHEDULE', `iterations ${iterations} is not a positive integer`);
  }
  if (!Number.isFinite(frequency) || frequency < 0) {
    return refuse('INVALID_SCHEDULE', `frequency ${frequency} is not a number of seconds`);
  }
  for (const bound of [minPrice, maxPrice]) {
    if (bound !== null && Number.isNaN(bound))
      return refuse('INVALID_PRICE', 'a price bound is not a number');
  }
  if (!Number.isFinite(slippage) || slippage < 0) {
    return refuse('INVALID_SLIPPAGE', `slippage ${slippage} is not a percentage`);
  }
  const slippagePercent = slippageTerms(plainDecimalOf(slippage));
  if (!slippagePercent.ok) return slippagePercent;
  return { ok: true, terms: { total: total.terms, slippagePercent: slippagePercent.terms } };
}
