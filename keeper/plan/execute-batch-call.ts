import { getAddress } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import type { PathParams } from '../../shared/routing/swap-calldata';
import { fundingKey } from './funding-check';

export interface BatchOrder {
  onchainId: string;
  maker: string;
  amountIn: bigint;
  fee: bigint;
  minAmountOut: bigint;
  signature: string;
}

export interface BatchGroup {
  /** As the contract sees them: checksummed, the native coin as its pseudo-address. */
  tokenIn: string;
  tokenOut: string;
  paths: PathParams[];
  orders: BatchOrder[];
}

/** OrderExecutor.executeBatch calldata. */
export function encodeExecuteBatch(groups: readonly BatchGroup[], deadline: bigint): string {
  return orderExecutorInterface().encodeFunctionData('executeBatch', [
    groups.map((g) => ({
      tokenIn: g.tokenIn,
      tokenOut: g.tokenOut,
      paths: g.paths,
      orders: g.orders.map((o) => ({
        id: o.onchainId,
        maker: getAddress(o.maker),
        amountIn: o.amountIn,
        fee: o.fee,
        minAmountOut: o.minAmountOut,
        signature: o.signature,
      })),
    })),
    deadline,
  ]);
}

/**
 * What an executeBatch transaction pulls from makers if it executes: amountIn + fee of each of its orders, summed
 * per fundingKey (maker|tokenIn, lowercase).
 */
export function batchPulls(calldata: string): Map<string, bigint> {
  const pulls = new Map<string, bigint>();
  const [groups] = orderExecutorInterface().decodeFunctionData('executeBatch', calldata) as unknown as [
    Array<{ tokenIn: string; orders: Array<{ maker: string; amountIn: bigint; fee: bigint }> }>,
  ];
  for (const group of groups) {
    for (const order of group.orders) {
      const key = fundingKey(order.maker, group.tokenIn);
      pulls.set(key, (pulls.get(key) ?? 0n) + order.amountIn + order.fee);
    }
  }
  return pulls;
}
