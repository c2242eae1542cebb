import { RpcTimeoutError, RpcUnavailableError } from '../shared/chain/rpc-errors';
import type { Logger } from '../shared/log/create-logger';
import type { KeeperMetrics, KeeperStage } from './keeper-metrics';

/**
 * Runs one stage of a chain's tick: its time goes to the tick histogram, and a throw no stage foresaw is counted
 * and logged, never rethrown, so the tick goes on with the next stage. A chain whose RPC is down (every URL failed
 * or timed out) is an outage the RPC metrics and the chain's availability already report, not an unhandled error:
 * the stage simply tries again on the next tick. So is a store that cannot be reached: `storeFailed` records it
 * (the store watch logs it once) and the keeper's loops wait for the store's return.
 */
export class StageTimer {
  constructor(
    private readonly chainId: number,
    private readonly metrics: KeeperMetrics,
    private readonly log: Logger,
    private readonly storeFailed: (err: unknown) => boolean = () => false,
  ) {}

  async run(name: KeeperStage, stage: () => Promise<unknown>): Promise<void> {
    await this.measure(name, stage);
  }

  /** As `run`, resolving the stage's result, or undefined when it threw. */
  async measure<T>(name: KeeperStage, stage: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      return await stage();
    } catch (err) {
      if (err instanceof RpcUnavailableError || err instanceof RpcTimeoutError) {
        this.log.warn({ err, stage: name }, 'keeper stage waits for the chain RPC');
        return undefined;
      }
      if (this.storeFailed(err)) return undefined;
      this.metrics.unhandledError(name);
      this.log.error({ err, stage: name }, 'keeper stage failed');
      return undefined;
    } finally {
      this.metrics.observeTick(this.chainId, name, (performance.now() - started) / 1000);
    }
  }
}
