import type { Diagnosis } from './diagnosis';

export const DCA_STRATEGY_STATUSES = ['pending', 'active', 'cancelled', 'finished'] as const;
export type DcaStrategyStatus = (typeof DCA_STRATEGY_STATUSES)[number];
/** Statuses a client may filter the strategy list by (`pending` is reserved for the service). */
export const DCA_STRATEGY_LIST_STATUSES = ['active', 'cancelled', 'finished'] as const;

export const DCA_ORDER_STATUSES = [
  'pending',
  'executing',
  'successful',
  'cancelled',
  'error',
  'expired',
] as const;
export type DcaOrderStatus = (typeof DCA_ORDER_STATUSES)[number];

export interface DcaStrategy {
  id: string;
  apiKey: string;
  accountTo: string;
  chainIdFrom: number;
  chainIdTo: number;
  tokenAddressFrom: string;
  tokenAddressTo: string;
  tokenSymbolFrom: string;
  tokenSymbolTo: string;
  pair: string;
  totalAmount: number;
  iterations: number;
  /** Seconds between iterations. */
  frequency: number;
  slippage: number;
  minPrice: number | null;
  maxPrice: number | null;
  status: DcaStrategyStatus;
  signature: string;
  /**
   * The fee cap the maker signed with `signature` (PairAuthorization.maxFeeBps); null: not given at creation, read
   * as the OrderExecutor's cap when an iteration runs (a signature made for another cap then fails BAD_SIGNATURE).
   */
  maxFeeBps: number | null;
  /** How many iterations the keeper has created so far (the next slot index). */
  iterationsCreated: number;
  /** Bumped on every change so a keeper can tell that a strategy changed under it. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** A strategy with its orders oldest first, as the list endpoint reports it. */
export interface DcaStrategyWithOrders extends DcaStrategy {
  orders: DcaOrder[];
}

export interface DcaOrder {
  id: string;
  strategyId: string;
  apiKey: string;
  accountTo: string;
  /** 0-based iteration index; the slot is `strategy.createdAt + iteration × frequency`. */
  iteration: number;
  slotAt: number;
  amount: number;
  amountReceived: number | null;
  executionPrice: number | null;
  status: DcaOrderStatus;
  transactionHash: string | null;
  errorMessage: string | null;
  /** Why the order has not executed yet, as the keeper last judged it; shown while `pending`. */
  diagnosis: Diagnosis | null;
  createdAt: number;
  updatedAt: number;
}
