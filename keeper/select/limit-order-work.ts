import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperLimitOrdersRepository } from '../../shared/store/repositories/keeper-limit-orders-repository';
import type { KeeperOrderRef } from '../../shared/store/repositories/keeper-order-repository';
import { readClaimed, readLimitOrder, type ClaimContext, type ClaimedOrders } from '../claim/read-claimed';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderWork, TokenPairDecimals } from '../order-work';
import type { OrderIndex } from './order-index';

export interface LimitOrderWorkDeps {
  chainId: number;
  repository: KeeperLimitOrdersRepository;
  /** The in-memory trigger index, shared by every chain keeper and kept in sync with the store. */
  index: OrderIndex;
  prices: Prices;
  token: (address: string) => PriceListToken | undefined;
  metrics: KeeperMetrics;
}

/**
 * Limit orders of one chain: selected by the trigger index's cheap screen against the reference price (lowest
 * trigger first), expired when past `expired`, and dropped from the index once claimed (the store sync brings
 * back any that return to pending).
 */
export class LimitOrderWork implements OrderWork {
  readonly kind = 'limit';
  readonly prepareStage = 'select';
  readonly repository: KeeperLimitOrdersRepository;

  constructor(private readonly deps: LimitOrderWorkDeps) {
    this.repository = deps.repository;
  }

  /** Open orders past `expired` are settled failed with reason `expired`. */
  async prepare(now: number): Promise<void> {
    const { deps } = this;
    const ids = deps.index
      .expired(now)
      .filter((o) => o.chainId === deps.chainId)
      .map((o) => o.id);
    if (!ids.length) return;
    const moved = await deps.repository.expire(ids, now);
    for (const id of ids) deps.index.remove(id);
    for (let i = 0; i < moved.length; i++)
      deps.metrics.orderFailure(deps.chainId, 'limit', 'expired', 'final');
  }

  async select(now: number, max: number): Promise<KeeperOrderRef[]> {
    const { deps } = this;
    const started = performance.now();
    const out: KeeperOrderRef[] = [];
    for (const pair of deps.index.pairs(deps.chainId)) {
      const tokenIn = deps.token(pair.tokenIn);
      const tokenOut = deps.token(pair.tokenOut);
      // A pair with a token not listed can never execute: every order of it goes to the claim, which fails it.
      const price =
        tokenIn && tokenOut
          ? deps.prices.rate(deps.chainId, tokenIn, tokenOut)?.price
          : Number.POSITIVE_INFINITY;
      if (price === undefined || price < pair.lowestTrigger) continue;
      for (const o of deps.index.crossed(
        deps.chainId,
        pair.tokenIn,
        pair.tokenOut,
        price,
        now,
        max - out.length,
      )) {
        out.push({ id: o.id, version: o.version });
      }
      if (out.length >= max) break;
    }
    deps.metrics.observeSelection(deps.chainId, (performance.now() - started) / 1000);
    return out.slice(0, max);
  }

  async claim(refs: readonly KeeperOrderRef[], ctx: ClaimContext): Promise<ClaimedOrders> {
    const rows = await this.deps.repository.claimVersioned(refs, ctx.owner, ctx.leaseMs, ctx.now);
    const claimed = readClaimed('limit', rows, (row) => row.id, readLimitOrder, ctx);
    for (const row of rows) this.deps.index.remove(row.id);
    return claimed;
  }

  async decimals(id: string): Promise<TokenPairDecimals | undefined> {
    const order = await this.deps.repository.findById(id);
    const from = order && this.deps.token(order.inTokenAddress);
    const to = order && this.deps.token(order.outTokenAddress);
    return from && to ? { decimalsIn: from.decimals, decimalsOut: to.decimals } : undefined;
  }

  async onOutcome(): Promise<void> {}
}
