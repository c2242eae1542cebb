import type { Logger } from '../../shared/log/create-logger';
import type { KeeperMetrics } from '../keeper-metrics';

/** Blocks a chain with a block time may miss in a row before its feed counts as stalled (never under `stallMs`). */
export const MISSED_BLOCKS_BEFORE_STALL = 3;

export interface BlockFeedWatchOptions {
  /** KEEPER_BLOCK_STALL_MS: the least silence that is a stall. */
  stallMs: number;
  /**
   * The chain's block time (its chains-file `blockTimeSeconds`): blocks are expected on a clock. Absent, blocks come
   * only with transactions (instant mining): silence is a stall only while our transactions wait for one.
   */
  expectedBlockTimeMs?: number;
}

/**
 * Watches one chain's block feed and says when it stalls: when blocks are expected and missing, never merely
 * because nothing happens. Blocks are expected when the chain has a block time (then silence longer than
 * max(stallMs, MISSED_BLOCKS_BEFORE_STALL × block time) is a stall) or while the keeper's transactions are pending
 * (then no block for stallMs is a stall, whatever the chain). An idle instant-mining chain makes no blocks and is
 * never stalled.
 *
 * A stall is reported once (`tas_keeper_feed_stalls_total`, the `tas_keeper_feed_stalled` gauge, one warning) and
 * cleared when a block comes or blocks are no longer expected. The feed starts at the first observed head: a
 * chain whose pool state is still loading is the readiness probe's business, not a stall.
 */
export class BlockFeedWatch {
  private head: number | undefined;
  private lastBlockAt = 0;
  /** Since when our transactions have been waiting for a block (the later of their sending and the last block). */
  private pendingSince: number | undefined;
  private stalledSince: number | undefined;

  constructor(
    readonly chainId: number,
    private readonly metrics: Pick<KeeperMetrics, 'feedStall' | 'feedResumed'>,
    private readonly log: Logger,
    private readonly options: BlockFeedWatchOptions,
  ) {}

  /** Once per tick: the head the keeper works on and how many of its transactions on the chain await inclusion. */
  observe(now: number, head: number, pendingTransactions: number): void {
    if (head !== this.head) {
      this.head = head;
      this.lastBlockAt = now;
      this.pendingSince = pendingTransactions > 0 ? now : undefined;
      this.clear(now, head, 'block feed delivering again');
      return;
    }
    if (pendingTransactions === 0) this.pendingSince = undefined;
    else this.pendingSince ??= now;
    const silentMs = now - this.lastBlockAt;
    const waitingMs = this.pendingSince === undefined ? 0 : now - this.pendingSince;
    const blockTime = this.options.expectedBlockTimeMs;
    const clockStall =
      blockTime !== undefined &&
      blockTime > 0 &&
      silentMs > Math.max(this.options.stallMs, MISSED_BLOCKS_BEFORE_STALL * blockTime);
    const pendingStall = waitingMs > this.options.stallMs;
    if (!clockStall && !pendingStall) {
      this.clear(now, head, 'no block expected any more: block feed no longer stalled');
      return;
    }
    if (this.stalledSince !== undefined) return;
    this.stalledSince = now;
    this.metrics.feedStall(this.chainId);
    this.log.warn(
      { block: head, silentMs, pendingTransactions, expectedBlockTimeMs: blockTime },
      pendingStall
        ? 'block feed stalled: our transactions wait and no block comes'
        : 'block feed stalled: the chain makes blocks on a clock and none came',
    );
  }

  /** Whether the feed is stalled now. */
  get stalled(): boolean {
    return this.stalledSince !== undefined;
  }

  /** How long the feed has been stalled (0 when it is not). */
  stalledFor(now: number): number {
    return this.stalledSince === undefined ? 0 : Math.max(0, now - this.stalledSince);
  }

  private clear(now: number, head: number, message: string): void {
    if (this.stalledSince === undefined) return;
    const stalledMs = now - this.stalledSince;
    this.stalledSince = undefined;
    this.metrics.feedResumed(this.chainId);
    this.log.info({ block: head, stalledMs }, message);
  }
}
