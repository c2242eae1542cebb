import type { Logger } from '../../shared/log/create-logger';
import type { DcaStrategy } from '../../shared/domain/dca';
import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperDcaRepository } from '../../shared/store/repositories/keeper-dca-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import { formatUnits } from 'ethers';
import { strategyTerms } from '../plan/order-terms';
import type { RowGuard } from '../row-guard';
import { diagnosisPrice, type OrderDiagnoses } from '../diagnose/order-diagnoses';
import { iterationAmount } from '../../shared/domain/dca-iteration-amount';
import { dueIterations, priceWithinBounds, slotAt, slotPassed } from './dca-schedule';

export interface DcaSelection {
  /** Due orders whose price is within their strategy's bounds, ready to claim at these versions. */
  ready: { id: string; version: number }[];
}

/** Iterations one strategy may create per tick: a strategy with millions of due slots cannot hold up the others. */
const ITERATIONS_PER_TICK = 100;

/**
 * DCA strategies of one chain: creates each iteration at its fixed slot (createdAt + k × frequency, so the
 * first runs at once and delays never accumulate), and picks the due iterations whose price is inside
 * [minPrice, maxPrice]. An iteration outside its bounds waits; once the next slot arrives it is `expired`
 * (a missed slot is not carried forward: the strategy spends at most one iteration per slot).
 *
 * Each strategy and each order is handled on its own: a strategy whose stored values cannot execute (an unlisted
 * token, an amount a uint256 cannot hold or finer than the token's decimals, an impossible schedule) is set
 * aside, reported once per version, and gets no iterations (an order of such a strategy that exists all the same
 * is handed to the claim, which fails it with the reason); a row that throws is set aside for the tick.
 */
export class DcaScheduler {
  /** Strategies set aside, by id: the version that was judged (a changed strategy is judged again). */
  private readonly setAside = new Map<string, number>();

  constructor(
    private readonly chainId: number,
    private readonly repo: KeeperDcaRepository,
    private readonly prices: Prices,
    private readonly token: (address: string) => PriceListToken | undefined,
    private readonly metrics: KeeperMetrics,
    private readonly guard: RowGuard,
    private readonly log: Logger,
    /** A due iteration outside its bounds is PRICE_NOT_REACHED (the market price beside the bounds). */
    private readonly diagnoses?: OrderDiagnoses,
  ) {}

  async schedule(nowMs: number): Promise<void> {
    await this.repo.cancelPendingOrdersOfCancelledStrategies(nowMs);
    const active = await this.repo.listActiveStrategies(this.chainId);
    const activeIds = new Set(active.map((s) => s.id));
    for (const id of this.setAside.keys()) if (!activeIds.has(id)) this.setAside.delete(id);
    await this.guard.each(
      'dca_strategy',
      active.filter((s) => this.setAside.get(s.id) !== s.version),
      (s) => s.id,
      (strategy) => this.scheduleOne(strategy, nowMs),
    );
  }

  private async scheduleOne(strategy: DcaStrategy, nowMs: number): Promise<void> {
    const from = this.token(strategy.tokenAddressFrom);
    const to = this.token(strategy.tokenAddressTo);
    const terms = from && to ? strategyTerms(strategy, from.decimals) : undefined;
    if (!from || !to || !terms?.ok) {
      this.setAside.set(strategy.id, strategy.version);
      const reason = terms && !terms.ok ? terms.reason : 'TOKEN_NOT_LISTED';
      const detail = terms && !terms.ok ? terms.detail : 'a token of the pair is not listed';
      this.guard.setAside(
        'dca_strategy',
        strategy.id,
        reason === 'ZERO_AMOUNT' ? 'INVALID_AMOUNT' : reason,
        detail,
      );
      return;
    }
    for (const k of dueIterations(strategy, nowMs, ITERATIONS_PER_TICK)) {
      // The amount the iteration really sells (the last one takes the remainder), as the API reports it.
      const amount = Number(
        formatUnits(iterationAmount(terms.terms.total, strategy.iterations, k), from.decimals),
      );
      const result = await this.repo.createIteration(
        strategy.id,
        k,
        slotAt(strategy.createdAt, strategy.frequency, k),
        amount,
        nowMs,
      );
      if (result.kind !== 'created' && result.kind !== 'exists') break;
    }
    if (strategy.iterationsCreated >= strategy.iterations) {
      if (await this.repo.finishStrategyIfDone(strategy.id, nowMs)) {
        this.log.info({ strategyId: strategy.id }, 'DCA strategy finished');
      }
    }
  }

  async select(nowMs: number): Promise<DcaSelection> {
    const ready: DcaSelection['ready'] = [];
    await this.guard.each(
      'dca',
      await this.repo.listDueOrders(nowMs, this.chainId),
      (due) => due.order.id,
      async ({ order, strategy }) => {
        const from = this.token(strategy.tokenAddressFrom);
        const to = this.token(strategy.tokenAddressTo);
        if (!from || !to || !strategyTerms(strategy, from.decimals).ok) {
          // It can never execute: the claim fails it with its reason, so it leaves the due list for good.
          ready.push({ id: order.id, version: order.version });
          return;
        }
        const rate = this.prices.rate(this.chainId, from, to);
        if (rate && priceWithinBounds(rate.price, strategy.minPrice, strategy.maxPrice)) {
          ready.push({ id: order.id, version: order.version });
        } else if (slotPassed(order.slotAt, strategy.frequency, nowMs)) {
          if (await this.repo.expireOrder(order.id, nowMs)) {
            this.metrics.dcaIteration(this.chainId, 'expired');
            await this.repo.finishStrategyIfDone(strategy.id, nowMs);
          }
        } else if (rate) {
          this.diagnoses?.note('dca', order.id, {
            code: 'PRICE_NOT_REACHED',
            marketPrice: diagnosisPrice(rate.price),
            ...(strategy.minPrice !== null ? { minPrice: strategy.minPrice } : {}),
            ...(strategy.maxPrice !== null ? { maxPrice: strategy.maxPrice } : {}),
          });
        }
      },
    );
    return { ready };
  }
}
