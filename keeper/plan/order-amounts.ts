import { valueAtPrice } from '../../shared/domain/amount-bounds';
import { minimumAfterSlippage } from '../../shared/routing/fees';

/** The least a limit order may receive: amount × priceTrigger × (1 − slippage%), rounded down. */
export function limitOrderMinimumOut(
  amountIn: bigint,
  priceTrigger: string,
  slippagePercent: string,
  decimalsIn: number,
  decimalsOut: number,
): bigint {
  return minimumAfterSlippage(valueAtPrice(amountIn, priceTrigger, decimalsIn, decimalsOut), slippagePercent);
}
