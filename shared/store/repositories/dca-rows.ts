import { parseDiagnosis, serializeDiagnosis } from '../../domain/diagnosis';
import type { DcaOrder, DcaOrderStatus, DcaStrategy, DcaStrategyStatus } from '../../domain/dca';

/** Both drivers may hand BIGINT and DOUBLE columns back as strings; every numeric column goes through Number. */
type Numeric = number | string;

export interface DcaStrategyRow {
  id: string;
  api_key: string;
  account_to: string;
  chain_id_from: Numeric;
  chain_id_to: Numeric;
  token_from: string;
  token_to: string;
  symbol_from: string;
  symbol_to: string;
  pair: string;
  total_amount: Numeric;
  iterations: Numeric;
  frequency: Numeric;
  slippage: Numeric;
  min_price: Numeric | null;
  max_price: Numeric | null;
  status: string;
  signature: string;
  max_fee_bps: Numeric | null;
  iterations_created: Numeric;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  version: Numeric;
  created_at: Numeric;
  updated_at: Numeric;
}

export interface DcaOrderRow {
  id: string;
  strategy_id: string;
  api_key: string;
  account_to: string;
  iteration: Numeric;
  slot_at: Numeric;
  amount: Numeric;
  amount_received: Numeric | null;
  execution_price: Numeric | null;
  status: string;
  transaction_hash: string | null;
  error_message: string | null;
  diagnosis?: string | null;
  attempt_number: Numeric;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  created_at: Numeric;
  updated_at: Numeric;
}

const numberOrNull = (value: Numeric | null): number | null => (value === null ? null : Number(value));

export function strategyFromRow(row: DcaStrategyRow): DcaStrategy {
  return {
    id: row.id,
    apiKey: row.api_key,
    accountTo: row.account_to,
    chainIdFrom: Number(row.chain_id_from),
    chainIdTo: Number(row.chain_id_to),
    tokenAddressFrom: row.token_from,
    tokenAddressTo: row.token_to,
    tokenSymbolFrom: row.symbol_from,
    tokenSymbolTo: row.symbol_to,
    pair: row.pair,
    totalAmount: Number(row.total_amount),
    iterations: Number(row.iterations),
    frequency: Number(row.frequency),
    slippage: Number(row.slippage),
    minPrice: numberOrNull(row.min_price),
    maxPrice: numberOrNull(row.max_price),
    // The keeper may write statuses this process does not know yet; they pass through unchanged.
    status: row.status as DcaStrategyStatus,
    signature: row.signature,
    maxFeeBps: numberOrNull(row.max_fee_bps),
    iterationsCreated: Number(row.iterations_created),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function strategyToRow(s: DcaStrategy): Omit<DcaStrategyRow, 'lease_owner' | 'lease_expires_at'> {
  return {
    id: s.id,
    api_key: s.apiKey,
    account_to: s.accountTo,
    chain_id_from: s.chainIdFrom,
    chain_id_to: s.chainIdTo,
    token_from: s.tokenAddressFrom,
    token_to: s.tokenAddressTo,
    symbol_from: s.tokenSymbolFrom,
    symbol_to: s.tokenSymbolTo,
    pair: s.pair,
    total_amount: s.totalAmount,
    iterations: s.iterations,
    frequency: s.frequency,
    slippage: s.slippage,
    min_price: s.minPrice,
    max_price: s.maxPrice,
    status: s.status,
    signature: s.signature,
    max_fee_bps: s.maxFeeBps,
    iterations_created: s.iterationsCreated,
    version: s.version,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export function orderFromRow(row: DcaOrderRow): DcaOrder {
  return {
    id: row.id,
    strategyId: row.strategy_id,
    apiKey: row.api_key,
    accountTo: row.account_to,
    iteration: Number(row.iteration),
    slotAt: Number(row.slot_at),
    amount: Number(row.amount),
    amountReceived: numberOrNull(row.amount_received),
    executionPrice: numberOrNull(row.execution_price),
    status: row.status as DcaOrderStatus,
    transactionHash: row.transaction_hash,
    errorMessage: row.error_message,
    diagnosis: parseDiagnosis(row.diagnosis),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function orderToRow(
  o: DcaOrder,
): Omit<DcaOrderRow, 'attempt_number' | 'lease_owner' | 'lease_expires_at'> {
  return {
    id: o.id,
    strategy_id: o.strategyId,
    api_key: o.apiKey,
    account_to: o.accountTo,
    iteration: o.iteration,
    slot_at: o.slotAt,
    amount: o.amount,
    amount_received: o.amountReceived,
    execution_price: o.executionPrice,
    status: o.status,
    transaction_hash: o.transactionHash,
    error_message: o.errorMessage,
    diagnosis: o.diagnosis ? serializeDiagnosis(o.diagnosis) : null,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
  };
}
