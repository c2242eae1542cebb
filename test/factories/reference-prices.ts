import type { ReferencePrice } from '../../shared/store/repositories/reference-prices-repository';
import { CHAIN_1 } from './defaults';

/**
 * A reference price as the keeper publishes it, WETH/USDC at 3,000 on chain 1 by default: the api accepts
 * limitOrderBody() only once the store holds a price for its pair.
 */
export function referencePrice(over: Partial<ReferencePrice> = {}): ReferencePrice {
  return {
    chainId: CHAIN_1.chainId,
    baseSymbol: CHAIN_1.WETH.symbol,
    quoteSymbol: CHAIN_1.USDC.symbol,
    price: '3000',
    blockNumber: 1,
    updatedAt: Date.now(),
    ...over,
  };
}
