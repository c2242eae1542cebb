import { orderExecutorInterface } from './contract-interfaces';
import { onchainOrderIdOf, orderKeyOf } from '../domain/pair-authorization';

/** An order of an executeBatch calldata: its key and its group's pair (checksummed). */
export interface BatchOrderKey {
  key: string;
  tokenIn: string;
  tokenOut: string;
  index: bigint;
}

/** The orders of an executeBatch calldata by their on-chain id (lowercase); empty for any other calldata. */
export function keysOfBatch(input: string): Map<string, BatchOrderKey> {
  const keys = new Map<string, BatchOrderKey>();
  let groups: Array<{
    tokenIn: string;
    tokenOut: string;
    orders: Array<{ maker: string; index: bigint; ref: string; integrator: string; amountIn: bigint }>;
  }>;
  try {
    [groups] = orderExecutorInterface().decodeFunctionData('executeBatch', input) as unknown as [
      typeof groups,
    ];
  } catch {
    return keys;
  }
  for (const group of groups) {
    for (const order of group.orders) {
      // Named fields one by one: a decoded struct (an ethers Result) does not spread them.
      const fields = {
        maker: order.maker,
        index: order.index,
        ref: order.ref,
        integrator: order.integrator,
        amountIn: order.amountIn,
        tokenIn: group.tokenIn,
        tokenOut: group.tokenOut,
      };
      keys.set(onchainOrderIdOf(fields), {
        key: orderKeyOf(fields),
        tokenIn: group.tokenIn,
        tokenOut: group.tokenOut,
        index: order.index,
      });
    }
  }
  return keys;
}
