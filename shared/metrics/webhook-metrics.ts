import { Counter, Histogram, type Registry } from 'prom-client';
import type { DeliveryObserver } from '../events/webhook-deliverer';

/**
 * Webhook attempts of one process: `<prefix>webhook_attempts_total{outcome}` (delivered, failed, given_up) and
 * `<prefix>webhook_delivery_lag_seconds`, from an event's creation (the change it describes) to the receiver's
 * 2xx: what an integrator waits for a push.
 */
export class WebhookMetrics implements DeliveryObserver {
  private readonly attempts: Counter<'outcome'>;
  private readonly lag: Histogram;

  constructor(registry: Registry, prefix: string) {
    this.attempts = new Counter({
      name: `${prefix}webhook_attempts_total`,
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['delivered', 'failed', 'given_up']) this.attempts.inc({ outcome }, 0);
    this.lag = new Histogram({
      name: `${prefix}webhook_delivery_lag_seconds`,
      help: 'Seconds from an event’s creation to its delivery (2xx)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    });
  }

  attempted(outcome: 'delivered' | 'failed' | 'given_up', lagMs: number): void {
    this.attempts.inc({ outcome });
    if (outcome === 'delivered') this.lag.observe(lagMs / 1000);
  }
}
