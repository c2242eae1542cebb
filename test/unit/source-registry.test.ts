import type { PoolState } from '../../shared/routing/pools/pool-state';
import {
  HOP_KIND_V2,
  NEVER_REFRESHED,
  type LiquiditySource,
  type SourceSnapshot,
} from '../../shared/routing/sources/liquidity-source';
import { devnetSourcesConfig, SourceRegistry } from '../../shared/routing/sources/source-registry';
import type { ChainClient } from '../../shared/chain/chain-client';
import { BlockFollower } from '../../shared/routing/sources/block-follower';
import { PoolStateCache } from '../../shared/routing/sources/pool-state-cache';

/** A source whose refresh resolves or fails on demand and records the calls it got. */
class FakeSource implements LiquiditySource {
  readonly name = 'Fake';
  readonly hopKind = HOP_KIND_V2;
  readonly refreshed: number[] = [];
  resets = 0;
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(
    readonly id: string,
    readonly chainId: number,
    public fail = false,
  ) {}

  discover(): Promise<void> {
    return Promise.resolve();
  }

  async refresh(blockNumber: number): Promise<void> {
    this.refreshed.push(blockNumber);
    if (this.fail) throw new Error(`${this.id} is down`);
    const pool: PoolState = {
      kind: 'v2',
      sourceId: this.id,
      address: `0x${blockNumber.toString(16).padStart(40, '0')}`,
      token0: '0x00000000000000000000000000000000000000b1',
      token1: '0x00000000000000000000000000000000000000b2',
      reserve0: 1n,
      reserve1: 2n,
      feeBps: 30n,
    };
    this.current = { blockNumber, pools: [pool] };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    this.resets++;
  }
}

describe('SourceRegistry', () => {
  it('refreshes every source at the block and leaves out only the pools of a failed source', async () => {
    const [a, b, down] = [new FakeSource('a', 1), new FakeSource('b', 1), new FakeSource('down', 1, true)];
    const registry = new SourceRegistry(1, [a, down, b]);
    const refresh = await registry.refreshAll(42);
    expect([a.refreshed, b.refreshed, down.refreshed]).toEqual([[42], [42], [42]]);
    expect(refresh.blockNumber).toBe(42);
    expect(refresh.pools.map((p) => p.sourceId)).toEqual(['a', 'b']);
    expect(refresh.failures.map((f) => [f.sourceId, f.error.message])).toEqual([['down', 'down is down']]);
    registry.resetAll();
    expect([a.resets, b.resets, down.resets]).toEqual([1, 1, 1]);
    expect(registry.get('b')).toBe(b);
  });

  it('refuses duplicate ids and sources of another chain', () => {
    expect(() => new SourceRegistry(1, [new FakeSource('a', 1), new FakeSource('a', 1)])).toThrow(
      /two sources/,
    );
    expect(() => new SourceRegistry(1, [new FakeSource('a', 137)])).toThrow(/chain 137/);
  });

  it('configures the embedded mode from the devnet manifest contracts', () => {
    const contracts = { multicall: '0xM', uniswapV2Factory: '0xV2', uniswapV3Factory: '0xV3' };
    expect(devnetSourcesConfig({ chainId: 137, contracts })).toEqual({
      chainId: 137,
      multicall: '0xM',
      sources: [
        { type: 'uniswap-v2', id: 'uniswap-v2', name: 'Uniswap V2', factory: '0xV2' },
        { type: 'uniswap-v3', id: 'uniswap-v3', name: 'Uniswap V3', factory: '0xV3' },
      ],
    });
  });
});

describe('BlockFollower on an idle chain', () => {
  it('refreshes the same block again while a source failed, and stops once every source answered', async () => {
    const block = { number: 7, hash: `0x${'07'.repeat(32)}`, parentHash: `0x${'06'.repeat(32)}` };
    // The follower only asks the client for the head number and that block: a chain that mines nothing.
    const client = {
      chainId: 1,
      blockNumber: async () => 7,
      getBlock: async () => block,
    } as unknown as ChainClient;
    const [up, flaky] = [new FakeSource('up', 1), new FakeSource('flaky', 1, true)];
    const cache = new PoolStateCache();
    const follower = new BlockFollower({
      client,
      registry: new SourceRegistry(1, [up, flaky]),
      cache,
      pollMs: 1000,
    });

    expect(await follower.poll()).toMatchObject({ refreshed: true });
    expect(cache.get(1)?.pools.map((p) => p.sourceId)).toEqual(['up']);
    flaky.fail = false;
    expect(await follower.poll()).toMatchObject({ refreshed: true });
    expect(
      cache
        .get(1)
        ?.pools.map((p) => p.sourceId)
        .sort(),
    ).toEqual(['flaky', 'up']);
    expect(await follower.poll()).toEqual({ refreshed: false });
    expect(flaky.refreshed).toEqual([7, 7]);
  });
});

describe('BlockFollower freshness', () => {
  it('confirms the state at each answered poll and lets it age while the node fails', async () => {
    const block = { number: 7, hash: `0x${'07'.repeat(32)}`, parentHash: `0x${'06'.repeat(32)}` };
    let down = false;
    const client = {
      chainId: 1,
      blockNumber: async () => {
        if (down) throw new Error('connection refused');
        return 7;
      },
      getBlock: async () => block,
    } as unknown as ChainClient;
    let now = 0;
    const cache = new PoolStateCache(() => now);
    const follower = new BlockFollower({
      client,
      registry: new SourceRegistry(1, [new FakeSource('up', 1)]),
      cache,
      pollMs: 1000,
    });
    const bounds = { afterSeconds: 30, afterBlocks: 20 };
    await follower.poll();
    now = 40_000;
    // Idle chain, node answering: the same block, confirmed again.
    expect(await follower.poll()).toEqual({ refreshed: false });
    expect(cache.freshness(1, bounds)).toEqual({ stale: false, ageMs: 0, blocksBehind: 0 });
    down = true;
    now = 70_001;
    await expect(follower.poll()).rejects.toThrow('connection refused');
    expect(cache.freshness(1, bounds)).toMatchObject({ stale: true, reason: 'age', ageMs: 30_001 });
    down = false;
    await follower.poll();
    expect(cache.freshness(1, bounds).stale).toBe(false);
  });

  it('leaves a chain unconfirmed while a source keeps failing', async () => {
    const block = { number: 7, hash: `0x${'07'.repeat(32)}`, parentHash: `0x${'06'.repeat(32)}` };
    const client = {
      chainId: 1,
      blockNumber: async () => 7,
      getBlock: async () => block,
    } as unknown as ChainClient;
    let now = 0;
    const cache = new PoolStateCache(() => now);
    const follower = new BlockFollower({
      client,
      registry: new SourceRegistry(1, [new FakeSource('up', 1), new FakeSource('flaky', 1, true)]),
      cache,
      pollMs: 1000,
    });
    await follower.poll();
    now = 31_000;
    await follower.poll();
    expect(cache.freshness(1, { afterSeconds: 30, afterBlocks: 20 })).toMatchObject({
      stale: true,
      reason: 'age',
    });
  });
});
