import { formatUnits } from 'ethers';
import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { ReferencePrice } from '../../shared/store/repositories/reference-prices-repository';
import { NATIVE_TOKEN_KEY } from '../../shared/domain/addresses';

/** Digits after the point of a published price: exact to far below any token's smallest unit. */
const PRICE_DECIMALS = 18;

export interface ReferencePriceSink {
  upsert(prices: ReferencePrice[]): Promise<void>;
}

/**
 * Publishes the market price of every pair of the chain's listed ERC-20 tokens into the store, for the api's
 * limit-order check ("Not exist reference price for this pair"). Prices are routed rates from the keeper's
 * pool state (human units of the second token per first), written once per new block at most.
 */
export class ReferencePricePublisher {
  private lastBlock: number | undefined;

  constructor(
    private readonly chainId: number,
    private readonly prices: Prices,
    private readonly tokens: () => readonly PriceListToken[],
    private readonly sink: ReferencePriceSink,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns how many pairs were written (0 when the block was already published or nothing routes yet). */
  async publish(blockNumber: number): Promise<number> {
    if (this.lastBlock === blockNumber) return 0;
    const listed = this.tokens().filter((t) => t.address.toLowerCase() !== NATIVE_TOKEN_KEY);
    const rows: ReferencePrice[] = [];
    for (let i = 0; i < listed.length; i++) {
      for (let j = i + 1; j < listed.length; j++) {
        const [base, quote] = [listed[i]!, listed[j]!];
        const rate = this.prices.rate(this.chainId, base, quote);
        if (!rate) continue;
        // probeOut/probeIn in human units, in exact integer arithmetic.
        const scaled =
          (rate.probeOut * 10n ** BigInt(base.decimals + PRICE_DECIMALS)) /
          (rate.probeIn * 10n ** BigInt(quote.decimals));
        if (scaled === 0n) continue;
        rows.push({
          chainId: this.chainId,
          baseSymbol: base.symbol,
          quoteSymbol: quote.symbol,
          price: formatUnits(scaled, PRICE_DECIMALS).replace(/\.?0+$/, ''),
          blockNumber: rate.blockNumber,
          updatedAt: this.now(),
        });
      }
    }
    await this.sink.upsert(rows);
    this.lastBlock = blockNumber;
    return rows.length;
  }
}
