import type { Logger } from '../../shared/log/create-logger';
import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperDcaRepository } from '../../shared/store/repositories/keeper-dca-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import { formatUnits } from 'ethers';
import { baseUnitsOf, decimalOf } from '../plan/order-amounts';
import { dueIterations, iterationAmount, priceWithinBounds, slotAt, slotPassed } from './dca-schedule';

export interface DcaSelection {
  /** Due orders whose price is within their strategy's bounds, ready to claim at these versions. */
  ready: { id: string; version: number }[];
}

/**
 * DCA strategies of one chain: creates each iteration at its fixed slot (createdAt + k × frequency, so the
 * first runs at once and delays never accumulate), and picks the due iterations whose price is inside
 * [minPrice, maxPrice]. An iteration outside its bounds waits; once the next slot arrives it is `expired`
 * (a missed slot is not carried forward: the strategy spends at most one iteration per slot).
 */
export class DcaScheduler {
  constructor(
    private readonly chainId: number,
    private readonly repo: KeeperDcaRepository,
    private readonly prices: Prices,
    private readonly token: (address: string) => PriceListToken | undefined,
    private readonly metrics: KeeperMetrics,
    private readonly log: Logger,
  ) {}

  async schedule(nowMs: number): Promise<void> {
    await this.repo.cancelPendingOrdersOfCancelledStrategies(nowMs);
    for (const strategy of await this.repo.listActiveStrategies(this.chainId)) {
      const decimals = this.token(strategy.tokenAddressFrom)?.decimals;
      if (decimals === undefined) continue;
      const total = baseUnitsOf(decimalOf(strategy.totalAmount), decimals);
      for (const k of dueIterations(strategy, nowMs)) {
        // The amount the iteration really sells (the last one takes the remainder), as the API reports it.
        const amount = Number(formatUnits(iterationAmount(total, strategy.iterations, k), decimals));
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
  }

  async select(nowMs: number): Promise<DcaSelection> {
    const ready: DcaSelection['ready'] = [];
    for (const { order, strategy } of await this.repo.listDueOrders(nowMs, this.chainId)) {
      const from = this.token(strategy.tokenAddressFrom);
      const to = this.token(strategy.tokenAddressTo);
      const rate = from && to ? this.prices.rate(this.chainId, from, to) : undefined;
      if (rate && priceWithinBounds(rate.price, strategy.minPrice, strategy.maxPrice)) {
        ready.push({ id: order.id, version: order.version });
      } else if (slotPassed(order.slotAt, strategy.frequency, nowMs)) {
        if (await this.repo.expireOrder(order.id, nowMs)) {
          this.metrics.dcaIteration(this.chainId, 'expired');
          await this.repo.finishStrategyIfDone(strategy.id, nowMs);
        }
      }
    }
    return { ready };
  }
}
