import type { Diagnosis } from './diagnosis';

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
  /**
   * The fee cap the maker signed with `signature` (PairAuthorization.maxFeeBps); null: not given at creation, read
   * as the OrderExecutor's cap when the order runs (a signature made for another cap then fails BAD_SIGNATURE).
   */
  maxFeeBps: number | null;
  status: LimitOrderStatus;
  txHash: string;
  executorAddress: string;
  reasonFail: string[];
  attemptNumber: number;
  allowance: string;
  estimateGas: string;
  effectivePriceGas: string;
  /** Why the order has not filled, as the keeper last judged it; shown while `pending`. */
  diagnosis: Diagnosis | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** Unix milliseconds before which the keeper does not retry the order. */
  nextAttemptAt: number;
  /** Bumped on every write, so a keeper holding a lease can tell the order changed under it. */
  version: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

/**
 * What a client chooses when creating an order; everything else starts at the service's initial values. The
 * signed fee cap is optional (clients from before it existed do not send it).
 */
export type LimitOrderInput = Partial<Pick<LimitOrder, 'maxFeeBps'>> &
  Pick<
    LimitOrder,
    | 'accountTo'
    | 'chainId'
    | 'inTokenAddress'
    | 'outTokenAddress'
    | 'tokenASymbol'
    | 'tokenBSymbol'
    | 'amount'
    | 'price'
    | 'priceTrigger'
    | 'gasPrice'
    | 'slippage'
    | 'expired'
    | 'signature'
  >;

/** Fields a client may change with PATCH while the order is pending. */
export const LIMIT_ORDER_MUTABLE_FIELDS = [
  'priceTrigger',
  'price',
  'amount',
  'expired',
  'slippage',
  'gasPrice',
] as const;
export type LimitOrderChanges = Partial<Pick<LimitOrder, (typeof LIMIT_ORDER_MUTABLE_FIELDS)[number]>>;

/** Fields fixed at creation: the maker's signature covers the maker, the pair and the chain. */
export const LIMIT_ORDER_IMMUTABLE_FIELDS = [
  'accountTo',
  'chainId',
  'inTokenAddress',
  'outTokenAddress',
  'tokenASymbol',
  'tokenBSymbol',
  'signature',
  'maxFeeBps',
] as const;

/**
 * A new order as the api creates it: pending, nothing executed yet. Only the fields of LimitOrderInput are taken
 * from `input` (a request body may carry more), written one by one in one object shape.
 */
export function newPendingLimitOrder(
  id: string,
  apiKey: string,
  input: LimitOrderInput,
  now: number,
): LimitOrder {
  return {
    id,
    apiKey,
    accountTo: input.accountTo,
    chainId: input.chainId,
    inTokenAddress: input.inTokenAddress,
    outTokenAddress: input.outTokenAddress,
    tokenASymbol: input.tokenASymbol,
    tokenBSymbol: input.tokenBSymbol,
    amount: input.amount,
    price: input.price,
    priceTrigger: input.priceTrigger,
    gasPrice: input.gasPrice,
    slippage: input.slippage,
    expired: input.expired,
    signature: input.signature,
    maxFeeBps: input.maxFeeBps ?? null,
    status: 'pending',
    txHash: '',
    executorAddress: '',
    reasonFail: [],
    attemptNumber: 0,
    allowance: '',
    estimateGas: '',
    effectivePriceGas: '',
    diagnosis: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    nextAttemptAt: 0,
    version: 0,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}
