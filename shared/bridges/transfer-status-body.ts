import type { TransferStatusReport } from './cross-chain-provider';

/** `data` of a POST /tx-status 200, as the `transfer.updated` events carry it too. */
export type TransferStatusBody = Omit<TransferStatusReport, 'status' | 'detailStatus'> & {
  errorMsg: null;
  status: string;
  detailStatus: string | null;
};

/** The spec's field order, with errorMsg (always null in a 200) before the two statuses. */
export function transferStatusBody(report: TransferStatusReport): TransferStatusBody {
  return {
    fromChainId: report.fromChainId,
    toChainId: report.toChainId,
    fromTxHash: report.fromTxHash,
    toTxHash: report.toTxHash,
    fromAmount: report.fromAmount,
    toAmount: report.toAmount,
    fromTokenAddress: report.fromTokenAddress,
    toTokenAddress: report.toTokenAddress,
    bridgeHash: report.bridgeHash,
    errorMsg: null,
    status: report.status,
    detailStatus: report.detailStatus,
  };
}
