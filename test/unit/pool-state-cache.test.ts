import type { PoolState } from '../../shared/routing/pools/pool-state';
import { PoolStateCache, type BlockHead } from '../../shared/routing/sources/pool-state-cache';

const hash = (n: number, fork = 0): string => `0x${(n * 16 + fork).toString(16).padStart(64, '0')}`;
const head = (n: number, fork = 0, parentFork = fork): BlockHead => ({
  number: n,
  hash: hash(n, fork),
  parentHash: hash(n - 1, parentFork),
});
const pool: PoolState = {
  kind: 'v2',
  sourceId: 'uniswap-v2',
  address: '0x00000000000000000000000000000000000000aa',
  token0: '0x00000000000000000000000000000000000000b1',
  token1: '0x00000000000000000000000000000000000000b2',
  reserve0: 10n,
  reserve1: 20n,
  feeBps: 30n,
};

describe('PoolStateCache', () => {
  let cache: PoolStateCache;

  beforeEach(() => {
    cache = new PoolStateCache();
    expect(cache.observe(1, head(100))).toBe('empty');
    expect(cache.put(1, head(100), [pool])).toBe(true);
  });

  it('keeps the latest pools per chain with their block number and hash', () => {
    expect(cache.get(1)).toMatchObject({ chainId: 1, blockNumber: 100, blockHash: hash(100), pools: [pool] });
    expect(cache.get(137)).toBeUndefined();
    cache.put(137, head(5), []);
    expect(cache.get(137)?.blockNumber).toBe(5);
    expect(cache.get(1)?.blockNumber).toBe(100);
  });

  it('accepts the same block and its child without invalidating', () => {
    expect(cache.observe(1, head(100))).toBe('same');
    expect(cache.observe(1, head(101))).toBe('child');
    expect(cache.get(1)?.blockNumber).toBe(100);
    cache.put(1, head(101), []);
    expect(cache.get(1)).toMatchObject({ blockNumber: 101, blockHash: hash(101), pools: [] });
  });

  it('is invalidated when the next block’s parent hash does not match the stored hash (reorg)', () => {
    expect(cache.observe(1, head(101, 1, 1))).toBe('reorg');
    expect(cache.get(1)).toBeUndefined();
    expect(cache.observe(1, head(101, 1, 1))).toBe('empty');
  });

  it('is invalidated by another block at or below the cached height, hash compared case-insensitively', () => {
    expect(cache.observe(1, { ...head(100), hash: hash(100).toUpperCase().replace('0X', '0x') })).toBe(
      'same',
    );
    expect(cache.observe(1, head(100, 2))).toBe('reorg');
    expect(cache.get(1)).toBeUndefined();
    cache.put(1, head(100), [pool]);
    expect(cache.observe(1, head(99))).toBe('reorg');
    expect(cache.get(1)).toBeUndefined();
  });

  it('reports skipped blocks as ahead (continuity checked by the caller) and leaves the entry', () => {
    expect(cache.observe(1, head(105, 3, 3))).toBe('ahead');
    expect(cache.get(1)?.blockNumber).toBe(100);
  });

  it('refuses a state older than the cached one and can be invalidated explicitly', () => {
    expect(cache.put(1, head(99), [])).toBe(false);
    expect(cache.get(1)?.pools).toEqual([pool]);
    cache.invalidate(1);
    expect(cache.get(1)).toBeUndefined();
  });

  it('tells subscribers of every state it stores, not of one it refuses, until they unsubscribe', () => {
    const seen: Array<[number, number]> = [];
    const unsubscribe = cache.subscribe((chainId, blockNumber) => seen.push([chainId, blockNumber]));
    cache.put(1, head(101), [pool]);
    cache.put(1, head(99), [pool]);
    cache.put(137, head(7), []);
    unsubscribe();
    cache.put(1, head(102), [pool]);
    expect(seen).toEqual([
      [1, 101],
      [137, 7],
    ]);
  });
});

describe('PoolStateCache freshness', () => {
  const bounds = { afterSeconds: 30, afterBlocks: 5 };
  let now: number;
  let cache: PoolStateCache;

  beforeEach(() => {
    now = 1_000_000;
    cache = new PoolStateCache(() => now);
  });

  it('has no state before the first refresh', () => {
    expect(cache.freshness(1, bounds)).toEqual({
      stale: true,
      reason: 'no-state',
      ageMs: Infinity,
      blocksBehind: 0,
    });
  });

  it('is fresh while polls confirm the state at the head, however long the chain stays idle', () => {
    cache.put(1, head(100), [pool]);
    now += 29_000;
    expect(cache.freshness(1, bounds)).toEqual({ stale: false, ageMs: 29_000, blocksBehind: 0 });
    cache.confirm(1, 100);
    now += 25_000;
    expect(cache.freshness(1, bounds).stale).toBe(false);
  });

  it('goes stale by age once nothing confirms it (the node stopped answering), and recovers on a refresh', () => {
    cache.put(1, head(100), [pool]);
    now += 30_000;
    expect(cache.freshness(1, bounds).stale).toBe(false);
    now += 1;
    expect(cache.freshness(1, bounds)).toEqual({
      stale: true,
      reason: 'age',
      ageMs: 30_001,
      blocksBehind: 0,
    });
    cache.put(1, head(101), [pool]);
    expect(cache.freshness(1, bounds)).toEqual({ stale: false, ageMs: 0, blocksBehind: 0 });
  });

  it('goes stale by blocks when the chain runs ahead of refreshes, and by age when refreshes stay incomplete', () => {
    cache.put(1, head(100), [pool]);
    cache.noteHead(1, 105);
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: false, blocksBehind: 5 });
    cache.noteHead(1, 106);
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: true, reason: 'blocks', blocksBehind: 6 });
    cache.put(1, head(106, 0), [pool], false);
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: false, blocksBehind: 0 });
    now += 31_000;
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: true, reason: 'age' });
  });

  it('keeps what it learnt of the head across a reorg, which leaves no state until the next refresh', () => {
    cache.put(1, head(100), [pool]);
    cache.invalidate(1);
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: true, reason: 'no-state', ageMs: 0 });
  });
});
