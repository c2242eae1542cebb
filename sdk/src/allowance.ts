import type { OrderAuthorization } from './types';

export interface AllowanceNeeds {
  /** Base units the new order(s) will sell. */
  adding?: bigint;
  /** Executions about to be added (an order is 1, a DCA strategy its iterations); default 1 when adding, else 0. */
  newOrders?: number;
  /** Headroom on the estimated execution fees, which move with the gas price; default 2000 (20 %). */
  bufferBps?: number;
}

export const DEFAULT_FEE_BUFFER_BPS = 2000;

const ceilBps = (amount: bigint, bps: bigint): bigint => (amount * bps + 9_999n) / 10_000n;

/**
 * The allowance the maker's orders selling tokenIn need once the new ones exist: `required` (the open orders'
 * amounts and fees), the new amount, the new executions' fees (estimatedFeePerOrder each, plus `bufferBps`; never
 * more than the contract's fee cap, maxFeeBps of the amount, which is also what counts when the service has no
 * estimate), plus `bufferBps` of one estimated fee per open order and active strategy, for gas price moves.
 */
export function allowanceNeeded(auth: OrderAuthorization, needs: AllowanceNeeds = {}): bigint {
  const adding = needs.adding ?? 0n;
  const newOrders = BigInt(needs.newOrders ?? (adding > 0n ? 1 : 0));
  const bufferBps = BigInt(needs.bufferBps ?? DEFAULT_FEE_BUFFER_BPS);
  const feeCap = ceilBps(adding, BigInt(auth.maxFeeBps));
  const estimate = auth.estimatedFeePerOrder === null ? undefined : BigInt(auth.estimatedFeePerOrder);
  let newFees = feeCap;
  let openBuffer = 0n;
  if (estimate !== undefined) {
    const estimated = estimate * newOrders;
    const withBuffer = estimated + ceilBps(estimated, bufferBps);
    if (adding === 0n || withBuffer < feeCap) newFees = withBuffer;
    openBuffer = ceilBps(estimate * BigInt(auth.openLimitOrders + auth.activeStrategies), bufferBps);
  }
  return BigInt(auth.required) + adding + newFees + openBuffer;
}
