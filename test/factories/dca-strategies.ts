import type { CreateStrategyBody } from '../../api/routes/dca/dca-schemas';
import type { DcaStrategy } from '../../shared/domain/dca';
import { CHAIN_137, FACTORY_MAKER, PLACEHOLDER_SIGNATURE, type TokenRef } from './defaults';

/**
 * The POST /dca-order/strategies body as the api types it, with `slippage` required: the spec says to always send
 * it (it reads as 0 otherwise).
 */
export type DcaStrategyRequest = CreateStrategyBody & Pick<DcaStrategy, 'slippage'>;

/**
 * A valid POST /dca-order/strategies body: 100 USDC into WETH on chain 137 in 4 hourly orders, from FACTORY_MAKER.
 * Overrides replace fields; values of another type type the result so (validation tests).
 */
export function dcaStrategyBody(over?: Partial<DcaStrategyRequest>): DcaStrategyRequest;
export function dcaStrategyBody<O extends Record<string, unknown>>(
  over: O,
): Omit<DcaStrategyRequest, keyof O> & O;
export function dcaStrategyBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountTo: FACTORY_MAKER,
    chainIdFrom: CHAIN_137.chainId,
    chainIdTo: CHAIN_137.chainId,
    ...dcaStrategyTokens(CHAIN_137.USDC, CHAIN_137.WETH),
    totalAmount: 100,
    iterations: 4,
    frequency: 3600,
    slippage: 0.5,
    signature: PLACEHOLDER_SIGNATURE,
    ...over,
  };
}

/** The token fields of a strategy selling `from` for `to`, `pair` as the spec spells it (FROM/TO). */
export function dcaStrategyTokens(
  from: TokenRef,
  to: TokenRef,
): Pick<
  DcaStrategyRequest,
  'tokenAddressFrom' | 'tokenAddressTo' | 'tokenSymbolFrom' | 'tokenSymbolTo' | 'pair'
> {
  return {
    tokenAddressFrom: from.address,
    tokenAddressTo: to.address,
    tokenSymbolFrom: from.symbol,
    tokenSymbolTo: to.symbol,
    pair: `${from.symbol}/${to.symbol}`,
  };
}
