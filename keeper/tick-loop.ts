/**
 * The keeper's loop base: runs `tick` again `intervalMs` after each run ends, or at once when woken (a chain's new
 * block); never two runs at a time, and a wake during a run starts the next one as soon as it ends. `tick` reports
 * its own failures: a rejection is only logged by the caller's `onError`, and the loop goes on.
 */
export class TickLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private stopped = true;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  /** Runs now (or right after the run in progress) instead of at the end of the interval. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wokenWhileRunning = true;
    else this.schedule(0);
  }

  /**
   * Runs once now, after the run in progress if any, and resolves when that run has ended (its failure goes to
   * `onError` as usual): for a driver that steps the loop itself, such as a simulation run.
   */
  async runNow(): Promise<void> {
    while (this.running) await this.running;
    if (this.stopped) return;
    this.run();
    await this.running;
  }

  /** No new run starts; resolves once the run in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), ms);
  }

  private run(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.wokenWhileRunning = false;
    this.running = this.tick()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.wokenWhileRunning ? 0 : this.intervalMs);
      });
  }
}
