import { decodeExecuteBatchCalldata, type DecodedBatchGroup } from './execute-batch-calldata';
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
  let groups: DecodedBatchGroup[];
  try {
    ({ groups } = decodeExecuteBatchCalldata(input));
  } catch {
    return keys;
  }
  for (const group of groups) {
    for (const order of group.orders) {
      const fields = { ...order, tokenIn: group.tokenIn, tokenOut: group.tokenOut };
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
