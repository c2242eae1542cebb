import { getAddress } from 'ethers';
import { bytes32ToAddress } from './across/relay-data';
import type { TransferStatusReport } from './cross-chain-provider';
import { TRANSFER_DETAIL, TRANSFER_STATUS, type EntryCallFields } from './source-status';

/**
 * A relayed transfer as the keeper's store holds it: what POST /tx-status reads from the chains for the source
 * transaction of one of our bridges, as the keeper last wrote it down (the `transfer.updated` events carry it).
 */
export interface StoredTransferView {
  provider: 'intent' | 'lock-release';
  /** The keeper's state (transfer-rows.ts: deposited, filling, filled, … / locked, releasing, released, …). */
  status: string;
  originChainId: number;
  destinationChainId: number;
  depositTxHash: string;
  depositId: string;
  relayHash: string | null;
  /** Intents: bytes32 as the deposit carries them; locks: addresses. */
  inputToken: string;
  inputAmount: string;
  outputToken: string;
  outputAmount: string;
  /** The destination transaction that paid the output, once done. */
  fillTxHash: string | null;
  /** What the source transaction's calldata fixes (its build); null: not known (the deposit's own figures). */
  source: Pick<EntryCallFields, 'fromAmount' | 'fromTokenAddress' | 'toTokenAddress'> | null;
  /** Whether the keeper found the deposit with its origin confirmations (WAITING until then). */
  confirmed: boolean;
}

type Stage = readonly [status: string, detailStatus: string];

const WAITING: Stage = [TRANSFER_STATUS.pending, TRANSFER_DETAIL.waiting];
const BRIDGE_PENDING: Stage = [TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending];
const RELEASE_DELAYED: Stage = [TRANSFER_STATUS.pending, TRANSFER_DETAIL.releaseDelayed];
const REFUND_PENDING: Stage = [TRANSFER_STATUS.pending, TRANSFER_DETAIL.refundPending];
const SUCCESS: Stage = [TRANSFER_STATUS.success, TRANSFER_DETAIL.success];
const REFUND: Stage = [TRANSFER_STATUS.refund, TRANSFER_DETAIL.refund];

/**
 * The status the chains show in each of the keeper's states, as intentStatus and lockReleaseStatus read it:
 * - an initial deposit waits for its origin confirmations (WAITING), then for its fill or release (BRIDGE_PENDING);
 *   a deposit whose block left the chain (reorged) waits for them again;
 * - intents: filled (and repaid) or filled by another relayer: SUCCESS; expired unfilled: REFUND_PENDING until its
 *   refund leaf is executed (refunded: REFUND);
 * - locks: a release waiting the bridge's delay is RELEASE_DELAYED, released is SUCCESS; a cancelled release leaves
 *   the message taken and unpaid (BRIDGE_PENDING); a lock the keeper refused is never released, its refund on the
 *   origin is what is left (REFUND_PENDING; the chains say so once its deadline passed), refunded is REFUND.
 */
const STAGES: Readonly<Record<StoredTransferView['provider'], Readonly<Record<string, Stage>>>> = {
  intent: {
    filling: BRIDGE_PENDING,
    filled: SUCCESS,
    repaid: SUCCESS,
    filled_by_other: SUCCESS,
    expired: REFUND_PENDING,
    refunded: REFUND,
    reorged: WAITING,
  },
  'lock-release': {
    releasing: BRIDGE_PENDING,
    release_queued: RELEASE_DELAYED,
    released: SUCCESS,
    release_cancelled: BRIDGE_PENDING,
    refused: REFUND_PENDING,
    refunded: REFUND,
    reorged: WAITING,
  },
};
const INITIAL: Readonly<Record<StoredTransferView['provider'], string>> = {
  intent: 'deposited',
  'lock-release': 'locked',
};

/** An address as the chains report it (checksummed); intents store bytes32. */
function addressOf(value: string): string {
  if (/^0x[0-9a-fA-F]{64}$/.test(value)) {
    try {
      return bytes32ToAddress(value);
    } catch {
      return value;
    }
  }
  try {
    return getAddress(value);
  } catch {
    return value;
  }
}

/** The POST /tx-status report of the transfer's source transaction, from what the keeper stored. */
export function storedTransferReport(t: StoredTransferView): TransferStatusReport {
  const stage =
    t.status === INITIAL[t.provider]
      ? t.confirmed
        ? BRIDGE_PENDING
        : WAITING
      : (STAGES[t.provider][t.status] ?? BRIDGE_PENDING);
  const done = stage === SUCCESS;
  // The destination transaction that paid the recipient: our fill or release, or another relayer's fill (checked
  // against reorgs of the destination as ours are); null while not done, or when another's fill was not found.
  const toTxHash = done ? t.fillTxHash : null;
  return {
    fromChainId: t.originChainId,
    toChainId: t.destinationChainId,
    fromTxHash: t.depositTxHash,
    toTxHash,
    fromAmount: t.source?.fromAmount ?? t.inputAmount,
    toAmount: done ? t.outputAmount : null,
    fromTokenAddress: t.source?.fromTokenAddress ?? addressOf(t.inputToken),
    toTokenAddress: t.source?.toTokenAddress ?? addressOf(t.outputToken),
    bridgeHash: t.provider === 'intent' ? t.relayHash : t.depositId,
    status: stage[0],
    detailStatus: stage[1],
  };
}
