import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { listedTransferToken, rescale, type TransferPricing } from '../../shared/bridges/transfer-pricing';
import { orderExecutorInterface, priceOracleInterface } from '../../shared/chain/contract-interfaces';
import { isOutageError } from '../watch/chain-availability';
import type { RelayClients } from './relay-context';

const Q128 = 1n << 128n;
/** Prices read within this long are served again: a tick of many transfers costs one eth_call per pair. */
export const REFERENCE_PRICE_TTL_MS = 2_000;
/** Cached pairs past which expired entries are dropped (pairs are few; this only bounds a pathological run). */
const CACHE_LIMIT = 1_000;

export interface ReferencePricesDeps {
  clients: RelayClients;
  /** The chain's OrderExecutor, whose immutable `priceOracle()` is the oracle; undefined: the chain has none. */
  orderExecutorOf(chainId: number): string | undefined;
  pricing: Pick<TransferPricing, 'sameAsset' | 'referenceStable'>;
  now(): number;
  ttlMs?: number;
}

/** An amount of a chain's reference USD stable. */
export interface StableAmount {
  stable: TransferToken;
  amount: bigint;
}

/**
 * Prices one block cannot move, for what the relayer pays out: each chain's PriceOracle (the one the OrderExecutor
 * bounds every execution with: a Uniswap V3 pool's time-weighted average or a USD feed per token). A transfer is
 * carried over as dollars the same way TransferPricing carries the spot value: the input into the origin's
 * reference stable, rescaled to the destination's, then into the output; one asset to itself converts exactly.
 */
export class ReferencePrices {
  private readonly oracles = new Map<number, Promise<string | undefined>>();
  private readonly prices = new Map<string, { at: number; price: Promise<bigint | undefined> }>();

  constructor(private readonly deps: ReferencePricesDeps) {}

  /** `amount` of `from` in base units of `to`, rounded down; undefined when either chain has no price for it. */
  async convert(amount: bigint, from: TransferToken, to: TransferToken): Promise<bigint | undefined> {
    if (this.deps.pricing.sameAsset(from, to)) return rescale(amount, from.decimals, to.decimals);
    const listed = this.deps.pricing.referenceStable(to.chainId);
    if (!listed) return undefined;
    const destinationStable = listedTransferToken(to.chainId, listed);
    const dollars = await this.inStable(from, amount);
    if (!dollars) return undefined;
    const carried = rescale(dollars.amount, dollars.stable.decimals, destinationStable.decimals);
    return this.leg(destinationStable, to, carried);
  }

  /** `amount` of the token in its chain's reference stable; undefined without a stable or a price. */
  async inStable(token: TransferToken, amount: bigint): Promise<StableAmount | undefined> {
    const listed = this.deps.pricing.referenceStable(token.chainId);
    if (!listed) return undefined;
    const stable = listedTransferToken(token.chainId, listed);
    const converted = await this.leg(token, stable, amount);
    return converted === undefined ? undefined : { stable, amount: converted };
  }

  /**
   * The oracle's price of a base unit of tokenIn in base units of tokenOut (Q128); undefined when it has none (0),
   * reverts, or the chain has no oracle. An RPC outage is thrown: the caller's transfer waits, it is not judged.
   */
  async priceX128(chainId: number, tokenIn: string, tokenOut: string): Promise<bigint | undefined> {
    const key = `${chainId}:${tokenIn.toLowerCase()}:${tokenOut.toLowerCase()}`;
    const now = this.deps.now();
    const ttl = this.deps.ttlMs ?? REFERENCE_PRICE_TTL_MS;
    const cached = this.prices.get(key);
    if (cached && now - cached.at < ttl) return cached.price;
    if (this.prices.size >= CACHE_LIMIT) {
      for (const [k, v] of this.prices) if (now - v.at >= ttl) this.prices.delete(k);
    }
    const price = this.readPrice(chainId, tokenIn, tokenOut);
    const entry = { at: now, price };
    this.prices.set(key, entry);
    void price.catch(() => {
      if (this.prices.get(key) === entry) this.prices.delete(key);
    });
    return price;
  }

  private async leg(from: TransferToken, to: TransferToken, amount: bigint): Promise<bigint | undefined> {
    if (this.deps.pricing.sameAsset(from, to)) return rescale(amount, from.decimals, to.decimals);
    if (amount === 0n) return 0n;
    const price = await this.priceX128(from.chainId, from.address, to.address);
    return price === undefined ? undefined : (amount * price) / Q128;
  }

  private async readPrice(chainId: number, tokenIn: string, tokenOut: string): Promise<bigint | undefined> {
    const oracle = await this.oracleOf(chainId);
    const client = this.deps.clients.find(chainId);
    if (!oracle || !client) return undefined;
    const iface = priceOracleInterface();
    let data: string;
    try {
      data = await client.call({
        to: oracle,
        data: iface.encodeFunctionData('priceBound', [tokenIn, tokenOut]),
      });
    } catch (err) {
      // A broken source reverts (the OrderExecutor reads it the same way): no price, not an outage.
      if (isOutageError(err)) throw err;
      return undefined;
    }
    try {
      const price = iface.decodeFunctionResult('priceBound', data)[0] as bigint;
      return price > 0n ? price : undefined;
    } catch {
      return undefined;
    }
  }

  /** Read once per chain: the OrderExecutor's oracle is immutable. A failed read is tried again next time. */
  private oracleOf(chainId: number): Promise<string | undefined> {
    let oracle = this.oracles.get(chainId);
    if (!oracle) {
      oracle = this.readOracle(chainId);
      this.oracles.set(chainId, oracle);
      void oracle.then(
        (address) => {
          if (address === undefined) this.oracles.delete(chainId);
        },
        () => this.oracles.delete(chainId),
      );
    }
    return oracle;
  }

  private async readOracle(chainId: number): Promise<string | undefined> {
    const executor = this.deps.orderExecutorOf(chainId);
    const client = this.deps.clients.find(chainId);
    if (!executor || !client) return undefined;
    const iface = orderExecutorInterface();
    let data: string;
    try {
      data = await client.call({ to: executor, data: iface.encodeFunctionData('priceOracle', []) });
    } catch (err) {
      if (isOutageError(err)) throw err;
      return undefined;
    }
    try {
      return iface.decodeFunctionResult('priceOracle', data)[0] as string;
    } catch {
      return undefined;
    }
  }
}
