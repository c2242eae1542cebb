import type { Logger } from '../shared/log/create-logger';
import type { KeeperMetrics, KeeperStage } from './keeper-metrics';

/**
 * Runs one stage of a chain's tick: its time goes to the tick histogram, and a throw no stage foresaw is counted
 * and logged, never rethrown, so the tick goes on with the next stage.
 */
export class StageTimer {
  constructor(
    private readonly chainId: number,
    private readonly metrics: KeeperMetrics,
    private readonly log: Logger,
  ) {}

  async run(name: KeeperStage, stage: () => Promise<unknown>): Promise<void> {
    const started = performance.now();
    try {
      await stage();
    } catch (err) {
      this.metrics.unhandledError(name);
      this.log.error({ err, stage: name }, 'keeper stage failed');
    } finally {
      this.metrics.observeTick(this.chainId, name, (performance.now() - started) / 1000);
    }
  }
}
