import type { Logger } from '../log/create-logger';
import { isStoreUnreachable } from './store-unreachable';

/** A store answers a trivial query well within this, or it counts as unreachable. */
export const STORE_PROBE_TIMEOUT_MS = 2_000;
/** While the store answers, a probe now and then notices an outage even when no work touches the store. */
const UP_PROBE_INTERVAL_MS = 5_000;
/** While it does not, a probe each second: work resumes within a second of its return. */
const DOWN_PROBE_INTERVAL_MS = 1_000;

/** Where the watch reports outages (shared/metrics/store-metrics.ts). */
export interface StoreOutageSink {
  wentDown(): void;
  cameBack(): void;
  without(seconds: number): void;
}

export interface StoreWatchOptions {
  /** A cheap round trip to the store (`select 1`). */
  probe: () => PromiseLike<unknown>;
  metrics: StoreOutageSink;
  log: Logger;
  timeoutMs?: number;
  upIntervalMs?: number;
  downIntervalMs?: number;
  now?: () => number;
}

export class StoreProbeTimeout extends Error {
  constructor(ms: number) {
    super(`the store did not answer within ${ms} ms`);
    this.name = 'StoreProbeTimeout';
  }
}

/**
 * Whether the process reaches its store, told once per change: one `store unreachable` warning when it goes away
 * and one `store back` line when it answers again, however many calls fail in between (they report here through
 * `failed` and log nothing themselves). An outage is noticed by the first call that cannot reach the store or by the
 * watch's own probe; its end only by a probe that gets an answer.
 */
export class StoreWatch {
  private outage: { since: number; accountedTo: number } | undefined;
  private probing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly options: StoreWatchOptions) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? STORE_PROBE_TIMEOUT_MS;
  }

  /** False from the moment an outage is noticed until a probe gets an answer again. */
  get up(): boolean {
    return this.outage === undefined;
  }

  /** Probes the store now (callers at the same time share one probe); resolves whether it answered in time. */
  check(): Promise<boolean> {
    this.probing ??= this.probeOnce().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /**
   * A store call failed: when the error says the store could not be reached, the outage is recorded (and logged if
   * it is new) and true is returned, so the caller logs nothing of its own; any other error is the caller's.
   */
  failed(err: unknown): boolean {
    if (!isStoreUnreachable(err)) return false;
    this.wentDown(err);
    return true;
  }

  /** Starts the background probes. */
  start(): void {
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.running) return;
    const interval = this.up
      ? (this.options.upIntervalMs ?? UP_PROBE_INTERVAL_MS)
      : (this.options.downIntervalMs ?? DOWN_PROBE_INTERVAL_MS);
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), interval);
    this.timer.unref();
  }

  private async probeOnce(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    // A store that hangs is as gone as one that refuses.
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreProbeTimeout(this.timeoutMs)), this.timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([Promise.resolve(this.options.probe()), timedOut]);
      this.cameBack();
      return true;
    } catch (err) {
      this.wentDown(err);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private wentDown(err: unknown): void {
    const now = this.now();
    if (this.outage) {
      this.account(now);
      return;
    }
    this.outage = { since: now, accountedTo: now };
    this.options.metrics.wentDown();
    this.options.log.warn({ err }, 'store unreachable');
    this.schedule();
  }

  private cameBack(): void {
    if (!this.outage) return;
    const now = this.now();
    this.account(now);
    const outageSeconds = Math.round((now - this.outage.since) / 100) / 10;
    this.outage = undefined;
    this.options.metrics.cameBack();
    this.options.log.info({ outageSeconds }, 'store back');
    this.schedule();
  }

  private account(now: number): void {
    if (!this.outage) return;
    this.options.metrics.without((now - this.outage.accountedTo) / 1000);
    this.outage.accountedTo = now;
  }
}
