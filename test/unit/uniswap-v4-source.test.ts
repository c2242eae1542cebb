import { AbiCoder, Interface, ZeroAddress, ZeroHash, toBeHex, zeroPadValue } from 'ethers';
import type { V4PoolState } from '../../shared/routing/pools/pool-state';
import { HOP_KIND_V4 } from '../../shared/routing/sources/liquidity-source';
import { UniswapV4Source } from '../../shared/routing/sources/uniswap-v4-source';
import {
  MODIFY_LIQUIDITY_TOPIC,
  modifiedTicks,
  patchTicks,
} from '../../shared/routing/sources/uniswap-v4-tick-sets';
import {
  decodeSlot0,
  decodeTickLiquidity,
  liquiditySlot,
  poolStateSlot,
  slot0Slot,
  tickBitmapSlot,
  tickInfoSlot,
  v4PoolId,
} from '../../shared/routing/sources/uniswap-v4-storage';
import { FakeChain, addr } from './venue-source-fake-chain';

const MANAGER = addr(0x4444);
const [TOKEN_A, TOKEN_B, TOKEN_C] = [addr(0xa1), addr(0xb2), addr(0xc3)];
const managerInterface = new Interface([
  'function extsload(bytes32[] slots) view returns (bytes32[] values)',
]);

/** Slot0 packed as the PoolManager stores it. */
function packSlot0(sqrtPriceX96: bigint, tick: number, protocolFee: number, lpFee: number): bigint {
  return (
    sqrtPriceX96 |
    (BigInt.asUintN(24, BigInt(tick)) << 160n) |
    (BigInt(protocolFee) << 184n) |
    (BigInt(lpFee) << 208n)
  );
}

const packTick = (liquidityGross: bigint, liquidityNet: bigint): bigint =>
  (BigInt.asUintN(128, liquidityNet) << 128n) | liquidityGross;

interface FakePool {
  key: { currency0: string; currency1: string; fee: number; tickSpacing: number };
  tick: number;
  positions: Array<[number, number, bigint]>;
  /** Storage slots written for the pool's ticks and bitmap: cleared before each rewrite. */
  written: Set<string>;
}

/**
 * A PoolManager: pools written through the StateLibrary layout and read by extsload, and the ModifyLiquidity log
 * of every position change (block, PoolId, bounds) served by eth_getLogs.
 */
class FakeManager {
  readonly storage = new Map<string, bigint>();
  readonly pools = new Map<string, FakePool>();
  readonly logs: Array<{ block: number; topics: string[]; data: string }> = [];
  /** Logs left out of eth_getLogs answers (a node that drops some). */
  hide: (log: { topics: string[]; data: string }) => boolean = () => false;

  constructor(readonly chain: FakeChain) {
    chain.on(MANAGER, managerInterface, 'extsload', ([slots]) => [
      (slots as string[]).map((s) => toBeHex(this.storage.get(s.toLowerCase()) ?? 0n, 32)),
    ]);
    chain.logs = (filter) => {
      const [topic0, ids] = filter.topics as [string, string[]];
      const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
      return this.logs.filter(
        (log) =>
          filter.address === MANAGER &&
          log.topics[0] === topic0 &&
          ids.includes(log.topics[1]!) &&
          log.block >= from &&
          log.block <= to &&
          !this.hide(log),
      );
    };
  }

  /** Initializes a pool with its price at `tick` (sqrtPriceX96 is not checked against it here). */
  init(key: FakePool['key'], tick: number, protocolFee = 0): string {
    const poolId = v4PoolId(key);
    this.storage.set(slot0Slot(poolStateSlot(poolId)), packSlot0(2n ** 96n, tick, protocolFee, key.fee));
    this.pools.set(poolId, { key, tick, positions: [], written: new Set() });
    this.rewrite(poolId);
    return poolId;
  }

  /** Adds (or with a negative delta removes) liquidity in [lower, upper), logged at `block`. */
  modify(poolId: string, lower: number, upper: number, delta: bigint, block: number): void {
    const pool = this.pools.get(poolId)!;
    pool.positions.push([lower, upper, delta]);
    this.rewrite(poolId);
    this.logs.push({
      block,
      topics: [MODIFY_LIQUIDITY_TOPIC, poolId, zeroPadValue(addr(0x1234), 32)],
      data: AbiCoder.defaultAbiCoder().encode(
        ['int24', 'int24', 'int256', 'bytes32'],
        [lower, upper, delta, ZeroHash],
      ),
    });
  }

  private rewrite(poolId: string): void {
    const pool = this.pools.get(poolId)!;
    const state = poolStateSlot(poolId);
    for (const slot of pool.written) this.storage.delete(slot);
    pool.written.clear();
    let liquidity = 0n;
    const net = new Map<number, bigint>();
    const gross = new Map<number, bigint>();
    for (const [lower, upper, l] of pool.positions) {
      if (lower <= pool.tick && pool.tick < upper) liquidity += l;
      net.set(lower, (net.get(lower) ?? 0n) + l);
      net.set(upper, (net.get(upper) ?? 0n) - l);
      gross.set(lower, (gross.get(lower) ?? 0n) + l);
      gross.set(upper, (gross.get(upper) ?? 0n) + l);
    }
    this.storage.set(liquiditySlot(state), liquidity);
    for (const [index, g] of gross) {
      if (g === 0n) continue;
      const info = tickInfoSlot(state, index).toLowerCase();
      this.storage.set(info, packTick(g, net.get(index)!));
      const compressed = Math.floor(index / pool.key.tickSpacing);
      const word = tickBitmapSlot(state, compressed >> 8).toLowerCase();
      this.storage.set(word, (this.storage.get(word) ?? 0n) | (1n << BigInt(compressed & 255)));
      pool.written.add(info).add(word);
    }
  }

  /** A pool and its positions in one go, logged at block 1. */
  addPool(
    key: FakePool['key'],
    tick: number,
    positions: ReadonlyArray<[number, number, bigint]>,
    protocolFee = 0,
  ) {
    const poolId = this.init(key, tick, protocolFee);
    for (const [lower, upper, l] of positions) this.modify(poolId, lower, upper, l, 1);
    return poolId;
  }
}

function v4Pool(source: UniswapV4Source): V4PoolState {
  const pool = source.snapshot().pools[0];
  if (pool?.kind !== 'v4') throw new Error('no V4 pool in the snapshot');
  return pool;
}

const extsloads = (chain: FakeChain) => chain.calls.filter((c) => c.fn === 'extsload').length;

function setup() {
  const chain = new FakeChain();
  const manager = new FakeManager(chain);
  const source = new UniswapV4Source({
    client: chain.client(),
    poolManager: MANAGER,
    multicall: FakeChain.MULTICALL,
  });
  return { chain, manager, source };
}

describe('Uniswap V4 storage layout', () => {
  it('computes the PoolId of a known mainnet pool (ETH/USDC 0.05%, hooks-free)', () => {
    expect(
      v4PoolId({
        currency0: ZeroAddress,
        currency1: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        fee: 500,
        tickSpacing: 10,
      }),
    ).toBe('0x21c67e77068de97969ba93d4aab21826d33ca12bb9f565d8496e8fda8a82ca27');
  });

  it('unpacks slot0 (negative tick, both protocol fees) and tick liquidity (negative net)', () => {
    const word = packSlot0(123456789n, -887272, (300 << 12) | 200, 3000);
    expect(decodeSlot0(word)).toEqual({
      sqrtPriceX96: 123456789n,
      tick: -887272,
      protocolFee: (300 << 12) | 200,
      lpFee: 3000,
    });
    expect(decodeTickLiquidity(packTick(5n, -5n))).toEqual({ liquidityGross: 5n, liquidityNet: -5n });
    expect(decodeTickLiquidity(packTick(7n, 7n))).toEqual({ liquidityGross: 7n, liquidityNet: 7n });
  });
});

describe('UniswapV4Source', () => {
  it('has the V4 id, name and hop kind', () => {
    const { source } = setup();
    expect([source.id, source.name, source.hopKind, source.chainId]).toEqual([
      'uniswap-v4',
      'Uniswap V4',
      HOP_KIND_V4,
      1,
    ]);
  });

  it('discovers the initialized hooks-free pools among pairs × (fee, tick spacing) and reads their ticks sorted', async () => {
    const { chain, manager, source } = setup();
    const ab = manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_B, fee: 500, tickSpacing: 10 }, -15, [
      [-600, 600, 1000n],
      [-30, 2560, 50n],
      [-5120, -2570, 7n],
    ]);
    const bc = manager.addPool({ currency0: TOKEN_B, currency1: TOKEN_C, fee: 3000, tickSpacing: 60 }, 0, [
      [-887220, 887220, 10n ** 18n],
    ]);
    // Not one of the configured (fee, spacing) pairs: never found.
    manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_C, fee: 3000, tickSpacing: 10 }, 0, [
      [-10, 10, 1n],
    ]);

    await source.discover([TOKEN_C.toUpperCase().replace('0X', '0x'), TOKEN_B, TOKEN_A]);
    // 3 pairs × 4 tiers, slot0 of each in one extsload.
    expect(chain.calls.filter((c) => c.fn === 'extsload')).toHaveLength(1);
    await source.refresh(100);
    const { blockNumber, pools } = source.snapshot();
    expect(blockNumber).toBe(100);
    expect(pools.map((p) => p.address).sort()).toEqual([ab, bc].sort());
    const abState = pools.find((p) => p.address === ab)!;
    expect(abState).toEqual({
      kind: 'v4',
      sourceId: 'uniswap-v4',
      address: ab,
      token0: TOKEN_A,
      token1: TOKEN_B,
      fee: 500,
      tickSpacing: 10,
      sqrtPriceX96: 2n ** 96n,
      tick: -15,
      liquidity: 1050n,
      ticks: [
        { index: -5120, liquidityNet: 7n },
        { index: -2570, liquidityNet: -7n },
        { index: -600, liquidityNet: 1000n },
        { index: -30, liquidityNet: 50n },
        { index: 600, liquidityNet: -1000n },
        { index: 2560, liquidityNet: -50n },
      ],
    });
    expect(pools.find((p) => p.address === bc)).toMatchObject({
      token0: TOKEN_B,
      token1: TOKEN_C,
      liquidity: 10n ** 18n,
      ticks: [
        { index: -887220, liquidityNet: 10n ** 18n },
        { index: 887220, liquidityNet: -(10n ** 18n) },
      ],
    });
  });

  it('leaves out a pool with a protocol fee (its swap fee is not the PoolKey fee)', async () => {
    const { manager, source } = setup();
    manager.addPool(
      { currency0: TOKEN_A, currency1: TOKEN_B, fee: 500, tickSpacing: 10 },
      0,
      [[-10, 10, 1n]],
      100,
    );
    await source.discover([TOKEN_A, TOKEN_B]);
    await source.refresh(100);
    expect(source.snapshot().pools).toEqual([]);
  });

  it("reads a new pool's ticks from its ModifyLiquidity history, not its bitmap", async () => {
    const { chain, manager, source } = setup();
    manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_B, fee: 100, tickSpacing: 1 }, 0, [
      [-600, 600, 1000n],
      [-30, 2560, 50n],
    ]);
    await source.discover([TOKEN_A, TOKEN_B]);
    const before = extsloads(chain);
    await source.refresh(100);
    // Heads, then the four ticks the logs name: two extsload calls, where the bitmap of spacing 1 is 6,933 words.
    expect(extsloads(chain) - before).toBe(2);
    expect(chain.logFilters).toEqual([
      {
        address: MANAGER,
        topics: [MODIFY_LIQUIDITY_TOPIC, [v4Pool(source).address]],
        fromBlock: '0x0',
        toBlock: '0x64',
      },
    ]);
    expect(v4Pool(source).ticks).toEqual([
      { index: -600, liquidityNet: 1000n },
      { index: -30, liquidityNet: 50n },
      { index: 600, liquidityNet: -1000n },
      { index: 2560, liquidityNet: -50n },
    ]);
  });

  it('scans the bitmap when the history misses an in-range position, or the node refuses it', async () => {
    for (const fault of ['drop', 'refuse'] as const) {
      const { chain, manager, source } = setup();
      manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_B, fee: 500, tickSpacing: 10 }, 0, [
        [-600, 600, 1000n],
        [-30, 2560, 50n],
      ]);
      if (fault === 'drop') manager.hide = (log) => log.data.includes(toBeHex(2560, 32).slice(2));
      else
        chain.logs = () => {
          throw new Error('query returned more than 10000 results');
        };
      await source.discover([TOKEN_A, TOKEN_B]);
      const before = extsloads(chain);
      await source.refresh(100);
      expect(extsloads(chain) - before).toBeGreaterThan(3);
      expect(v4Pool(source).ticks.map((t) => t.index)).toEqual([-600, -30, 600, 2560]);
    }
  });

  it('patches a known tick set with the ticks of the ModifyLiquidity logs since the last refresh', async () => {
    const { chain, manager, source } = setup();
    const poolId = manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_B, fee: 500, tickSpacing: 10 }, 0, [
      [-600, 600, 1000n],
      [-100, 100, 5n],
    ]);
    await source.discover([TOKEN_A, TOKEN_B]);
    await source.refresh(100);

    // A new position and the old narrow one removed, both logged in block 101.
    manager.modify(poolId, -200, 300, 7n, 101);
    manager.modify(poolId, -100, 100, -5n, 101);
    let before = extsloads(chain);
    await source.refresh(101);
    expect(chain.logFilters.at(-1)).toMatchObject({
      topics: [MODIFY_LIQUIDITY_TOPIC, [poolId]],
      fromBlock: '0x65',
      toBlock: '0x65',
    });
    expect(extsloads(chain) - before).toBe(2);
    expect(v4Pool(source)).toMatchObject({
      liquidity: 1007n,
      ticks: [
        { index: -600, liquidityNet: 1000n },
        { index: -200, liquidityNet: 7n },
        { index: 300, liquidityNet: -7n },
        { index: 600, liquidityNet: -1000n },
      ],
    });

    // No log since: heads only. The same block again asks no logs at all.
    before = extsloads(chain);
    await source.refresh(102);
    expect(extsloads(chain) - before).toBe(1);
    const filters = chain.logFilters.length;
    await source.refresh(102);
    expect(chain.logFilters).toHaveLength(filters);

    // After reset() the history is read again, from block 0.
    source.reset();
    await source.refresh(103);
    expect(chain.logFilters.at(-1)).toMatchObject({ fromBlock: '0x0', toBlock: '0x67' });
    expect(v4Pool(source).ticks).toHaveLength(4);
  });

  it('decodes the bounds of ModifyLiquidity logs and patches tick sets', () => {
    const log = (poolId: string, lower: number, upper: number) => ({
      topics: [MODIFY_LIQUIDITY_TOPIC, poolId, zeroPadValue(addr(1), 32)],
      data: AbiCoder.defaultAbiCoder().encode(
        ['int24', 'int24', 'int256', 'bytes32'],
        [lower, upper, -1n, ZeroHash],
      ),
    });
    const [p, q] = [`0x${'ab'.repeat(32)}`, `0x${'cd'.repeat(32)}`];
    expect(modifiedTicks([log(p, -887270, 60), log(q, 0, 10), log(p, 60, 120)])).toEqual(
      new Map([
        [p, new Set([-887270, 60, 120])],
        [q, new Set([0, 10])],
      ]),
    );
    expect(
      patchTicks(
        [
          { index: -10, liquidityNet: 4n },
          { index: 10, liquidityNet: -4n },
        ],
        [
          { index: 10, liquidityGross: 0n, liquidityNet: 0n },
          { index: 20, liquidityGross: 4n, liquidityNet: -4n },
          { index: -30, liquidityGross: 1n, liquidityNet: 1n },
        ],
      ),
    ).toEqual([
      { index: -30, liquidityNet: 1n },
      { index: -10, liquidityNet: 4n },
      { index: 20, liquidityNet: -4n },
    ]);
  });

  it('fails the refresh when the manager does not answer (so the registry reports it)', async () => {
    const chain = new FakeChain();
    const manager = new FakeManager(chain);
    manager.addPool({ currency0: TOKEN_A, currency1: TOKEN_B, fee: 500, tickSpacing: 10 }, 0, [
      [-600, 600, 1n],
    ]);
    const source = new UniswapV4Source({
      client: chain.client(),
      poolManager: MANAGER,
      multicall: FakeChain.MULTICALL,
    });
    await source.discover([TOKEN_A, TOKEN_B]);
    chain.on(MANAGER, managerInterface, 'extsload', () => undefined);
    await expect(source.refresh(100)).rejects.toThrow(/extsload/);
  });
});
