export const LIMIT_ORDER_STATUSES = [
  'pending',
  'executing',
  'submitted',
  'completed',
  'failed',
  'cancelled',
] as const;
export type LimitOrderStatus = (typeof LIMIT_ORDER_STATUSES)[number];
export const FINAL_LIMIT_ORDER_STATUSES: readonly LimitOrderStatus[] = ['completed', 'failed', 'cancelled'];

/** Fields only the service sets; a client sending any of them gets a 400. */
export const LIMIT_ORDER_SERVICE_FIELDS = [
  'status',
  'txHash',
  'executorAddress',
  'reasonFail',
  'allowance',
  'estimateGas',
  'effectivePriceGas',
] as const;

/** A limit order as stored. Decimal strings are kept exactly as sent, beside the doubles the API reports. */
export interface LimitOrder {
  id: string;
  apiKey: string;
  accountTo: string;
  chainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  tokenASymbol: string;
  tokenBSymbol: string;
  /** Human-readable decimal strings as sent (exact); the API reports them as JSON numbers. */
  amount: string;
  price: string;
  priceTrigger: string;
  gasPrice: string;
  slippage: string;
  /** Unix milliseconds as sent (13 digits). */
  expired: string;
  signature: string;
  status: LimitOrderStatus;
  txHash: string;
  executorAddress: string;
  reasonFail: string[];
  attemptNumber: number;
  allowance: string;
  estimateGas: string;
  effectivePriceGas: string;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}
