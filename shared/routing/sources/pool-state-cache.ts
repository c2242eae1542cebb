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

/** How far a chain's pool state may trail the chain before what is derived from it is refused. */
export interface StalenessBounds {
  /** Seconds since the state was last confirmed at the chain's head. */
  afterSeconds: number;
  /** Blocks between the state's block and the newest head seen. */
  afterBlocks: number;
}

/**
 * Whether a chain's pool state may be served. `no-state`: nothing loaded yet (or dropped by a reorg); `age`: not
 * confirmed at the chain's head for too long (its RPC fails, or refreshes keep failing); `blocks`: the chain has
 * moved on further than the bound while refreshes lag.
 */
export interface ChainFreshness {
  stale: boolean;
  reason?: 'no-state' | 'age' | 'blocks';
  /** Milliseconds since the state was last confirmed at the chain's head (Infinity: never). */
  ageMs: number;
  /** Newest head seen minus the state's block (0 when at the head). */
  blocksBehind: number;
}

/** What the follower last learnt of a chain, kept apart from the pools so a reorg's invalidation keeps it. */
interface HeadWatch {
  /** Newest block number a poll returned. */
  headSeen: number;
  /** When a poll last found the stored state at that head, complete. */
  confirmedAt: number;
}

/**
 * Latest pool states per chain, with the block they were read at. Quotes read it and never the chain; the
 * block follower writes it. Pure logic: no I/O.
 */
export class PoolStateCache {
  private readonly entries = new Map<number, CachedPools>();
  private readonly heads = new Map<number, HeadWatch>();
  private readonly listeners = new Set<(chainId: number, blockNumber: number) => void>();

  /**
   * Calls `listener` after each refresh is stored (a chain's pools at a new block), synchronously: it should only
   * schedule work. Returns the function that unsubscribes it.
   */
  constructor(private readonly now: () => number = Date.now) {}

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
   * finishing late cannot overwrite a newer state. `complete`: every source refreshed, so the state is confirmed
   * at this head (before the listeners run, so they see it fresh).
   */
  put(
    chainId: number,
    head: Pick<BlockHead, 'number' | 'hash'>,
    pools: readonly PoolState[],
    complete = true,
  ): boolean {
    const cached = this.entries.get(chainId);
    if (cached && head.number < cached.blockNumber) return false;
    if (complete) this.confirm(chainId, head.number);
    else this.noteHead(chainId, head.number);
    this.entries.set(chainId, {
      chainId,
      blockNumber: head.number,
      blockHash: head.hash.toLowerCase(),
      pools,
      storedAt: this.now(),
    });
    for (const listener of this.listeners) listener(chainId, head.number);
    return true;
  }

  invalidate(chainId: number): void {
    this.entries.delete(chainId);
  }

  /** A poll saw the chain at block `number`: the state is behind it until confirmed there. */
  noteHead(chainId: number, number: number): void {
    const watch = this.heads.get(chainId);
    if (watch) watch.headSeen = Math.max(watch.headSeen, number);
    else this.heads.set(chainId, { headSeen: number, confirmedAt: -Infinity });
  }

  /** A poll found the stored state complete at the chain's head `number`. */
  confirm(chainId: number, number: number): void {
    this.noteHead(chainId, number);
    this.heads.get(chainId)!.confirmedAt = this.now();
  }

  freshness(chainId: number, bounds: StalenessBounds, now: number = this.now()): ChainFreshness {
    const entry = this.entries.get(chainId);
    const watch = this.heads.get(chainId);
    const ageMs = watch ? Math.max(0, now - watch.confirmedAt) : Infinity;
    if (!entry) return { stale: true, reason: 'no-state', ageMs, blocksBehind: 0 };
    const blocksBehind = Math.max(0, (watch?.headSeen ?? entry.blockNumber) - entry.blockNumber);
    if (ageMs > bounds.afterSeconds * 1000) return { stale: true, reason: 'age', ageMs, blocksBehind };
    if (blocksBehind > bounds.afterBlocks) return { stale: true, reason: 'blocks', ageMs, blocksBehind };
    return { stale: false, ageMs, blocksBehind };
  }
}
