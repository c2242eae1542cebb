import type { LimitOrderInput } from '../../shared/domain/limit-order';
import { CHAIN_1, DAY_MS, FACTORY_MAKER, PLACEHOLDER_SIGNATURE, type TokenRef } from './defaults';

/** The POST /limit-order body: the fields a client chooses (spec, "Limit orders"). */
export type LimitOrderRequest = LimitOrderInput;

/**
 * A valid POST /limit-order body: 1.5 WETH for USDC on chain 1 at 3,500, expiring in a day, from FACTORY_MAKER.
 * The api creates it once it has a WETH/USDC reference price on chain 1 (see referencePrice()).
 * Overrides replace fields; values of another type (a validation test's `{ amount: 5 }`) type the result so.
 */
export function limitOrderBody(over?: Partial<LimitOrderRequest>): LimitOrderRequest;
export function limitOrderBody<O extends Record<string, unknown>>(
  over: O,
): Omit<LimitOrderRequest, keyof O> & O;
export function limitOrderBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountTo: FACTORY_MAKER,
    chainId: CHAIN_1.chainId,
    ...limitOrderTokens(CHAIN_1.WETH, CHAIN_1.USDC),
    amount: '1.5',
    priceTrigger: '3500',
    price: '3500',
    expired: String(Date.now() + DAY_MS),
    gasPrice: '20',
    slippage: '0.5',
    signature: PLACEHOLDER_SIGNATURE,
    ...over,
  };
}

/** The token fields of a limit order selling `tokenIn` for `tokenOut`. */
export function limitOrderTokens(
  tokenIn: TokenRef,
  tokenOut: TokenRef,
): Pick<LimitOrderRequest, 'inTokenAddress' | 'outTokenAddress' | 'tokenASymbol' | 'tokenBSymbol'> {
  return {
    inTokenAddress: tokenIn.address,
    outTokenAddress: tokenOut.address,
    tokenASymbol: tokenIn.symbol,
    tokenBSymbol: tokenOut.symbol,
  };
}
