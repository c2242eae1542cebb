import type { TransactionReceipt } from 'ethers';
import type { ChainClient } from '../chain/chain-client';
import type { ChainRegistry } from '../chain/chain-registry';
import { NATIVE_TOKEN_ADDRESS } from '../domain/addresses';
import { NoTransferStatus, type TransferStatusReport } from './cross-chain-provider';
import { decodeEntryCall, type EntryCall } from './entry-call';

/**
 * The statuses the devnet providers report, in OKX's cross-chain vocabulary: `status` is SUCCESS, REFUND,
 * FROM_FAILURE, INVALID (final) or PENDING (in progress), `detailStatus` the stage.
 */
export const TRANSFER_STATUS = {
  pending: 'PENDING',
  success: 'SUCCESS',
  refund: 'REFUND',
  fromFailure: 'FROM_FAILURE',
  invalid: 'INVALID',
} as const;

export const TRANSFER_DETAIL = {
  /** The deposit has fewer origin confirmations than the relay waits for. */
  waiting: 'WAITING',
  /** Confirmed on the origin, not yet filled or released on the destination. */
  bridgePending: 'BRIDGE_PENDING',
  /** Released on the destination behind the bridge's delay (past the token's hourly limit): paid once it ends. */
  releaseDelayed: 'RELEASE_DELAYED',
  success: 'SUCCESS',
  /** Expired unfilled: the refund to the depositor on the origin is not executed yet. */
  refundPending: 'REFUND_PENDING',
  refund: 'REFUND',
  fromFailure: 'FROM_FAILURE',
  invalid: 'INVALID',
} as const;

/** The source transaction as mined, with the entry call it made when it was sent to our CrossChainEntry. */
export interface SourceTransaction {
  chainId: number;
  hash: string;
  receipt: TransactionReceipt;
  /** Undefined when the transaction went elsewhere or called something else. */
  call: EntryCall | undefined;
}

/**
 * The mined source transaction; NoTransferStatus while it is not mined (the api's 500 TX_STATUS_ERROR, which the
 * spec says to expect right after the broadcast).
 */
export async function readSourceTransaction(
  client: ChainClient,
  hash: string,
  entry: string | undefined,
): Promise<SourceTransaction> {
  const [receipt, tx] = await Promise.all([client.getTransactionReceipt(hash), client.getTransaction(hash)]);
  if (!receipt) {
    throw new NoTransferStatus(
      tx
        ? `Transaction ${hash} is not mined on chain ${client.chainId} yet; keep polling`
        : `Transaction ${hash} is not known on chain ${client.chainId} (not broadcast yet, dropped, or sent on another chain); keep polling`,
    );
  }
  const call = tx && entry ? decodeEntryCall(tx, entry) : undefined;
  return { chainId: client.chainId, hash: receipt.hash, receipt, call };
}

/**
 * The output token as the recipient gets it: the wrapped native of the destination arrives as the native coin
 * (both devnet bridges unwrap it for an account without code), so it is reported as the native pseudo-address.
 */
export function deliveredToken(chains: ChainRegistry, chainId: number, outputToken: string): string {
  const wrapped = chains.get(chainId)?.wrappedNative.toLowerCase();
  return outputToken.toLowerCase() === wrapped ? NATIVE_TOKEN_ADDRESS : outputToken;
}

/** What POST /tx-status shows of an entry call that its calldata and value alone fix. */
export interface EntryCallFields {
  toChainId: number;
  fromAmount: string;
  fromTokenAddress: string;
  toTokenAddress: string;
}

/** The fields of a call to our entry as the status shows them (a transfer build records them the same way). */
export function entryCallFields(chains: ChainRegistry, call: EntryCall): EntryCallFields {
  return {
    toChainId: call.destinationChainId,
    fromAmount: call.spent.toString(),
    fromTokenAddress: call.nativeInput ? NATIVE_TOKEN_ADDRESS : call.inputToken,
    toTokenAddress: deliveredToken(chains, call.destinationChainId, call.outputToken),
  };
}

/** A report with what the source transaction alone tells; the provider fills in the rest. */
export function sourceReport(
  chains: ChainRegistry,
  source: SourceTransaction,
  status: string,
  detailStatus: string,
): TransferStatusReport {
  // Only a call to our entry names the destination; a transaction of anything else has none.
  const fields = source.call ? entryCallFields(chains, source.call) : undefined;
  return {
    fromChainId: source.chainId,
    toChainId: fields?.toChainId ?? null,
    fromTxHash: source.hash,
    toTxHash: null,
    fromAmount: fields?.fromAmount ?? null,
    toAmount: null,
    fromTokenAddress: fields?.fromTokenAddress ?? null,
    toTokenAddress: fields?.toTokenAddress ?? null,
    bridgeHash: null,
    status,
    detailStatus,
  };
}
