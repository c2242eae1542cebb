/** Wall time spent per phase of a run, summed over its blocks: where the time goes. */
export class PhaseTimer {
  private readonly totals = new Map<string, number>();

  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.totals.set(phase, (this.totals.get(phase) ?? 0) + performance.now() - started);
    }
  }

  /** Seconds per phase, 3 decimals. */
  seconds(): Record<string, number> {
    return Object.fromEntries([...this.totals].map(([phase, ms]) => [phase, Math.round(ms) / 1000]));
  }
}
