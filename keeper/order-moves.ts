import type { Logger } from '../shared/log/create-logger';
import type { KeeperOrderKind } from '../shared/store/repositories/keeper-order-repository';
import { diagnosisOfRetry, type OrderDiagnoses } from './diagnose/order-diagnoses';
import type { KeeperMetrics } from './keeper-metrics';
import { workOf, type OrderWorks } from './order-work';
import { countsAsAttempt, decideFailure } from './plan/failure-kinds';
import type { RowGuard } from './row-guard';

/** What the moves need of an order: which it is, and its attempts so far (for the back-off). */
export interface MovedOrder {
  kind: KeeperOrderKind;
  id: string;
  attemptNumber: number;
}

export interface OrderMovesDeps {
  chainId: number;
  works: OrderWorks;
  guard: RowGuard;
  metrics: KeeperMetrics;
  owner: string;
  log: Logger;
  now: () => number;
  /** A retried order's diagnosis: what it waits for (its next attempt, the chain, a route, a fee under its cap). */
  diagnoses?: OrderDiagnoses;
}

/**
 * The moves every stage makes on the orders it claimed and will not send: back to pending untouched (release), or
 * a failed attempt, final or backing off by the failure table (an outage delays without counting). Each kind's
 * repository makes the move under the same names.
 */
export class OrderMoves {
  constructor(private readonly deps: OrderMovesDeps) {}

  async release(order: Pick<MovedOrder, 'kind' | 'id'>, nextAttemptAt?: number): Promise<boolean> {
    const { deps } = this;
    return workOf(deps.works, order.kind).repository.releaseLease(
      order.id,
      deps.owner,
      deps.now(),
      nextAttemptAt,
    );
  }

  async fail(order: MovedOrder, reason: string): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const decision = decideFailure(reason, order.attemptNumber, now);
    if (!countsAsAttempt(reason)) {
      // An outage: back to pending as it was, attempts untouched; the keeper claims nothing here until it ends.
      if (await this.release(order, decision.nextAttemptAt))
        deps.diagnoses?.note(order.kind, order.id, diagnosisOfRetry(reason, decision.nextAttemptAt, now));
      deps.metrics.outageDelay(deps.chainId, order.kind);
      deps.log.info({ orderId: order.id, reason }, 'order delayed by an outage');
      return;
    }
    const work = workOf(deps.works, order.kind);
    const written = await work.repository.fail(
      order.id,
      deps.owner,
      { reason, final: decision.final, nextAttemptAt: decision.nextAttemptAt },
      now,
    );
    if (decision.final) await work.onOutcome(order.id, 'failed');
    else if (written)
      deps.diagnoses?.note(order.kind, order.id, diagnosisOfRetry(reason, decision.nextAttemptAt, now));
    deps.metrics.orderFailure(deps.chainId, order.kind, reason, decision.final ? 'final' : 'backoff');
    deps.log.info({ orderId: order.id, reason, final: decision.final }, 'order attempt failed');
  }

  /** Each order fails on its own with the same reason (a batch that could not go). */
  failAll(orders: readonly MovedOrder[], reason: string): Promise<void> {
    return this.deps.guard.each(
      (o) => o.kind,
      orders,
      (o) => o.id,
      (o) => this.fail(o, reason),
    );
  }
}
