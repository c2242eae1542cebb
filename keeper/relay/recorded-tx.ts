import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import type { TxFate } from '../outbox/follow-transaction';
import type { RelayContext } from './relay-context';
import type { RelaySender } from './relay-sender';

/**
 * The fate of a leased transfer's recorded fill or release, with the lease kept in step: a row without a complete
 * record goes back (nothing was broadcast), a pending transaction keeps its lease, and one stuck for
 * KEEPER_REPLACE_AFTER_BLOCKS is replaced with higher fees (every hash kept on the row: any may be mined). Returns
 * only a final fate (mined, or dropped) for the stage to act on; undefined when there is nothing more to do this
 * tick.
 */
export async function followTransferTx(
  deps: Pick<RelayContext, 'transfers' | 'owner' | 'leaseMs' | 'now' | 'metrics' | 'chainId'> & {
    sender: RelaySender;
  },
  t: Transfer,
  head: number,
): Promise<Exclude<TxFate, { kind: 'pending' }> | undefined> {
  const now = deps.now();
  if (!t.fillTxHash || !t.fillRawTx || !t.fillSender || t.fillNonce === null) {
    await deps.transfers.releaseLease(t.id, deps.owner, now);
    return undefined;
  }
  const fate = await deps.sender.follow(
    {
      txHash: t.fillTxHash,
      rawTx: t.fillRawTx,
      nonce: t.fillNonce,
      sender: t.fillSender,
      hashes: t.fillTxHashes,
      sentBlock: t.fillLastSentBlock ?? t.fillSentBlock,
    },
    head,
    (signed) =>
      deps.transfers.recordFillReplacement(
        t.id,
        deps.owner,
        t.fillTxHash!,
        { txHash: signed.hash, rawTx: signed.raw, sentBlock: head },
        deps.leaseMs,
        deps.now(),
      ),
  );
  if (fate.kind !== 'pending') return fate;
  if (fate.replacedBy) deps.metrics.transactionSent(deps.chainId, true);
  await deps.transfers.renewLease(t.id, deps.owner, deps.leaseMs, now);
  return undefined;
}
