import type { ChainClient } from '../../chain/chain-client';
import type { Logger } from '../../log/create-logger';
import type { BlockHead, HeadRelation, PoolStateCache } from './pool-state-cache';
import type { ChainRefresh, SourceRegistry } from './source-registry';

export const DEFAULT_POLL_MS = 1000;

export interface BlockFollowerOptions {
  client: ChainClient;
  registry: SourceRegistry;
  cache: PoolStateCache;
  pollMs?: number;
  log?: Logger;
  /** Called after each refresh stored in the cache (tests, metrics). */
  onRefresh?: (head: BlockHead, refresh: ChainRefresh, relation: HeadRelation) => void;
}

/** What one poll did: nothing new, or the head it refreshed at and how it related to the cached block. */
export type PollOutcome = { refreshed: false } | { refreshed: true; head: BlockHead; relation: HeadRelation };

/**
 * Keeps a chain's entry of the PoolStateCache at the chain head: polls eth_blockNumber every pollMs and, on a
 * new block, fetches it (hash, parentHash), checks continuity and refreshes every source at it. Polling
 * rather than a subscription: it works over plain HTTP RPC URLs with failover, and costs one call a poll.
 */
export class BlockFollower {
  private readonly opts: BlockFollowerOptions;
  private readonly pollMs: number;
  /** The last refresh left a source out: refresh the same block again at the next poll. */
  private incomplete = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(opts: BlockFollowerOptions) {
    if (opts.client.chainId !== opts.registry.chainId) {
      throw new Error(`client of chain ${opts.client.chainId} cannot follow chain ${opts.registry.chainId}`);
    }
    this.opts = opts;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    if (!(this.pollMs > 0)) throw new Error(`pollMs must be > 0, got ${this.pollMs}`);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for a poll in flight, so no refresh writes the cache afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * One poll now, after the poll in flight if any (never two at a time), for a driver that mines the blocks itself
   * (a simulation run); its failure is the caller's.
   */
  async pollNow(): Promise<PollOutcome> {
    while (this.running) await this.running;
    const polled = this.poll();
    this.running = polled.catch(() => undefined);
    try {
      return await polled;
    } finally {
      this.running = undefined;
    }
  }

  /** One poll; start() runs it every pollMs, tests call it directly. */
  async poll(): Promise<PollOutcome> {
    const { client, registry, cache } = this.opts;
    const chainId = registry.chainId;
    const number = await client.blockNumber();
    cache.noteHead(chainId, number);
    const cached = cache.get(chainId);
    // A same-height reorg shows up at the next block, whose parent is then not the cached hash. A block whose
    // refresh had a failing source is refreshed again: without new blocks (an idle chain) it would stay missing.
    if (cached && number === cached.blockNumber && !this.incomplete) {
      // An idle chain is not a stale one: the state is confirmed at the head as long as the node answers.
      cache.confirm(chainId, number);
      return { refreshed: false };
    }
    const head = await this.head(number);
    let relation = cache.observe(chainId, head);
    if (relation === 'ahead' && cached) {
      // Skipped blocks: the cached block must still be on the chain for the incremental state to hold.
      const old = await client.getBlock(cached.blockNumber);
      if (old?.hash?.toLowerCase() !== cached.blockHash) {
        cache.invalidate(chainId);
        relation = 'reorg';
      }
    }
    if (relation === 'reorg') {
      this.opts.log?.warn({ chainId, block: head.number }, 'reorg detected: pool states invalidated');
      registry.resetAll();
    }
    const refresh = await registry.refreshAll(head.number);
    this.incomplete = refresh.failures.length > 0;
    for (const failure of refresh.failures) {
      this.opts.log?.warn(
        { chainId, block: head.number, sourceId: failure.sourceId },
        `liquidity source refresh failed: ${failure.error.message}`,
      );
    }
    // A refresh that left a source out keeps the chain unconfirmed: its age grows until a complete one.
    if (cache.put(chainId, head, refresh.pools, !this.incomplete))
      this.opts.onRefresh?.(head, refresh, relation);
    return { refreshed: true, head, relation };
  }

  private async head(number: number): Promise<BlockHead> {
    const block = await this.opts.client.getBlock(number);
    if (!block?.hash) throw new Error(`chain ${this.opts.registry.chainId} has no block ${number}`);
    return {
      number: block.number,
      hash: block.hash.toLowerCase(),
      parentHash: block.parentHash.toLowerCase(),
    };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (this.running) {
        // A driver's pollNow() holds the turn: this poll is not needed.
        this.schedule(this.pollMs);
        return;
      }
      this.running = this.poll()
        .catch((err: unknown) => {
          this.opts.log?.warn(
            { chainId: this.opts.registry.chainId },
            `block follower poll failed: ${err instanceof Error ? err.message : String(err)}`,
          );
        })
        .finally(() => {
          this.running = undefined;
          this.schedule(this.pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
