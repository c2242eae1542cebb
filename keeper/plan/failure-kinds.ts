/**
 * What the keeper does with each way an order can fail, in one table (the design's retry/drop table):
 * - `final`: the order is settled `failed` with the reason in `reasonFail` (limit) or `errorMessage` (DCA).
 * - `next-block`: back to `pending` at once; the cause is the market (price moved back between selection and
 *   inclusion, or the transaction missed its deadline).
 * - `back-off`: back to `pending` after a growing delay; the cause is ours or the network's and may pass.
 * - `delay`: back to `pending` after OUTAGE_DELAY_MS, not counted: the chain or its RPC was unavailable, which is
 *   no fault of the order (an outage of any length delays orders, it never fails them).
 * Retryable failures but `delay` count in `attemptNumber`; after MAX_ATTEMPTS back-offs an order is final. Market
 * failures never make an order final: a price bouncing around the trigger is the maker's risk to wait out.
 */
export type FailureAction = 'final' | 'next-block' | 'back-off' | 'delay';

export const FAILURE_KINDS = {
  // OrderExecutor's OrderFailed reasons.
  BAD_SIGNATURE: 'final',
  INSUFFICIENT_BALANCE: 'final',
  INSUFFICIENT_ALLOWANCE: 'final',
  ZERO_AMOUNT: 'final',
  ALREADY_EXECUTED: 'final',
  FEE_TOO_HIGH: 'back-off',
  INSUFFICIENT_OUTPUT: 'next-block',
  DEADLINE: 'next-block',
  SWAP_FAILED: 'back-off',
  // The execution would pay less than the chain's price bound (a time-weighted price less the deviation): the
  // market moved away from its average; the order waits for the next block.
  BELOW_PRICE_BOUND: 'next-block',
  // The chain has no price bound for the pair (no Uniswap V3 history, no fresh feed); may come back.
  NO_PRICE_BOUND: 'back-off',
  // The maker's tokens could not be pulled (a blacklisted maker, a token that refused or arrived short).
  TRANSFER_IN_FAILED: 'final',
  // The maker cannot be paid (blacklisted for the output token): it failed alone, its group went on.
  PAYOUT_FAILED: 'final',
  // Other orders of its group failed alone more often than a group may retry: this one waits for the next batch.
  RETRY_LIMIT: 'next-block',
  // The keeper's own.
  expired: 'final',
  TOKEN_NOT_LISTED: 'final',
  INVALID_AMOUNT: 'final',
  INVALID_PRICE: 'final',
  INVALID_SLIPPAGE: 'final',
  INVALID_SCHEDULE: 'final',
  NO_ROUTE: 'back-off',
  RPC_ERROR: 'delay',
  TRANSACTION_REVERTED: 'back-off',
  TRANSACTION_DROPPED: 'next-block',
  GAS_TOO_EXPENSIVE: 'back-off',
  // The keeper could not plan the order or have its transaction accepted, for a cause no other reason names.
  KEEPER_ERROR: 'back-off',
} as const satisfies Record<string, FailureAction>;

export type FailureReason = keyof typeof FAILURE_KINDS;

/** Back-offs after which an order is settled `failed` anyway (its last reason kept). */
export const MAX_ATTEMPTS = 5;
const BACK_OFF_BASE_MS = 5_000;
const BACK_OFF_MAX_MS = 300_000;
/** How long an order sent back by an outage waits; the keeper claims nothing on a failing chain meanwhile anyway. */
export const OUTAGE_DELAY_MS = 3_000;

export interface FailureDecision {
  final: boolean;
  /** Unix ms before which the order is not selected again (retryable failures). */
  nextAttemptAt: number;
}

export function isFailureReason(reason: string): reason is FailureReason {
  return Object.prototype.hasOwnProperty.call(FAILURE_KINDS, reason);
}

function actionOf(reason: string): FailureAction {
  return isFailureReason(reason) ? FAILURE_KINDS[reason] : 'back-off';
}

/** False for outages: the order goes back to pending with its `attemptNumber` unchanged. */
export function countsAsAttempt(reason: string): boolean {
  return actionOf(reason) !== 'delay';
}

/** `attemptNumber` is the order's count before this failure. An unknown reason is treated as back-off. */
export function decideFailure(reason: string, attemptNumber: number, nowMs: number): FailureDecision {
  const action = actionOf(reason);
  if (action === 'delay') return { final: false, nextAttemptAt: nowMs + OUTAGE_DELAY_MS };
  if (action === 'final' || (action === 'back-off' && attemptNumber + 1 >= MAX_ATTEMPTS)) {
    return { final: true, nextAttemptAt: nowMs };
  }
  if (action === 'next-block') return { final: false, nextAttemptAt: nowMs };
  const delay = Math.min(BACK_OFF_BASE_MS * 2 ** attemptNumber, BACK_OFF_MAX_MS);
  return { final: false, nextAttemptAt: nowMs + delay };
}
