import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Whether a process reaches its store, and its outages: `<prefix>store_up` (1 or 0), `<prefix>store_outages_total`
 * (each time it went away) and `<prefix>store_outage_seconds_total` (time spent without it, counted as it passes,
 * so an outage under way already shows). The prefix names the process (`tas_api_`, `tas_keeper_`).
 */
export class StoreMetrics {
  private readonly upGauge: Gauge;
  private readonly outages: Counter;
  private readonly outageSeconds: Counter;

  constructor(registry: Registry, prefix: string) {
    this.upGauge = new Gauge({
      name: `${prefix}store_up`,
      help: 'Whether the store (SQLite or MySQL) answers: 0 while it cannot be reached',
      registers: [registry],
    });
    this.outages = new Counter({
      name: `${prefix}store_outages_total`,
      help: 'Times the store could not be reached any more',
      registers: [registry],
    });
    this.outageSeconds = new Counter({
      name: `${prefix}store_outage_seconds_total`,
      help: 'Seconds spent without the store, counted while an outage lasts',
      registers: [registry],
    });
    // A process starts on a store it has just opened and migrated.
    this.upGauge.set(1);
  }

  wentDown(): void {
    this.upGauge.set(0);
    this.outages.inc();
  }

  cameBack(): void {
    this.upGauge.set(1);
  }

  /** Time of an outage under way since the last call. */
  without(seconds: number): void {
    if (seconds > 0) this.outageSeconds.inc(seconds);
  }
}
