import { diagnosisJson, type DiagnosisJson } from './diagnosis';
import type { LimitOrder } from './limit-order';

/** A limit order in the shape of the spec's field table. */
export interface LimitOrderResponse {
  id: string;
  accountTo: string;
  chainId: number;
  gasPrice: string;
  inTokenAddress: string;
  outTokenAddress: string;
  slippage: string;
  tokenASymbol: string;
  tokenBSymbol: string;
  amount: number;
  price: number;
  priceTrigger: number;
  expired: string;
  txHash: string;
  status: string;
  reasonFail: string[];
  attemptNumber: number;
  allowance: string;
  estimateGas: string;
  effectivePriceGas: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string;
  /** While `pending`: why the order has not filled yet (absent in every other status). */
  diagnosis?: DiagnosisJson;
}

const isoOf = (ms: number): string => new Date(ms).toISOString();

/**
 * The spec reports amount and prices as JSON numbers (doubles) although the store keeps the exact strings sent;
 * internal fields (API key, signature, executor, lease) stay out.
 */
export function limitOrderResponse(order: LimitOrder): LimitOrderResponse {
  return {
    id: order.id,
    accountTo: order.accountTo,
    chainId: order.chainId,
    gasPrice: order.gasPrice,
    inTokenAddress: order.inTokenAddress,
    outTokenAddress: order.outTokenAddress,
    slippage: order.slippage,
    tokenASymbol: order.tokenASymbol,
    tokenBSymbol: order.tokenBSymbol,
    amount: Number(order.amount),
    price: Number(order.price),
    priceTrigger: Number(order.priceTrigger),
    expired: order.expired,
    txHash: order.txHash,
    status: order.status,
    reasonFail: order.reasonFail,
    attemptNumber: order.attemptNumber,
    allowance: order.allowance,
    estimateGas: order.estimateGas,
    effectivePriceGas: order.effectivePriceGas,
    createdAt: isoOf(order.createdAt),
    updatedAt: isoOf(order.updatedAt),
    deletedAt: order.deletedAt === null ? '' : isoOf(order.deletedAt),
    ...(order.status === 'pending' && order.diagnosis ? { diagnosis: diagnosisJson(order.diagnosis) } : {}),
  };
}
