import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperLimitOrdersRepository } from '../../shared/store/repositories/keeper-limit-orders-repository';
import type { KeeperOrderRef } from '../../shared/store/repositories/keeper-order-repository';
import { readClaimed, readLimitOrder, type ClaimContext, type ClaimedOrders } from '../claim/read-claimed';
import { diagnosisPrice, type OrderDiagnoses } from '../diagnose/order-diagnoses';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderWork, SettlementFacts } from '../order-work';
import { pairKey, type OrderIndex } from './order-index';

export interface LimitOrderWorkDeps {
  chainId: number;
  repository: KeeperLimitOrdersRepository;
  /** The in-memory trigger index, shared by every chain keeper and kept in sync with the store. */
  index: OrderIndex;
  prices: Prices;
  token: (address: string) => PriceListToken | undefined;
  metrics: KeeperMetrics;
  /** Why pending orders have not filled: judged from the index (price not reached, queued, chain held). */
  diagnoses?: OrderDiagnoses;
}

/** Crossed orders of one pair judged queued per tick, at most. */
const QUEUED_PER_PAIR = 10_000;

/**
 * Limit orders of one chain: selected by the trigger index's cheap screen against the reference price (lowest
 * trigger first), expired when past `expired`, and dropped from the index once claimed (the store sync brings
 * back any that return to pending).
 */
export class LimitOrderWork implements OrderWork {
  readonly kind = 'limit';
  readonly prepareStage = 'select';
  readonly repository: KeeperLimitOrdersRepository;
  /**
   * Orders whose standing may change with the price: new or changed in the index, or last judged anything but
   * PRICE_NOT_REACHED (queued, backing off, short of funds...). An order judged PRICE_NOT_REACHED leaves the set
   * until the market crosses it: the keeper's writes follow changes, not orders × ticks.
   */
  private readonly watched = new Set<string>();

  constructor(private readonly deps: LimitOrderWorkDeps) {
    this.repository = deps.repository;
  }

  /** Open orders past `expired` are settled failed with reason `expired`; the others' standing is judged. */
  async prepare(now: number): Promise<void> {
    await this.expire(now);
    this.judgeUncrossed(now);
  }

  private async expire(now: number): Promise<void> {
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

  /** The pair's reference price (a pair with an unlisted token: infinite, every order of it goes to the claim). */
  private priceOf(tokenIn: string, tokenOut: string): number | undefined {
    const { deps } = this;
    const from = deps.token(tokenIn);
    const to = deps.token(tokenOut);
    return from && to ? deps.prices.rate(deps.chainId, from, to)?.price : Number.POSITIVE_INFINITY;
  }

  /**
   * Once per tick, before selection: the watched orders the price does not reach are PRICE_NOT_REACHED (with the
   * market price beside the trigger). An order backing off or waiting for funds keeps its diagnosis until its next
   * attempt; one the price reaches is judged after the batches (`afterBatches`).
   */
  private judgeUncrossed(now: number): void {
    const { deps } = this;
    const diagnoses = deps.diagnoses;
    if (!diagnoses) return;
    for (const id of deps.index.takeFresh(deps.chainId)) this.watched.add(id);
    const prices = new Map<string, number | undefined>();
    for (const id of this.watched) {
      const order = deps.index.get(id);
      if (!order || order.chainId !== deps.chainId) {
        this.watched.delete(id);
        continue;
      }
      if (order.nextAttemptAt > now || order.expiresAt <= now) continue;
      const key = pairKey(order.chainId, order.tokenIn, order.tokenOut);
      if (!prices.has(key)) prices.set(key, this.priceOf(order.tokenIn, order.tokenOut));
      const price = prices.get(key);
      // No price yet (the pool state is loading or stale): judged once there is one.
      if (price === undefined || order.trigger <= price) continue;
      diagnoses.note('limit', id, {
        code: 'PRICE_NOT_REACHED',
        marketPrice: diagnosisPrice(price),
        priceTrigger: order.trigger,
      });
      this.watched.delete(id);
    }
  }

  /**
   * After the tick's batches: crossed orders still in the index were not taken (no room in the batches, no free
   * wallet): WAITING_FOR_BLOCK; while the chain holds claims, the watched ones are CHAIN_STALE. A judgment of the
   * order itself (its funding, its route) holds until it is claimed again.
   */
  afterBatches(now: number, held: boolean): void {
    const { deps } = this;
    const diagnoses = deps.diagnoses;
    if (!diagnoses) return;
    if (held) {
      for (const id of this.watched) {
        const order = deps.index.get(id);
        if (order && order.nextAttemptAt <= now && order.expiresAt > now)
          diagnoses.noteUnlessHeld('limit', id, { code: 'CHAIN_STALE' });
      }
      return;
    }
    for (const pair of deps.index.pairs(deps.chainId)) {
      const price = this.priceOf(pair.tokenIn, pair.tokenOut);
      if (price === undefined || price < pair.lowestTrigger) continue;
      for (const o of deps.index.crossed(
        deps.chainId,
        pair.tokenIn,
        pair.tokenOut,
        price,
        now,
        QUEUED_PER_PAIR,
      )) {
        diagnoses.noteUnlessHeld('limit', o.id, { code: 'WAITING_FOR_BLOCK' });
        this.watched.add(o.id);
      }
    }
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

  async settlementFacts(ids: readonly string[]): Promise<Map<string, SettlementFacts>> {
    const facts = new Map<string, SettlementFacts>();
    for (const order of await this.deps.repository.findByIds(ids)) {
      const from = this.deps.token(order.inTokenAddress);
      const to = this.deps.token(order.outTokenAddress);
      facts.set(order.id, {
        attemptNumber: order.attemptNumber,
        decimals: from && to ? { decimalsIn: from.decimals, decimalsOut: to.decimals } : undefined,
      });
    }
    return facts;
  }

  async onOutcome(): Promise<void> {}
}
