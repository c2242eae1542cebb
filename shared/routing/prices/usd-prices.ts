import type { QuoteEngine } from '../quote-engine';
import { NATIVE_TOKEN_KEY } from '../../domain/addresses';
import { pairRate, type PairRate, type PricedToken } from './pair-price';

/** USD stables prices are read against, in order of preference. */
export const USD_STABLES: readonly string[] = ['USDC', 'USDT', 'DAI'];

export interface PriceListToken extends PricedToken {
  symbol: string;
}

export interface PriceTokens {
  /** The chain's listed tokens (the native pseudo-address included). */
  tokensOf(chainId: number): readonly PriceListToken[];
}

/**
 * USD prices of listed tokens from routed quotes against the chain's USD stables, and routed conversion rates
 * between tokens, both memoised per chain and block: several prices per request cost one route search each per
 * block, not one per request.
 */
export class Prices {
  private readonly memo = new Map<number, { block: number; rates: Map<string, PairRate | undefined> }>();

  constructor(
    private readonly engine: QuoteEngine,
    private readonly tokens: PriceTokens,
  ) {}

  /** Listed token by address (any casing); the native pseudo-address maps to the native entry. */
  token(chainId: number, address: string): PriceListToken | undefined {
    const lower = address.toLowerCase();
    return this.tokens.tokensOf(chainId).find((t) => t.address.toLowerCase() === lower);
  }

  /** Rate of tokenIn in tokenOut at the latest cached block; undefined without a route. */
  rate(chainId: number, tokenIn: PricedToken, tokenOut: PricedToken): PairRate | undefined {
    const block = this.engine.blockNumber(chainId);
    if (block === undefined || !this.engine.isQuotable(chainId)) return undefined;
    let entry = this.memo.get(chainId);
    if (!entry || entry.block !== block) {
      entry = { block, rates: new Map() };
      this.memo.set(chainId, entry);
    }
    const key = `${tokenIn.address.toLowerCase()}>${tokenOut.address.toLowerCase()}`;
    if (!entry.rates.has(key)) entry.rates.set(key, pairRate(this.engine, chainId, tokenIn, tokenOut));
    return entry.rates.get(key);
  }

  /**
   * USD per 1 token. The chain's first listed stable is the reference and is worth exactly 1; any other token
   * is quoted against the first stable it routes to. Undefined when the chain lists no stable or none routes.
   */
  usd(chainId: number, address: string): number | undefined {
    const token = this.token(chainId, address);
    if (!token) return undefined;
    const routing = this.engine.isQuotable(chainId) ? this.engine.routingToken(chainId, address) : undefined;
    for (const stable of this.stables(chainId)) {
      if (
        stable.address.toLowerCase() === routing ||
        stable.address.toLowerCase() === address.toLowerCase()
      ) {
        return 1;
      }
      const rate = this.rate(chainId, token, stable);
      if (rate) return rate.price;
    }
    return undefined;
  }

  /** USD per 1 native coin (priced through the wrapped native). */
  nativeUsd(chainId: number): number | undefined {
    return this.usd(chainId, NATIVE_TOKEN_KEY);
  }

  private stables(chainId: number): PriceListToken[] {
    const listed = this.tokens.tokensOf(chainId);
    return USD_STABLES.flatMap((symbol) => listed.filter((t) => t.symbol.toUpperCase() === symbol));
  }
}
