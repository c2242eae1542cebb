import type { JsonRpcProvider } from 'ethers';
import { keysOfBatch, type BatchOrderKey } from '../../shared/chain/batch-order-keys';

export { keysOfBatch, type BatchOrderKey };

/**
 * An order's on-chain id binds its execution index, which the store gives it at the keeper's first claim and the
 * API never shows: a test, as an integrator, knows an order's key (orderKeyOf: the id's other fields) and reads each
 * event's order from the calldata of the transaction that emitted it — the order there whose OrderExecutor.orderId
 * (its fields and its index) is the event's id. As strong a proof as the id itself: the event names exactly that
 * order of that transaction.
 */

/** keysOfBatch of a transaction read from the chain (raw JSON-RPC, never a cache), by its hash. */
export async function keysOfTransaction(
  provider: JsonRpcProvider,
  txHash: string,
): Promise<Map<string, BatchOrderKey>> {
  const tx = (await provider.send('eth_getTransactionByHash', [txHash])) as { input: string } | null;
  if (!tx) throw new Error(`the chain has no transaction ${txHash}`);
  return keysOfBatch(tx.input);
}

/** The key of the order an event of `txHash` names by `onchainId`; throws when no order of the transaction has it. */
export function keyOfEvent(
  keys: Map<string, BatchOrderKey>,
  onchainId: string,
  txHash: string,
): BatchOrderKey {
  const found = keys.get(onchainId.toLowerCase());
  if (!found) throw new Error(`the event ${onchainId} of ${txHash} names no order of its transaction`);
  return found;
}
