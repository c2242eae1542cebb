import { parseDiagnosis, serializeDiagnosis } from '../../domain/diagnosis';
import type { LimitOrder, LimitOrderStatus } from '../../domain/limit-order';

/** Both drivers may hand BIGINT and DOUBLE columns back as strings; every numeric column goes through Number. */
type Numeric = number | string;

/** A `limit_orders` row as the api writes it; the keeper's columns (`keeper_tx_id`) are added by its repository. */
export interface LimitOrderRow {
  id: string;
  api_key: string;
  account_to: string;
  chain_id: Numeric;
  in_token: string;
  out_token: string;
  token_a_symbol: string;
  token_b_symbol: string;
  amount: string;
  price: string;
  price_trigger: string;
  price_trigger_num: Numeric;
  gas_price: string;
  slippage: string;
  expired: string;
  expires_at: Numeric;
  signature: string;
  max_fee_bps: Numeric | null;
  status: string;
  tx_hash: string;
  executor_address: string;
  reason_fail: string;
  attempt_number: Numeric;
  allowance: string;
  estimate_gas: string;
  effective_price_gas: string;
  diagnosis?: string | null;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  next_attempt_at: Numeric;
  version: Numeric;
  created_at: Numeric;
  updated_at: Numeric;
  deleted_at: Numeric | null;
}

const nullableNumber = (value: Numeric | null): number | null => (value === null ? null : Number(value));

/** The `reason_fail` column's JSON list; anything unreadable reads as no reasons. */
export function parseReasonFail(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function limitOrderFromRow(row: LimitOrderRow): LimitOrder {
  return {
    id: row.id,
    apiKey: row.api_key,
    accountTo: row.account_to,
    chainId: Number(row.chain_id),
    inTokenAddress: row.in_token,
    outTokenAddress: row.out_token,
    tokenASymbol: row.token_a_symbol,
    tokenBSymbol: row.token_b_symbol,
    amount: row.amount,
    price: row.price,
    priceTrigger: row.price_trigger,
    gasPrice: row.gas_price,
    slippage: row.slippage,
    expired: row.expired,
    signature: row.signature,
    maxFeeBps: nullableNumber(row.max_fee_bps),
    // Reported as stored, even a status a newer keeper wrote: clients treat unknown ones as not final.
    status: row.status as LimitOrderStatus,
    txHash: row.tx_hash,
    executorAddress: row.executor_address,
    reasonFail: parseReasonFail(row.reason_fail),
    attemptNumber: Number(row.attempt_number),
    allowance: row.allowance,
    estimateGas: row.estimate_gas,
    effectivePriceGas: row.effective_price_gas,
    diagnosis: parseDiagnosis(row.diagnosis),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: nullableNumber(row.lease_expires_at),
    nextAttemptAt: Number(row.next_attempt_at),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deletedAt: nullableNumber(row.deleted_at),
  };
}

export function limitOrderToRow(order: LimitOrder): LimitOrderRow {
  return {
    id: order.id,
    api_key: order.apiKey,
    account_to: order.accountTo,
    chain_id: order.chainId,
    in_token: order.inTokenAddress,
    out_token: order.outTokenAddress,
    token_a_symbol: order.tokenASymbol,
    token_b_symbol: order.tokenBSymbol,
    amount: order.amount,
    price: order.price,
    price_trigger: order.priceTrigger,
    price_trigger_num: Number(order.priceTrigger),
    gas_price: order.gasPrice,
    slippage: order.slippage,
    expired: order.expired,
    expires_at: Number(order.expired),
    signature: order.signature,
    max_fee_bps: order.maxFeeBps,
    status: order.status,
    tx_hash: order.txHash,
    executor_address: order.executorAddress,
    reason_fail: JSON.stringify(order.reasonFail),
    attempt_number: order.attemptNumber,
    allowance: order.allowance,
    estimate_gas: order.estimateGas,
    effective_price_gas: order.effectivePriceGas,
    diagnosis: order.diagnosis ? serializeDiagnosis(order.diagnosis) : null,
    lease_owner: order.leaseOwner,
    lease_expires_at: order.leaseExpiresAt,
    next_attempt_at: order.nextAttemptAt,
    version: order.version,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    deleted_at: order.deletedAt,
  };
}
