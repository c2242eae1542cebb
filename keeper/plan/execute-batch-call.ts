import { Interface, getAddress } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import type { PathParams } from '../../shared/routing/swap-calldata';

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

/** Calls that read the contract's settings and state (maxFeeBps, executed(id)). */
export const orderExecutorInterface = (): Interface => ORDER_EXECUTOR;
