import {
  decodeExecuteBatchCalldata,
  encodeExecuteBatchCalldata,
  encodeGroups,
  type CalldataGroup,
  type EncodedGroups,
} from '../../shared/chain/execute-batch-calldata';
import type { PathParams } from '../../shared/routing/swap-calldata';
import { fundingKey } from './funding-check';
import {
  DEFAULT_MAX_DEVIATION_BPS,
  MAX_EXECUTION_INDEX,
  onchainOrderIdOf,
} from '../../shared/domain/pair-authorization';

export interface BatchOrder {
  ref: string;
  /**
   * The order's execution index (ExecutionOrder.executionIndex). Optional here because the planner builds groups
   * without it; encodeExecuteBatch requires it (see withExecutionIndices).
   */
  index?: bigint;
  integrator: string;
  maker: string;
  amountIn: bigint;
  fee: bigint;
  minAmountOut: bigint;
  signature: string;
  /** The fee cap the maker signed (part of the signed message: any other value fails BAD_SIGNATURE). */
  maxFeeBps: number;
}

export interface BatchGroup {
  /** As the contract sees them: checksummed, the native coin as its pseudo-address. */
  tokenIn: string;
  tokenOut: string;
  paths: PathParams[];
  orders: BatchOrder[];
}

/**
 * A planned group's orders with their execution indices, taken from the claimed orders by reference (keccak256 of
 * the service id): what encodeExecuteBatch needs.
 */
export function withExecutionIndices(
  group: BatchGroup,
  orders: readonly { ref: string; executionIndex: bigint }[],
): BatchGroup {
  const indices = new Map(orders.map((o) => [o.ref.toLowerCase(), o.executionIndex]));
  return {
    ...group,
    orders: group.orders.map((o) => ({ ...o, index: o.index ?? indices.get(o.ref.toLowerCase()) })),
  };
}

/** OrderExecutor.executeBatch calldata. Every order must carry its execution index. */
export function encodeExecuteBatch(groups: readonly BatchGroup[], deadline: bigint): string {
  return encodeExecuteBatchCalldata(encodeBatchGroups(groups), deadline);
}

/** A batch's groups encoded once for both its calls (executeBatch, executeBudgetedBatch). */
export function encodeBatchGroups(groups: readonly BatchGroup[]): EncodedGroups {
  return encodeGroups(groups.map(calldataGroup));
}

function calldataGroup(g: BatchGroup): CalldataGroup {
  return {
    tokenIn: g.tokenIn,
    tokenOut: g.tokenOut,
    paths: g.paths,
    orders: g.orders.map((o) => ({
      maker: o.maker,
      index: indexOf(o),
      ref: o.ref,
      integrator: o.integrator,
      maxDeviationBps: DEFAULT_MAX_DEVIATION_BPS,
      maxFeeBps: o.maxFeeBps,
      amountIn: o.amountIn,
      fee: o.fee,
      minAmountOut: o.minAmountOut,
      signature: o.signature,
    })),
  };
}

function indexOf(order: BatchOrder): bigint {
  if (order.index === undefined || order.index <= 0n || order.index > MAX_EXECUTION_INDEX) {
    throw new Error(`order ${order.ref} has no valid execution index (${String(order.index)})`);
  }
  return order.index;
}

/**
 * What an executeBatch transaction pulls from makers if it executes: amountIn + fee of each of its orders, summed
 * per fundingKey (maker|tokenIn, lowercase).
 */
export function batchPulls(calldata: string | Uint8Array): Map<string, bigint> {
  const pulls = new Map<string, bigint>();
  for (const group of decodeExecuteBatchCalldata(calldata).groups) {
    for (const order of group.orders) {
      const key = fundingKey(order.maker, group.tokenIn);
      pulls.set(key, (pulls.get(key) ?? 0n) + order.amountIn + order.fee);
    }
  }
  return pulls;
}

/** One order of a sent batch as the contract identifies it. */
export interface BatchOrderIdentity {
  /** OrderExecutor.orderId, lowercase. */
  onchainId: string;
  /** Lowercase. */
  maker: string;
  amountIn: bigint;
  /** Its execution index: the bit `isExecuted` reads (which alone proves nothing: the event must match). */
  index: bigint;
}

/**
 * The orders an executeBatch transaction carries, by their reference (keccak256 of the service id, lowercase):
 * what the keeper settles each of its orders against (an event counts only with this id, maker and amount).
 */
export function batchOrderIdentities(calldata: string | Uint8Array): Map<string, BatchOrderIdentity> {
  const identities = new Map<string, BatchOrderIdentity>();
  for (const group of decodeExecuteBatchCalldata(calldata).groups) {
    for (const order of group.orders) {
      identities.set(order.ref, {
        onchainId: onchainOrderIdOf({
          maker: order.maker,
          tokenIn: group.tokenIn,
          tokenOut: group.tokenOut,
          integrator: order.integrator,
          ref: order.ref,
          amountIn: order.amountIn,
          index: order.index,
        }),
        maker: order.maker,
        amountIn: order.amountIn,
        index: order.index,
      });
    }
  }
  return identities;
}

/**
 * The fee each order of an executeBatch transaction was charged and the cap its maker signed, in basis points of its
 * amount, by reference (keccak256 of the service id, lowercase): what a FEE_TOO_HIGH failure reports.
 */
export function batchOrderFees(
  calldata: string | Uint8Array,
): Map<string, { feeBps: number; maxFeeBps: number }> {
  const fees = new Map<string, { feeBps: number; maxFeeBps: number }>();
  for (const group of decodeExecuteBatchCalldata(calldata).groups) {
    for (const order of group.orders) {
      if (order.amountIn === 0n) continue;
      fees.set(order.ref, {
        // Rounded up: a fee over the cap by a fraction of a basis point still shows over it.
        feeBps: Number((order.fee * 10_000n + order.amountIn - 1n) / order.amountIn),
        maxFeeBps: order.maxFeeBps,
      });
    }
  }
  return fees;
}
