import { latestBlock } from '../chain-reads';
import { NoTransferStatus, type TransferStatusReport } from '../cross-chain-provider';
import {
  deliveredToken,
  readSourceTransaction,
  sourceReport,
  TRANSFER_DETAIL,
  TRANSFER_STATUS,
} from '../source-status';
import { findReleased, isReleased, LOCK_STATE, pendingReleaseAt, readLock } from './bridge-reads';
import { lockedEventsOf } from './locked-event';
import { lockReleaseChain, type LockReleaseDeps } from './lock-release-deps';

/**
 * The lock's status from the chains: the source receipt's Locked event, the origin confirmations the keeper waits
 * for before relaying, the lock's state on the origin (refunded, or waiting past its deadline for its refund), and
 * on the destination `released(originChainId, originBridge, nonce)` with its Released event (or a release waiting
 * the bridge's delay).
 */
export async function lockReleaseStatus(
  deps: LockReleaseDeps,
  query: { hash: string; chainId: number },
): Promise<TransferStatusReport> {
  const client = deps.clients.find(query.chainId);
  if (!client) throw new NoTransferStatus(`Chain ${query.chainId} cannot be read (no RPC endpoint)`);
  const origin = lockReleaseChain(deps, query.chainId);
  const source = await readSourceTransaction(client, query.hash, origin?.entry);
  if (source.receipt.status !== 1) {
    return sourceReport(deps.chains, source, TRANSFER_STATUS.fromFailure, TRANSFER_DETAIL.fromFailure);
  }
  const lock = origin ? lockedEventsOf(source.receipt.logs, origin.bridge)[0] : undefined;
  if (!origin || !lock)
    return sourceReport(deps.chains, source, TRANSFER_STATUS.invalid, TRANSFER_DETAIL.invalid);
  const destinationChainId = Number(lock.destinationChainId);
  const report = (status: string, detail: string): TransferStatusReport => {
    const base = sourceReport(deps.chains, source, status, detail);
    return {
      ...base,
      toChainId: destinationChainId,
      fromAmount: base.fromAmount ?? lock.inputAmount.toString(),
      fromTokenAddress: base.fromTokenAddress ?? lock.inputToken,
      toTokenAddress: deliveredToken(deps.chains, destinationChainId, lock.outputToken),
      bridgeHash: lock.nonce.toString(),
    };
  };
  const head = await client.blockNumber();
  // Confirmations count the lock's own block, as the keeper counts them.
  if (head - lock.blockNumber + 1 < deps.settings.lockReleaseConfirmations) {
    return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.waiting);
  }
  const destination = lockReleaseChain(deps, destinationChainId);
  const destinationClient = deps.clients.find(destinationChainId);
  if (!destination || !destinationClient) {
    throw new NoTransferStatus(`Destination chain ${destinationChainId} of the lock is not served here`);
  }
  const lockRecord = await readLock(client, origin.bridge, lock.nonce);
  if (lockRecord.state === LOCK_STATE.refunded) return report(TRANSFER_STATUS.refund, TRANSFER_DETAIL.refund);
  if (lockRecord.state === LOCK_STATE.locked) {
    // Not accepted for release: past its deadline the depositor (or the keeper) takes it back on the origin.
    const originTime = (await latestBlock(client)).timestamp;
    return originTime > lockRecord.deadline
      ? report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.refundPending)
      : report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending);
  }
  const message = { originChainId: query.chainId, originBridge: origin.bridge, nonce: lock.nonce };
  if (!(await isReleased(destinationClient, destination.bridge, message)))
    return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending);
  if ((await pendingReleaseAt(destinationClient, destination.bridge, message)) !== undefined)
    return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.releaseDelayed);
  const release = await findReleased(destinationClient, destination.bridge, message);
  if (!release) return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending);
  return {
    ...report(TRANSFER_STATUS.success, TRANSFER_DETAIL.success),
    toTxHash: release.transactionHash,
    toAmount: release.amount.toString(),
  };
}
