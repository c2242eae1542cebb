import type { ChainClient } from '../../chain/chain-client';
import { contractLogs, readView, uintTopic } from '../chain-reads';
import { lockReleaseBridgeInterface } from '../contracts';
import { NoTransferStatus, type TransferStatusReport } from '../cross-chain-provider';
import {
  deliveredToken,
  readSourceTransaction,
  sourceReport,
  TRANSFER_DETAIL,
  TRANSFER_STATUS,
} from '../source-status';
import { decodeReleased, lockedEventsOf, type LockedEvent, type ReleasedEvent } from './locked-event';
import { lockReleaseChain, type LockReleaseDeps } from './lock-release-deps';

/** The Released event of the lock on the destination bridge. */
async function findRelease(
  client: ChainClient,
  bridge: string,
  originChainId: number,
  lock: LockedEvent,
): Promise<ReleasedEvent | undefined> {
  const event = lockReleaseBridgeInterface().getEvent('Released');
  if (!event) throw new Error('the LockReleaseBridge ABI has no Released event');
  const logs = await contractLogs(client, bridge, [
    event.topicHash,
    uintTopic(originChainId),
    uintTopic(lock.nonce),
  ]);
  return logs.map(decodeReleased).find((released) => released !== undefined);
}

/**
 * The lock's status from the chains: the source receipt's Locked event, the origin confirmations the keeper waits
 * for before relaying, and `released(originChainId, nonce)` with its Released event on the destination.
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
  const released = await readView<boolean>(
    destinationClient,
    lockReleaseBridgeInterface(),
    destination.bridge,
    'released',
    [query.chainId, lock.nonce],
  );
  if (!released) return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending);
  const release = await findRelease(destinationClient, destination.bridge, query.chainId, lock);
  return {
    ...report(TRANSFER_STATUS.success, TRANSFER_DETAIL.success),
    toTxHash: release?.transactionHash ?? null,
    toAmount: (release?.amount ?? lock.outputAmount).toString(),
  };
}
