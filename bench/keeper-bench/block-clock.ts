import type { ChainHandle } from '../../devnet/start-chain';

/**
 * Controls how the devnet mines: the engine's instant mining (a block per transaction, as `npm start` runs), or
 * blocks at a fixed interval. Interval blocks are mined here on a paused chain rather than with the engine's block
 * time, because the bench also needs to hold blocks back to put several transactions (the market moves) into one
 * block, which `hold()` / `mineNow()` do in either mode.
 */
export class BlockClock {
  private intervalMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private mining: Promise<void> = Promise.resolve();

  constructor(private readonly chain: ChainHandle) {}

  get mode(): string {
    return this.intervalMs > 0 ? `${this.intervalMs / 1000} s blocks` : 'instant mining';
  }

  /** One block every `ms` milliseconds from now on; 0 returns to instant mining. */
  async setInterval(ms: number): Promise<void> {
    this.stopTimer();
    await this.mining;
    this.intervalMs = ms;
    if (ms > 0) {
      await this.chain.pauseMining();
      this.startTimer();
    } else {
      await this.chain.resumeMining();
    }
  }

  /** No block is mined until mineNow(): transactions sent meanwhile wait in the pool. */
  async hold(): Promise<void> {
    this.stopTimer();
    await this.mining;
    if (this.intervalMs === 0) await this.chain.pauseMining();
  }

  /** Mines one block with everything pending and resumes the mode. */
  async mineNow(): Promise<void> {
    if (this.intervalMs === 0) {
      // Resuming instant mining mines the pooled transactions in one block.
      await this.chain.resumeMining();
    } else {
      await this.chain.mine();
      this.startTimer();
    }
  }

  /** Transactions waiting in the node's pool. */
  async pending(): Promise<number> {
    const pool = (await this.chain.provider.send('txpool_content', [])) as {
      pending: Record<string, Record<string, unknown>>;
    };
    return Object.values(pool.pending).reduce((n, byNonce) => n + Object.keys(byNonce).length, 0);
  }

  /**
   * Stops producing blocks, before the chain is shut down. It does not resume the engine's mining: ganache's
   * resume mines a block in the background, which would write to a database about to close.
   */
  async stop(): Promise<void> {
    this.stopTimer();
    await this.mining;
  }

  private startTimer(): void {
    this.timer = setInterval(() => {
      this.mining = this.mining
        .then(() => this.chain.mine())
        .then(
          () => undefined,
          () => undefined,
        );
    }, this.intervalMs);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
