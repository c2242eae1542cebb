import type { ChainConfig } from '../../../shared/config/config-schema';
import { ValidationError } from '../../../shared/domain/errors';
import type { ReferencePricesRepository } from '../../../shared/store/repositories/reference-prices-repository';
import type { TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { isStale, type MarketStateReader } from '../quotes/fresh-market-state';

const sameSymbol = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();

/** The symbol as sent first, then its wrapped/native counterpart (WETH ↔ ETH), which the keeper may publish instead. */
function variantsOf(symbol: string, chain: ChainConfig, wrappedSymbol: string | undefined): string[] {
  const variants = [symbol];
  if (wrappedSymbol && sameSymbol(symbol, wrappedSymbol)) variants.push(chain.nativeSymbol);
  if (wrappedSymbol && sameSymbol(symbol, chain.nativeSymbol)) variants.push(wrappedSymbol);
  return [...new Set(variants)];
}

/**
 * Rejects a pair the service has no reference price for, in either direction and under either symbol form; and
 * every pair of a chain whose market data is stale (its RPC down): a price read then may be long gone.
 */
export async function assertReferencePrice(
  deps: { referencePrices: ReferencePricesRepository; tokens: TokensRepository; market?: MarketStateReader },
  chain: ChainConfig,
  symbolA: string,
  symbolB: string,
): Promise<void> {
  // Built only when thrown: an error's stack costs more than the rest of the check.
  const missing = () => new ValidationError(`Not exist reference price for this pair ${symbolA}/${symbolB}`);
  if (isStale(deps.market, chain.chainId)) throw missing();
  const wrappedSymbol = (await deps.tokens.find(chain.chainId, chain.wrappedNative))?.symbol;
  for (const a of variantsOf(symbolA, chain, wrappedSymbol)) {
    for (const b of variantsOf(symbolB, chain, wrappedSymbol)) {
      if (await deps.referencePrices.hasPair(chain.chainId, a, b)) return;
    }
  }
  throw missing();
}
