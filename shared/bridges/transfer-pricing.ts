import { formatUnits } from 'ethers';
import type { ChainRegistry } from '../chain/chain-registry';
import { isNativeAddress, NATIVE_TOKEN_KEY } from '../domain/addresses';
import { convertAtRate } from '../routing/prices/pair-price';
import { USD_STABLES, type PriceListToken, type Prices } from '../routing/prices/usd-prices';
import type { QuoteEngine } from '../routing/quote-engine';
import type { TransferToken } from './cross-chain-provider';

export interface TransferPricingDeps {
  chains: ChainRegistry;
  /** Absent (no chain can be quoted): only transfers of one asset to itself are priced. */
  engine?: QuoteEngine;
  prices?: Prices;
  /** Each chain's listed tokens (GET /tokens), to find its USD stables. */
  tokensOf(chainId: number): readonly PriceListToken[];
}

/** Symbols that name the same coin under another ticker on some chains (bridged ether is WETH everywhere). */
const ASSET_ALIASES: Readonly<Record<string, string>> = { WETH: 'ETH' };

/** A listed ERC-20 of a chain as a transfer's token (never the native coin itself). */
export function listedTransferToken(chainId: number, listed: PriceListToken): TransferToken {
  return {
    chainId,
    address: listed.address,
    symbol: listed.symbol,
    decimals: listed.decimals,
    native: false,
  };
}

/** Base units of `decimals` rescaled to `toDecimals`, rounded down. */
export function rescale(amount: bigint, decimals: number, toDecimals: number): bigint {
  if (toDecimals >= decimals) return amount * 10n ** BigInt(toDecimals - decimals);
  return amount / 10n ** BigInt(decimals - toDecimals);
}

/**
 * What a transfer is worth on the other side, with the same routed prices the single-chain quotes use: an amount of
 * a token on one chain is sold (as a quote, nothing is sent) into the chain's reference USD stable, carried over as
 * dollars, and bought into the output token on the other chain. A token moved to itself (USDC to USDC, ETH to
 * WETH) converts exactly, by its decimals only. Every read is memory (the pool states), never RPC.
 */
export class TransferPricing {
  constructor(private readonly deps: TransferPricingDeps) {}

  /**
   * A name for what the token is, the same on every chain: the native coin and its wrapped token by the chain's
   * native symbol, bridged ether by ETH, anything else by its symbol.
   */
  assetOf(token: TransferToken): string {
    const chain = this.deps.chains.get(token.chainId);
    const wrapped = chain?.wrappedNative.toLowerCase();
    if (token.native || isNativeAddress(token.address) || token.address.toLowerCase() === wrapped) {
      return (chain?.nativeSymbol ?? token.symbol).toUpperCase();
    }
    const symbol = token.symbol.toUpperCase();
    return ASSET_ALIASES[symbol] ?? symbol;
  }

  sameAsset(a: TransferToken, b: TransferToken): boolean {
    return this.assetOf(a) === this.assetOf(b);
  }

  /** `amount` of `from` in base units of `to`, rounded down; undefined when either side cannot be priced now. */
  convert(amount: bigint, from: TransferToken, to: TransferToken): bigint | undefined {
    if (this.sameAsset(from, to)) return rescale(amount, from.decimals, to.decimals);
    const originStable = this.referenceStable(from.chainId);
    const destinationStable = this.referenceStable(to.chainId);
    if (!originStable || !destinationStable) return undefined;
    const dollars = this.swapValue(from.chainId, from.address, originStable.address, amount);
    if (dollars === undefined) return undefined;
    const carried = rescale(dollars, originStable.decimals, destinationStable.decimals);
    return this.swapValue(to.chainId, destinationStable.address, to.address, carried);
  }

  /**
   * A cost of `wei` of the chain's native coin in base units of `token` on that chain, rounded up (a cost must not
   * fall short); undefined when the native coin has no route to the token.
   */
  nativeCostIn(chainId: number, wei: bigint, token: TransferToken): bigint | undefined {
    const chain = this.deps.chains.get(chainId);
    if (!chain) return undefined;
    const address = token.address.toLowerCase();
    if (isNativeAddress(address) || address === chain.wrappedNative.toLowerCase()) {
      return rescale(wei, chain.nativeDecimals, token.decimals);
    }
    if (wei === 0n) return 0n;
    if (!this.fresh(chainId)) return undefined;
    const rate = this.deps.prices?.rate(
      chainId,
      { address: NATIVE_TOKEN_KEY, decimals: chain.nativeDecimals },
      { address: token.address, decimals: token.decimals },
    );
    return rate ? convertAtRate(wei, rate) : undefined;
  }

  /** USD value of `amount` of the token (display only); undefined without a price. */
  usdValue(amount: bigint, token: TransferToken): number | undefined {
    const price = this.deps.prices?.usd(token.chainId, token.address);
    if (price === undefined) return undefined;
    return Number(formatUnits(amount, token.decimals)) * price;
  }

  /**
   * The chain's first listed USD stable in the order prices are read against (USDC, USDT, DAI): the dollar every
   * transfer is carried over as, by the spot conversion here and by the relayer's reference prices alike.
   */
  referenceStable(chainId: number): PriceListToken | undefined {
    const listed = this.deps.tokensOf(chainId);
    for (const symbol of USD_STABLES) {
      const stable = listed.find((t) => t.symbol.toUpperCase() === symbol);
      if (stable) return stable;
    }
    return undefined;
  }

  /** What selling `amount` of tokenIn into tokenOut would pay on the chain now (price impact included). */
  private swapValue(chainId: number, tokenIn: string, tokenOut: string, amount: bigint): bigint | undefined {
    if (tokenIn.toLowerCase() === tokenOut.toLowerCase()) return amount;
    if (amount === 0n) return 0n;
    const engine = this.deps.engine;
    if (!engine || !this.fresh(chainId)) return undefined;
    const result = engine.quote({ chainId, tokenIn, tokenOut, amountIn: amount, gasPriceWei: 0n });
    return result?.quotes[0]?.amountOut;
  }

  /** Pool state that may be served now: a transfer is never priced from a market that may have moved. */
  private fresh(chainId: number): boolean {
    const engine = this.deps.engine;
    return engine !== undefined && engine.isQuotable(chainId) && !engine.freshness(chainId).stale;
  }
}
