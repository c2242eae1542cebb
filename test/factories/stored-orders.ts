import { randomUUID } from 'node:crypto';
import type { DcaOrder, DcaStrategy } from '../../shared/domain/dca';
import { newPendingLimitOrder, type LimitOrder, type LimitOrderInput } from '../../shared/domain/limit-order';
import { CHAIN_1, DAY_MS, FACTORY_MAKER, PLACEHOLDER_SIGNATURE } from './defaults';

/**
 * Rows as the store keeps them, for store-level tests: a pending limit order selling 1.5 WETH for USDC on chain 1
 * and an active strategy selling 3 WETH in three iterations, both of FACTORY_MAKER under STORED_API_KEY.
 */

export const STORED_API_KEY = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
/** A fixed "now" (2027-01-15), so rows built in one test compare exactly. */
export const STORED_NOW = 1_800_000_000_000;

/** What a maker sends for storedLimitOrder: 1.5 WETH for USDC on chain 1 at 3,500, expiring a day after STORED_NOW. */
export function storedLimitOrderInput(): LimitOrderInput {
  return {
    accountTo: FACTORY_MAKER,
    chainId: CHAIN_1.chainId,
    inTokenAddress: CHAIN_1.WETH.address,
    outTokenAddress: CHAIN_1.USDC.address,
    tokenASymbol: 'WETH',
    tokenBSymbol: 'USDC',
    amount: '1.5',
    price: '3500',
    priceTrigger: '3500',
    gasPrice: '20',
    slippage: '0.5',
    expired: String(STORED_NOW + DAY_MS),
    signature: PLACEHOLDER_SIGNATURE,
  };
}

/** `createdAt` (default STORED_NOW - 1000) is also when the order was created; it expires a day after STORED_NOW. */
export function storedLimitOrder(over: Partial<LimitOrder> = {}): LimitOrder {
  return {
    ...newPendingLimitOrder(
      randomUUID(),
      STORED_API_KEY,
      storedLimitOrderInput(),
      over.createdAt ?? STORED_NOW - 1000,
    ),
    ...over,
  };
}

export function storedDcaStrategy(over: Partial<DcaStrategy> = {}): DcaStrategy {
  return {
    id: randomUUID(),
    apiKey: STORED_API_KEY,
    accountTo: FACTORY_MAKER,
    chainIdFrom: CHAIN_1.chainId,
    chainIdTo: CHAIN_1.chainId,
    tokenAddressFrom: CHAIN_1.WETH.address,
    tokenAddressTo: CHAIN_1.USDC.address,
    tokenSymbolFrom: 'WETH',
    tokenSymbolTo: 'USDC',
    pair: 'WETH/USDC',
    totalAmount: 3,
    iterations: 3,
    frequency: 60,
    slippage: 1,
    minPrice: null,
    maxPrice: null,
    status: 'active',
    signature: PLACEHOLDER_SIGNATURE,
    maxFeeBps: null,
    iterationsCreated: 0,
    version: 0,
    createdAt: STORED_NOW - 1000,
    updatedAt: STORED_NOW - 1000,
    ...over,
  };
}

/** Iteration `iteration` of the strategy, at its slot, in `status`. */
export function storedDcaOrder(
  strategy: DcaStrategy,
  iteration: number,
  status: DcaOrder['status'],
): DcaOrder {
  return {
    id: randomUUID(),
    strategyId: strategy.id,
    apiKey: strategy.apiKey,
    accountTo: strategy.accountTo,
    iteration,
    slotAt: strategy.createdAt + iteration * strategy.frequency * 1000,
    amount: strategy.totalAmount / strategy.iterations,
    amountReceived: null,
    executionPrice: null,
    status,
    transactionHash: null,
    errorMessage: null,
    diagnosis: null,
    createdAt: strategy.createdAt,
    updatedAt: strategy.createdAt,
  };
}
