import type { ChainClient } from '../../chain/chain-client';
import type { Result } from 'ethers';
import {
  bytes32ToAddress,
  FillStatus,
  fundsDepositsOf,
  relayHash,
  type FundsDeposit,
} from '../across/relay-data';
import { contractLogs, latestBlock, readView, uintTopic, type BridgeLog } from '../chain-reads';
import { spokePoolInterface } from '../contracts';
import { NoTransferStatus, type TransferStatusReport } from '../cross-chain-provider';
import {
  deliveredToken,
  readSourceTransaction,
  sourceReport,
  TRANSFER_DETAIL,
  TRANSFER_STATUS,
  type SourceTransaction,
} from '../source-status';
import { intentChain, type IntentDeps } from './intent-deps';

interface Fill {
  txHash: string;
  /** What the recipient received (the deposit's outputAmount; Across's updatedOutputAmount). */
  amount: bigint;
}

function topicOf(name: string): string {
  const event = spokePoolInterface().getEvent(name);
  if (!event) throw new Error(`the SpokePool ABI has no ${name} event`);
  return event.topicHash;
}

/** The FilledRelay of the deposit on the destination SpokePool, matched on the relay's parties and amounts. */
async function findFill(
  client: ChainClient,
  spokePool: string,
  deposit: FundsDeposit,
): Promise<Fill | undefined> {
  const { relayData } = deposit;
  const logs = await contractLogs(client, spokePool, [
    topicOf('FilledRelay'),
    uintTopic(relayData.originChainId),
    uintTopic(relayData.depositId),
  ]);
  for (const log of logs) {
    const parsed = spokePoolInterface().parseLog({ topics: [...log.topics], data: log.data });
    if (!parsed) continue;
    const a = parsed.args;
    const same =
      (a.depositor as string).toLowerCase() === relayData.depositor &&
      (a.recipient as string).toLowerCase() === relayData.recipient &&
      (a.outputToken as string).toLowerCase() === relayData.outputToken &&
      (a.outputAmount as bigint) === relayData.outputAmount;
    if (!same) continue;
    const info = a.relayExecutionInfo as Result;
    return { txHash: log.transactionHash, amount: info.getValue('updatedOutputAmount') as bigint };
  }
  return undefined;
}

/**
 * Whether the deposit's refund is executed on the origin: the keeper's record names the leaf and the transaction,
 * and the chain must confirm it (an ExecutedRelayerRefundRoot of that bundle and leaf, for this token, paying the
 * depositor), so a record alone never reports a refund.
 */
async function refundExecuted(
  deps: IntentDeps,
  client: ChainClient,
  spokePool: string,
  deposit: FundsDeposit,
): Promise<boolean> {
  const record = await deps.refunds?.findByDeposit(
    'intent',
    Number(deposit.relayData.originChainId),
    deposit.relayData.depositId.toString(),
  );
  const refund = record?.refund;
  if (!refund?.txHash) return false;
  const receipt = await client.getTransactionReceipt(refund.txHash);
  if (!receipt || receipt.status !== 1) return false;
  const depositor = bytes32ToAddress(deposit.relayData.depositor).toLowerCase();
  const inputToken = bytes32ToAddress(deposit.relayData.inputToken).toLowerCase();
  const topic = topicOf('ExecutedRelayerRefundRoot');
  return receipt.logs.some((log: BridgeLog) => {
    if (log.address.toLowerCase() !== spokePool.toLowerCase() || log.topics[0] !== topic) return false;
    const a = spokePoolInterface().parseLog({ topics: [...log.topics], data: log.data })?.args;
    if (!a) return false;
    return (
      Number(a.rootBundleId as bigint) === refund.rootBundleId &&
      Number(a.leafId as bigint) === refund.leafId &&
      (a.l2TokenAddress as string).toLowerCase() === inputToken &&
      (a.refundAddresses as string[]).some((address) => address.toLowerCase() === depositor)
    );
  });
}

/** What the deposit itself says, for every status after it. */
function depositReport(
  deps: IntentDeps,
  source: SourceTransaction,
  deposit: FundsDeposit,
  destinationChainId: number,
  status: string,
  detailStatus: string,
): TransferStatusReport {
  const base = sourceReport(deps.chains, source, status, detailStatus);
  const { relayData } = deposit;
  return {
    ...base,
    toChainId: destinationChainId,
    fromAmount: base.fromAmount ?? relayData.inputAmount.toString(),
    fromTokenAddress: base.fromTokenAddress ?? bytes32ToAddress(relayData.inputToken),
    toTokenAddress: deliveredToken(deps.chains, destinationChainId, bytes32ToAddress(relayData.outputToken)),
    bridgeHash: relayHash(relayData, destinationChainId),
  };
}

/**
 * The transfer's status from the chains alone (the store only names a refund's transaction, which the origin then
 * confirms): the source receipt's FundsDeposited, the origin confirmations the relayer waits for, the
 * destination's fill status and FilledRelay, the fill deadline on the destination's clock, and the refund leaf.
 */
export async function intentStatus(
  deps: IntentDeps,
  query: { hash: string; chainId: number },
): Promise<TransferStatusReport> {
  const client = deps.clients.find(query.chainId);
  if (!client) throw new NoTransferStatus(`Chain ${query.chainId} cannot be read (no RPC endpoint)`);
  const origin = intentChain(deps, query.chainId);
  const source = await readSourceTransaction(client, query.hash, origin?.entry);
  if (source.receipt.status !== 1) {
    return sourceReport(deps.chains, source, TRANSFER_STATUS.fromFailure, TRANSFER_DETAIL.fromFailure);
  }
  const deposit = origin
    ? fundsDepositsOf(source.receipt.logs, origin.spokePool, query.chainId)[0]
    : undefined;
  if (!origin || !deposit) {
    return sourceReport(deps.chains, source, TRANSFER_STATUS.invalid, TRANSFER_DETAIL.invalid);
  }
  const destinationChainId = Number(deposit.destinationChainId);
  const report = (status: string, detail: string) =>
    depositReport(deps, source, deposit, destinationChainId, status, detail);
  const head = await client.blockNumber();
  // Confirmations count the deposit's own block, as the relayer counts them.
  if (head - deposit.blockNumber + 1 < deps.settings.intentConfirmations) {
    return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.waiting);
  }
  const destination = intentChain(deps, destinationChainId);
  const destinationClient = deps.clients.find(destinationChainId);
  if (!destination || !destinationClient) {
    throw new NoTransferStatus(`Destination chain ${destinationChainId} of the deposit is not served here`);
  }
  const fillStatus = await readView<bigint>(
    destinationClient,
    spokePoolInterface(),
    destination.spokePool,
    'fillStatuses',
    [relayHash(deposit.relayData, destinationChainId)],
  );
  if (Number(fillStatus) === FillStatus.Filled) {
    const fill = await findFill(destinationClient, destination.spokePool, deposit);
    return {
      ...report(TRANSFER_STATUS.success, TRANSFER_DETAIL.success),
      toTxHash: fill?.txHash ?? null,
      toAmount: (fill?.amount ?? deposit.relayData.outputAmount).toString(),
    };
  }
  const destinationHead = await latestBlock(destinationClient);
  if (destinationHead.timestamp <= deposit.relayData.fillDeadline) {
    return report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.bridgePending);
  }
  // Expired unfilled: no fill can happen any more, the deposit is refunded on the origin.
  return (await refundExecuted(deps, client, origin.spokePool, deposit))
    ? report(TRANSFER_STATUS.refund, TRANSFER_DETAIL.refund)
    : report(TRANSFER_STATUS.pending, TRANSFER_DETAIL.refundPending);
}
