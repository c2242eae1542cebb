import type { PoolState } from '../pools/pool-state';

/** The identity of a block as the cache checks chain continuity with it. */
export interface BlockHead {
  number: number;
  hash: string;
  parentHash: string;
}

export interface CachedPools {
  chainId: number;
  blockNumber: number;
  blockHash: string;
  pools: readonly PoolState[];
  /** Date.now() when stored, so readers can judge staleness. */
  storedAt: number;
}

/**
 * How a newly seen head relates to the cached block:
 * - `empty`: nothing cached for the chain;
 * - `same`: the cached block itself;
 * - `child`: the next block, built on the cached one;
 * - `ahead`: further ahead (blocks were skipped): continuity cannot be told from this head alone;
 * - `reorg`: the cached block is no longer on the chain (the next block's parent differs, or a block at or
 *   below the cached height has another hash). The cached entry is dropped.
 */
export type HeadRelation = 'empty' | 'same' | 'child' | 'ahead' | 'reorg';

/**
 * Latest pool states per chain, with the block they were read at. Quotes read it and never the chain; the
 * block follower writes it. Pure logic: no I/O.
 */
export class PoolStateCache {
  private readonly entries = new Map<number, CachedPools>();
  private readonly listeners = new Set<(chainId: number, blockNumber: number) => void>();

  /**
   * Calls `listener` after each refresh is stored (a chain's pools at a new block), synchronously: it should only
   * schedule work. Returns the function that unsubscribes it.
   */
  subscribe(listener: (chainId: number, blockNumber: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(chainId: number): CachedPools | undefined {
    return this.entries.get(chainId);
  }

  /** Classifies a new head against the cache; a reorg invalidates the chain's entry at once. */
  observe(chainId: number, head: BlockHead): HeadRelation {
    const cached = this.entries.get(chainId);
    if (!cached) return 'empty';
    const hash = head.hash.toLowerCase();
    if (head.number === cached.blockNumber && hash === cached.blockHash) return 'same';
    if (head.number === cached.blockNumber + 1 && head.parentHash.toLowerCase() === cached.blockHash)
      return 'child';
    if (head.number > cached.blockNumber + 1) return 'ahead';
    this.invalidate(chainId);
    return 'reorg';
  }

  /**
   * Stores pools read at `head`. Refuses (returns false) a block older than the cached one, so a slow refresh
   * finishing late cannot overwrite a newer state.
   */
  put(chainId: number, head: Pick<BlockHead, 'number' | 'hash'>, pools: readonly PoolState[]): boolean {
    const cached = this.entries.get(chainId);
    if (cached && head.number < cached.blockNumber) return false;
    this.entries.set(chainId, {
      chainId,
      blockNumber: head.number,
      blockHash: head.hash.toLowerCase(),
      pools,
      storedAt: Date.now(),
    });
    for (const listener of this.listeners) listener(chainId, head.number);
    return true;
  }

  invalidate(chainId: number): void {
    this.entries.delete(chainId);
  }
}
