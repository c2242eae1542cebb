import { storedTransferReport, type StoredTransferView } from '../bridges/stored-transfer-status';
import { transferStatusBody, type TransferStatusBody } from '../bridges/transfer-status-body';
import { nullableNumber, sourceOf, type TransferRow } from '../store/repositories/transfer-rows';
import type { ResourceKind } from './resource-kinds';

/** The stored transfer as the status of its source transaction needs it. */
export function storedTransferView(row: TransferRow): StoredTransferView {
  const source = sourceOf(row);
  return {
    provider: row.provider === 'lock-release' ? 'lock-release' : 'intent',
    status: row.status,
    originChainId: Number(row.origin_chain_id),
    destinationChainId: Number(row.destination_chain_id),
    depositTxHash: row.deposit_tx_hash,
    depositId: row.deposit_id,
    relayHash: row.relay_hash,
    inputToken: row.input_token,
    inputAmount: row.input_amount,
    outputToken: row.output_token,
    outputAmount: row.output_amount,
    fillTxHash: row.fill_tx_hash,
    source: source && {
      fromAmount: source.amount,
      fromTokenAddress: source.token,
      toTokenAddress: source.deliveredToken,
    },
    confirmed: nullableNumber(row.confirmed_at ?? null) !== null,
  };
}

/** `data` of a transfer's event: what POST /tx-status answers for its source transaction with our bridge's dexHash. */
export function transferEventData(row: TransferRow): TransferStatusBody {
  return transferStatusBody(storedTransferReport(storedTransferView(row)));
}

/**
 * `transfer.updated`: a cross-chain transfer of our bridges whose source transaction a key's POST /swap built
 * (`api_key`, set when the keeper links the deposit to the build). An event each time the status shows another
 * stage, destination transaction or amount; a keeper move that leaves them as they were (a lease, a postponement,
 * a repayment of our fill) sends nothing.
 */
export const TRANSFER_EVENTS: ResourceKind = {
  table: 'cross_chain_transfers',
  type: 'transfer.updated',
  apiKeyOf: (row) => (typeof row.api_key === 'string' && row.api_key ? row.api_key : null),
  keyOf: (row) => {
    const data = transferEventData(row as unknown as TransferRow);
    return JSON.stringify([
      data.status,
      data.detailStatus,
      data.fromTxHash,
      data.toTxHash,
      data.fromAmount,
      data.toAmount,
    ]);
  },
  render: (row) => transferEventData(row as unknown as TransferRow),
};
