import { parseUnits } from 'ethers';
import { plainDecimalOf } from '../../../shared/domain/amount-bounds';
import type { DcaOrderStatus, DcaStrategyWithOrders } from '../../../shared/domain/dca';
import { iterationAmount } from '../../../shared/domain/dca-iteration-amount';
import type { LimitOrder, LimitOrderStatus } from '../../../shared/domain/limit-order';

/** Limit orders that may still pull tokens: the keeper's claim and its mined batch are both still ahead of them. */
export const OPEN_LIMIT_ORDER_STATUSES: readonly LimitOrderStatus[] = ['pending', 'executing', 'submitted'];

/** A DCA iteration whose order reached one of these never pulls tokens again. */
const SETTLED_DCA_ORDER_STATUSES: ReadonlySet<DcaOrderStatus> = new Set([
  'successful',
  'cancelled',
  'error',
  'expired',
]);

export interface RequiredAllowance {
  /** Base units of the sold token: amounts plus execution fees. */
  required: bigint;
  openLimitOrders: number;
  activeStrategies: number;
}

/** An amount the keeper could never read (too many decimals, not a decimal) fails its order and pulls nothing. */
function baseUnits(human: string, decimals: number): bigint | undefined {
  try {
    return parseUnits(human, decimals);
  } catch {
    return undefined;
  }
}

/**
 * What the maker's allowance must cover for the given orders and strategies (all selling one token): each open
 * limit order's amount, each active strategy's iterations not settled yet, and one execution fee per order, as
 * `fee` estimates it for that amount.
 */
export function requiredAllowance(args: {
  limitOrders: readonly LimitOrder[];
  strategies: readonly DcaStrategyWithOrders[];
  decimals: number;
  fee: (amountIn: bigint) => bigint;
}): RequiredAllowance {
  let required = 0n;
  let openLimitOrders = 0;
  let activeStrategies = 0;
  for (const order of args.limitOrders) {
    if (!OPEN_LIMIT_ORDER_STATUSES.includes(order.status)) continue;
    openLimitOrders += 1;
    const amount = baseUnits(order.amount, args.decimals);
    if (amount !== undefined && amount > 0n) required += amount + args.fee(amount);
  }
  for (const strategy of args.strategies) {
    if (strategy.status !== 'active') continue;
    activeStrategies += 1;
    const total = Number.isFinite(strategy.totalAmount)
      ? baseUnits(plainDecimalOf(strategy.totalAmount), args.decimals)
      : undefined;
    if (total === undefined || total <= 0n || !Number.isSafeInteger(strategy.iterations)) continue;
    const settled = new Set(
      strategy.orders
        .filter((o) => SETTLED_DCA_ORDER_STATUSES.has(o.status) && o.iteration < strategy.iterations)
        .map((o) => o.iteration),
    );
    // Every iteration but the last spends the same amount; counted, not looped (iterations can be many).
    const last = strategy.iterations - 1;
    const lastOpen = !settled.has(last);
    const othersOpen = strategy.iterations - settled.size - (lastOpen ? 1 : 0);
    const each = iterationAmount(total, strategy.iterations, 0);
    if (othersOpen > 0 && each > 0n) required += BigInt(othersOpen) * (each + args.fee(each));
    if (lastOpen) {
      const lastAmount = iterationAmount(total, strategy.iterations, last);
      if (lastAmount > 0n) required += lastAmount + args.fee(lastAmount);
    }
  }
  return { required, openLimitOrders, activeStrategies };
}
