import { diagnosisJson, type DiagnosisJson } from './diagnosis';
import type { DcaOrder, DcaStrategy, DcaStrategyWithOrders } from './dca';

export interface DcaStrategyJson {
  id: string;
  accountTo: string;
  chainIdFrom: number;
  chainIdTo: number;
  tokenAddressFrom: string;
  tokenAddressTo: string;
  tokenSymbolFrom: string;
  tokenSymbolTo: string;
  totalAmount: number;
  iterations: number;
  frequency: number;
  slippage: number;
  minPrice?: number;
  maxPrice?: number;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export interface DcaOrderJson {
  id: string;
  strategyId: string;
  accountTo: string;
  amount: number;
  amountReceived?: number;
  executionPrice?: number;
  status: string;
  transactionHash?: string;
  errorMessage?: string;
  /** While `pending`: why the order has not executed yet. */
  diagnosis?: DiagnosisJson;
  createdAt: string;
  updatedAt: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The strategy as the spec lists it: `pair`, `signature` and the keeper's bookkeeping stay inside. */
export function strategyJson(s: DcaStrategy): DcaStrategyJson {
  return {
    id: s.id,
    accountTo: s.accountTo,
    chainIdFrom: s.chainIdFrom,
    chainIdTo: s.chainIdTo,
    tokenAddressFrom: s.tokenAddressFrom,
    tokenAddressTo: s.tokenAddressTo,
    tokenSymbolFrom: s.tokenSymbolFrom,
    tokenSymbolTo: s.tokenSymbolTo,
    totalAmount: s.totalAmount,
    iterations: s.iterations,
    frequency: s.frequency,
    slippage: s.slippage,
    ...(s.minPrice !== null ? { minPrice: s.minPrice } : {}),
    ...(s.maxPrice !== null ? { maxPrice: s.maxPrice } : {}),
    status: s.status,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

/** Execution results appear only once the keeper recorded them; an empty string counts as not recorded. */
export function dcaOrderJson(o: DcaOrder): DcaOrderJson {
  return {
    id: o.id,
    strategyId: o.strategyId,
    accountTo: o.accountTo,
    amount: o.amount,
    ...(o.amountReceived !== null ? { amountReceived: o.amountReceived } : {}),
    ...(o.executionPrice !== null ? { executionPrice: o.executionPrice } : {}),
    status: o.status,
    ...(o.transactionHash ? { transactionHash: o.transactionHash } : {}),
    ...(o.errorMessage ? { errorMessage: o.errorMessage } : {}),
    ...(o.status === 'pending' && o.diagnosis ? { diagnosis: diagnosisJson(o.diagnosis) } : {}),
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
  };
}

export function strategyWithOrdersJson(
  s: DcaStrategyWithOrders,
): DcaStrategyJson & { orders: DcaOrderJson[] } {
  return { ...strategyJson(s), orders: s.orders.map(dcaOrderJson) };
}
