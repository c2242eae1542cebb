import type { ChainClient } from '../../shared/chain/chain-client';
import type { KeeperMetrics } from '../keeper-metrics';
import type { NonceGapFiller } from '../outbox/nonce-gap-filler';
import type { OrderWorks } from '../order-work';
import type { StageTimer } from '../stage-timer';
import type { ExecutorWallet } from '../outbox/executor-wallet';
import type { WalletPool } from '../submit/wallet-pool';
import type { BlockFeedWatch } from '../watch/block-feed-watch';
import { isOutageError, type ChainAvailability } from '../watch/chain-availability';
import type { TransactionTracker } from './transaction-tracker';

const LEASE_SWEEP_MS = 5_000;
const BALANCE_READ_MS = 15_000;
const LAG_READ_MS = 1_000;
const GAP_CHECK_MS = 1_000;

export interface TrackStageDeps {
  chainId: number;
  client: ChainClient;
  tracker: TransactionTracker;
  gaps: Pick<NonceGapFiller, 'check'>;
  /** Wallets of other work on this chain (the relay's) whose nonces are checked for gaps as well. */
  relayWallets: () => readonly ExecutorWallet[];
  feed: BlockFeedWatch;
  pool: WalletPool;
  works: OrderWorks;
  availability: ChainAvailability;
  metrics: KeeperMetrics;
  timer: StageTimer;
}

/**
 * The start of a chain's tick: on a new block, the tracker follows our transactions to their receipts (the settle
 * stage runs next: a settled batch frees its wallet for this block's orders); the block feed is watched for
 * stalls; and on their own clocks, claims whose lease ran out go back to pending, the executors' nonces are checked
 * for gaps, executor balances are read, and the chain's head is compared with the pool state's (which also tells
 * when a failing RPC answers again).
 */
export class TrackStage {
  private lastBlock: number | undefined;
  private lastFollowed: number | undefined;
  private lastLeaseSweep = 0;
  private lastBalanceRead = 0;
  private lastLagRead = 0;
  private lastGapCheck = 0;

  constructor(private readonly deps: TrackStageDeps) {}

  /** Resolves whether `head` is a block this stage had not seen. */
  async run(head: number, now: number): Promise<boolean> {
    const { deps } = this;
    const newBlock = head !== this.lastBlock;
    if (newBlock) {
      this.lastBlock = head;
      deps.metrics.blockSeen(deps.chainId, head, now);
      await this.follow(head);
    }
    deps.feed.observe(now, head, this.pendingTransactions());
    if (now - this.lastLeaseSweep > LEASE_SWEEP_MS) {
      this.lastLeaseSweep = now;
      await deps.timer.run('track', () => this.sweepLeases(now));
    }
    if (now - this.lastGapCheck > GAP_CHECK_MS) {
      this.lastGapCheck = now;
      await deps.timer.run('track', () =>
        deps.gaps.check([...deps.pool.wallets, ...deps.relayWallets()], head),
      );
    }
    // Watching the chain (balances, the head against the pool state's) is timed as `watch`, not as tracking.
    if (now - this.lastBalanceRead > BALANCE_READ_MS) {
      this.lastBalanceRead = now;
      await deps.timer.run('watch', () => deps.pool.balances());
    }
    if (now - this.lastLagRead > LAG_READ_MS) {
      this.lastLagRead = now;
      await deps.timer.run('watch', () => this.readLag(head));
    }
    return newBlock;
  }

  /** Follows our transactions at `head` (also right after a send: instant-mining chains include it at once). */
  async follow(head: number): Promise<void> {
    this.lastFollowed = head;
    await this.deps.timer.run('track', () => this.deps.tracker.track(head));
    for (const wallet of this.deps.pool.wallets) {
      this.deps.metrics.setInFlight(this.deps.chainId, wallet.address, wallet.inFlight);
    }
  }

  /**
   * Follows our transactions at the chain's head as it is now, when that is a block not followed yet: a send on a
   * chain whose blocks come on a clock changes nothing a follow would find before the next block.
   */
  async followLatest(fallbackHead: number): Promise<void> {
    const head = await this.deps.client.blockNumber().catch(() => fallbackHead);
    if (this.lastFollowed !== undefined && head <= this.lastFollowed) return;
    await this.follow(head);
  }

  private pendingTransactions(): number {
    return this.deps.pool.wallets.reduce((n, wallet) => n + wallet.inFlight, 0);
  }

  private async sweepLeases(now: number): Promise<void> {
    for (const work of this.deps.works.values()) {
      const reclaimed = await work.repository.reclaimExpiredLeases(now);
      if (reclaimed.length) this.deps.metrics.leasesReclaimed(this.deps.chainId, work.kind, reclaimed.length);
    }
  }

  private async readLag(head: number): Promise<void> {
    const { deps } = this;
    const chainHead = await deps.client.blockNumber().catch((err: unknown) => {
      if (isOutageError(err)) deps.availability.rpcFailed();
      return undefined;
    });
    if (chainHead === undefined) return;
    deps.availability.rpcAnswered();
    deps.metrics.setPriceLag(deps.chainId, Math.max(0, chainHead - head));
  }
}
