import { Interface, getAddress } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import type { PathParams } from '../../shared/routing/swap-calldata';
import { fundingKey } from './funding-check';

const ORDER_EXECUTOR = new Interface(loadArtifact('OrderExecutor').abi);

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
  return ORDER_EXECUTOR.encodeFunctionData('executeBatch', [
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
  const [groups] = ORDER_EXECUTOR.decodeFunctionData('executeBatch', calldata) as unknown as [
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

/** Calls that read the contract's settings and state (maxFeeBps, executed(id)). */
export const orderExecutorInterface = (): Interface => ORDER_EXECUTOR;
