import type { TransactionReceipt } from 'ethers';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import { isOutageError } from '../watch/chain-availability';
import type { RelayContext } from './relay-context';

/** A transaction the keeper recorded in the store after signing and before broadcasting it. */
export interface RecordedTx {
  txHash: string;
  rawTx: string;
  nonce: number;
  /** The address that signed it. */
  sender: string;
}

/**
 * What became of a recorded transaction: `mined` (its receipt, success or revert), `pending` (the node has it, or
 * was just given it again), `dropped` (its nonce was used by another transaction: it can never be mined).
 */
export type TxFate =
  { kind: 'mined'; receipt: TransactionReceipt } | { kind: 'pending' } | { kind: 'dropped' };

/**
 * Checks the chain for a recorded transaction before anything is sent again: its receipt; else whether the node
 * knows it; else whether its nonce is used (then it is gone for good); else it was never broadcast, or the node
 * forgot it, and the raw transaction is broadcast again (the same nonce and hash: never a second transaction).
 * An unreachable node throws, and the caller looks again later.
 */
export async function followRecorded(client: ChainClient, tx: RecordedTx): Promise<TxFate> {
  const receipt = await client.getTransactionReceipt(tx.txHash);
  if (receipt) return { kind: 'mined', receipt };
  if ((await client.getTransaction(tx.txHash)) !== null) return { kind: 'pending' };
  const count = Number(BigInt(String(await client.send('eth_getTransactionCount', [tx.sender, 'latest']))));
  if (count > tx.nonce) {
    // Mined between the two reads?
    const late = await client.getTransactionReceipt(tx.txHash);
    return late ? { kind: 'mined', receipt: late } : { kind: 'dropped' };
  }
  try {
    await client.send('eth_sendRawTransaction', [tx.rawTx]);
  } catch (err) {
    if (isOutageError(err)) throw err;
    // "already known" or "nonce too low": it is (or was) out there; the next look tells which.
  }
  return { kind: 'pending' };
}

/**
 * The fate of a leased transfer's recorded fill or release, with the lease kept in step: a row without a complete
 * record goes back (nothing was broadcast), a pending transaction keeps its lease. Returns only a final fate
 * (mined, or dropped) for the stage to act on; undefined when there is nothing more to do this tick.
 */
export async function followTransferTx(
  deps: Pick<RelayContext, 'transfers' | 'owner' | 'leaseMs' | 'now'> & { client: ChainClient },
  t: Transfer,
): Promise<Exclude<TxFate, { kind: 'pending' }> | undefined> {
  const now = deps.now();
  if (!t.fillTxHash || !t.fillRawTx || !t.fillSender || t.fillNonce === null) {
    await deps.transfers.releaseLease(t.id, deps.owner, now);
    return undefined;
  }
  const fate = await followRecorded(deps.client, {
    txHash: t.fillTxHash,
    rawTx: t.fillRawTx,
    nonce: t.fillNonce,
    sender: t.fillSender,
  });
  if (fate.kind !== 'pending') return fate;
  await deps.transfers.renewLease(t.id, deps.owner, deps.leaseMs, now);
  return undefined;
}
