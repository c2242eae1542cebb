import { AbiCoder, Interface, ZeroAddress, id, toQuantity } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall, type MulticallCall, type MulticallResponse } from '../../chain/multicall';
import { MAX_TICK, MIN_TICK } from '../math/tick-math';
import type { V3Tick } from '../math/v3-swap';
import type { V3PoolState } from '../pools/pool-state';
import { HOP_KIND_V3, NEVER_REFRESHED, type LiquiditySource, type SourceSnapshot } from './liquidity-source';
import { tokenPairs } from './token-pairs';

const factoryInterface = new Interface([
  'function getPool(address, address, uint24) view returns (address)',
  'function feeAmountTickSpacing(uint24) view returns (int24)',
]);
const poolInterface = new Interface([
  'function token0() view returns (address)',
  'function liquidity() view returns (uint128)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function tickBitmap(int16) view returns (uint256)',
  'function ticks(int24) view returns (uint128 liquidityGross, int128 liquidityNet, uint256 feeGrowthOutside0X128, uint256 feeGrowthOutside1X128, int56 tickCumulativeOutside, uint160 secondsPerLiquidityOutsideX128, uint32 secondsOutside, bool initialized)',
]);

/**
 * The only events that change which ticks are initialized or their liquidityNet. Mint also names every tick
 * that can be initialized at all: UniswapV3Pool flips a tick on only in a mint, at the position's tickLower or
 * tickUpper (its indexed topics 2 and 3).
 */
const MINT_TOPIC = id('Mint(address,address,int24,int24,uint128,uint256,uint256)');
const BURN_TOPIC = id('Burn(address,int24,int24,uint128,uint256,uint256)');

export const DEFAULT_FEE_TIERS: readonly number[] = [100, 500, 3000, 10000];
/** The factory's enabled tiers on every Uniswap V3 deployment; other tiers are asked from the factory. */
const KNOWN_TICK_SPACING: ReadonlyMap<number, number> = new Map([
  [100, 1],
  [500, 10],
  [3000, 60],
  [10000, 200],
]);
/**
 * Tick bitmap words are cheap views (one SLOAD): more of them fit one eth_call than the default chunk. A full
 * read is hundreds of words per pool (694 at spacing 10), about 3 ms each on ganache.
 */
const BITMAP_CHUNK_SIZE = 500;

export interface UniswapV3SourceOptions {
  client: ChainClient;
  id: string;
  name: string;
  factory: string;
  multicall: string;
  feeTiers?: readonly number[];
  chunkSize?: number;
}

interface KnownPool {
  address: string;
  token0: string;
  token1: string;
  fee: number;
  tickSpacing: number;
}

/** A pool's head at the block its ticks are read at: what a complete tick set must agree with. */
interface LivePool {
  pool: KnownPool;
  tick: number;
  liquidity: bigint;
}

interface TickInfo extends V3Tick {
  initialized: boolean;
}

const abiCoder = AbiCoder.defaultAbiCoder();

/** The bitmap words (int16 word positions) that cover every usable tick of a pool with this spacing. */
export function bitmapWords(tickSpacing: number): number[] {
  // Usable ticks are the multiples of the spacing within [MIN_TICK, MAX_TICK]; word = compressed >> 8.
  const first = Math.floor(Math.ceil(MIN_TICK / tickSpacing) / 256);
  const last = Math.floor(Math.floor(MAX_TICK / tickSpacing) / 256);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** Tick indices of the set bits of one bitmap word. */
export function ticksOfWord(word: number, bits: bigint, tickSpacing: number): number[] {
  const out: number[] = [];
  for (let bit = 0; bits !== 0n; bit++, bits >>= 1n) {
    if (bits & 1n) out.push((word * 256 + bit) * tickSpacing);
  }
  return out;
}

/**
 * Whether a tick set can be the pool's whole set: every position adds +L at its lower tick and -L at its upper,
 * so the liquidityNet of all ticks sum to zero, and those at or below the current tick sum to the in-range
 * liquidity (the pool keeps `tick` below a tick it crossed downwards). A tick missing from the set breaks one of
 * the two unless its whole position is missing and lies out of range.
 */
export function ticksMatchLiquidity(ticks: readonly V3Tick[], tick: number, liquidity: bigint): boolean {
  let total = 0n;
  let inRange = 0n;
  for (const t of ticks) {
    total += t.liquidityNet;
    if (t.index <= tick) inRange += t.liquidityNet;
  }
  return total === 0n && inRange === liquidity;
}

/**
 * Uniswap V3 pools: discovery from factory.getPool over token pairs × fee tiers; each refresh reads slot0 and
 * liquidity of every pool, and the initialized ticks only of the pools whose tick set may have changed: the ticks
 * their Mint events name (one eth_getLogs), or, when the node will not serve the pools' whole log history or the
 * ticks found do not add up to the pool's liquidity, every bitmap word over the usable range (hundreds of views
 * a pool: fast on a production node, seconds on ganache). Either way liquidityNet is read from the pool.
 */
export class UniswapV3Source implements LiquiditySource {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly hopKind = HOP_KIND_V3;
  private readonly client: ChainClient;
  private readonly factory: string;
  private readonly multicallAddress: string;
  private readonly feeTiers: readonly number[];
  private readonly chunkSize?: number;
  private readonly pools = new Map<string, KnownPool>();
  /** Tick sets as read at `ticksBlock`, per pool address. */
  private ticks = new Map<string, readonly V3Tick[]>();
  private ticksBlock: number | undefined;
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(opts: UniswapV3SourceOptions) {
    this.client = opts.client;
    this.chainId = opts.client.chainId;
    this.id = opts.id;
    this.name = opts.name;
    this.factory = opts.factory.toLowerCase();
    this.multicallAddress = opts.multicall.toLowerCase();
    this.feeTiers = opts.feeTiers ?? DEFAULT_FEE_TIERS;
    this.chunkSize = opts.chunkSize;
  }

  async discover(tokens: readonly string[]): Promise<void> {
    const spacings = await this.tickSpacings();
    const candidates = tokenPairs(tokens).flatMap(([a, b]) =>
      this.feeTiers.filter((fee) => spacings.has(fee)).map((fee) => ({ a, b, fee })),
    );
    const found = await multicall(
      this.client,
      this.multicallAddress,
      candidates.map(({ a, b, fee }) => ({
        target: this.factory,
        callData: factoryInterface.encodeFunctionData('getPool', [a, b, fee]),
      })),
      { chunkSize: this.chunkSize },
    );
    const fresh: Array<{ address: string; a: string; b: string; fee: number }> = [];
    found.results.forEach((result, i) => {
      if (!result.success) return;
      const address = (
        factoryInterface.decodeFunctionResult('getPool', result.returnData)[0] as string
      ).toLowerCase();
      if (address !== ZeroAddress && !this.pools.has(address)) fresh.push({ address, ...candidates[i]! });
    });
    const token0s = await multicall(
      this.client,
      this.multicallAddress,
      fresh.map((p) => ({ target: p.address, callData: poolInterface.encodeFunctionData('token0') })),
      { chunkSize: this.chunkSize, blockTag: found.blockNumber },
    );
    token0s.results.forEach((result, i) => {
      if (!result.success) return;
      const { address, a, b, fee } = fresh[i]!;
      const token0 = (
        poolInterface.decodeFunctionResult('token0', result.returnData)[0] as string
      ).toLowerCase();
      if (token0 !== a && token0 !== b) return;
      this.pools.set(address, {
        address,
        token0,
        token1: token0 === a ? b : a,
        fee,
        tickSpacing: spacings.get(fee)!,
      });
    });
  }

  /**
   * Tick sets are re-read for a pool only on its first load, after reset(), when the refresh is behind the
   * last one (a replay of older blocks), or when a Mint or Burn of the pool was logged since the last refresh:
   * those are the only events that change initialized ticks or liquidityNet (swaps cross ticks, which moves
   * slot0 and liquidity, read every time, but leaves liquidityNet as it is). Costs one eth_getLogs a refresh.
   */
  async refresh(blockNumber: number): Promise<void> {
    const pools = [...this.pools.values()];
    const [heads, changed] = await Promise.all([
      multicall(
        this.client,
        this.multicallAddress,
        pools.flatMap((p) => [
          { target: p.address, callData: poolInterface.encodeFunctionData('slot0') },
          { target: p.address, callData: poolInterface.encodeFunctionData('liquidity') },
        ]),
        { chunkSize: this.chunkSize, blockTag: blockNumber },
      ),
      this.poolsWithLiquidityEvents(pools, blockNumber),
    ]);
    const live: Array<LivePool & { sqrtPriceX96: bigint }> = [];
    pools.forEach((pool, i) => {
      const slot0 = heads.results[2 * i]!;
      const liquidity = heads.results[2 * i + 1]!;
      // Not deployed at that block (refresh behind discovery) or not initialized: nothing to quote.
      if (!slot0.success || !liquidity.success) return;
      const [sqrtPriceX96, tick] = poolInterface.decodeFunctionResult(
        'slot0',
        slot0.returnData,
      ) as unknown as [bigint, bigint];
      if (sqrtPriceX96 === 0n) return;
      live.push({
        pool,
        sqrtPriceX96,
        tick: Number(tick),
        liquidity: poolInterface.decodeFunctionResult('liquidity', liquidity.returnData)[0] as bigint,
      });
    });
    const stale = live.filter(
      ({ pool: p }) => changed === undefined || changed.has(p.address) || !this.ticks.has(p.address),
    );
    const reloaded = await this.readTicks(stale, blockNumber);
    const ticks = new Map(this.ticks);
    for (const [address, poolTicks] of reloaded) ticks.set(address, poolTicks);

    const states: V3PoolState[] = live.map(({ pool, sqrtPriceX96, tick, liquidity }) => ({
      kind: 'v3',
      sourceId: this.id,
      ...pool,
      sqrtPriceX96,
      tick,
      liquidity,
      ticks: ticks.get(pool.address) ?? [],
    }));
    this.ticks = ticks;
    this.ticksBlock = blockNumber;
    this.current = { blockNumber: heads.blockNumber, pools: states };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    this.ticks = new Map();
    this.ticksBlock = undefined;
  }

  /** Spacing per configured fee tier; a tier the factory has not enabled (spacing 0) is left out. */
  private async tickSpacings(): Promise<Map<number, number>> {
    const spacings = new Map<number, number>();
    const unknown = this.feeTiers.filter((fee) => {
      const known = KNOWN_TICK_SPACING.get(fee);
      if (known !== undefined) spacings.set(fee, known);
      return known === undefined;
    });
    if (unknown.length === 0) return spacings;
    const response = await multicall(
      this.client,
      this.multicallAddress,
      unknown.map((fee) => ({
        target: this.factory,
        callData: factoryInterface.encodeFunctionData('feeAmountTickSpacing', [fee]),
      })),
    );
    response.results.forEach((result, i) => {
      if (!result.success) return;
      const spacing = Number(
        factoryInterface.decodeFunctionResult('feeAmountTickSpacing', result.returnData)[0],
      );
      if (spacing > 0) spacings.set(unknown[i]!, spacing);
    });
    return spacings;
  }

  /**
   * Addresses of the pools with a Mint or Burn in (last refresh, blockNumber]; undefined when every pool must
   * be re-read (no earlier refresh, or this one is behind it).
   */
  private async poolsWithLiquidityEvents(
    pools: readonly KnownPool[],
    blockNumber: number,
  ): Promise<Set<string> | undefined> {
    if (this.ticksBlock === undefined || blockNumber < this.ticksBlock) return undefined;
    // Same block again: nothing can have changed (a reorg goes through reset()).
    if (pools.length === 0 || blockNumber === this.ticksBlock) return new Set();
    const logs = (await this.client
      .send('eth_getLogs', [
        {
          address: pools.map((p) => p.address),
          topics: [[MINT_TOPIC, BURN_TOPIC]],
          fromBlock: toQuantity(this.ticksBlock + 1),
          toBlock: toQuantity(blockNumber),
        },
      ])
      // A node refusing the range (providers cap eth_getLogs spans): read every tick set instead.
      .catch(() => undefined)) as Array<{ address: string }> | undefined;
    if (logs === undefined) return undefined;
    return new Set(logs.map((log) => log.address.toLowerCase()));
  }

  /** Every initialized tick of each pool at the block, sorted: from its Mint events, else by bitmap scan. */
  private async readTicks(pools: readonly LivePool[], blockNumber: number): Promise<Map<string, V3Tick[]>> {
    const out = new Map<string, V3Tick[]>();
    if (pools.length === 0) return out;
    let scan = pools.map((p) => p.pool);
    const minted = await this.mintedTicks(scan, blockNumber);
    if (minted) {
      const infos = await this.tickInfos(
        pools.flatMap(({ pool }) =>
          [...minted.get(pool.address)!].sort((a, b) => a - b).map((index) => ({ pool, index })),
        ),
        blockNumber,
      );
      scan = [];
      for (const { pool, tick, liquidity } of pools) {
        const ticks = (infos.get(pool.address) ?? [])
          .filter((t) => t.initialized)
          .map(({ index, liquidityNet }) => ({ index, liquidityNet }));
        if (ticksMatchLiquidity(ticks, tick, liquidity)) out.set(pool.address, ticks);
        else scan.push(pool);
      }
    }
    for (const [address, ticks] of await this.scanBitmaps(scan, blockNumber)) out.set(address, ticks);
    return out;
  }

  /**
   * The tickLower and tickUpper of every Mint of each pool up to the block; undefined when the node refuses the
   * range (providers cap eth_getLogs spans and result sizes) or answers something else than a log list.
   */
  private async mintedTicks(
    pools: readonly KnownPool[],
    blockNumber: number,
  ): Promise<Map<string, Set<number>> | undefined> {
    const logs = (await this.client
      .send('eth_getLogs', [
        {
          address: pools.map((p) => p.address),
          topics: [MINT_TOPIC],
          fromBlock: '0x0',
          toBlock: toQuantity(blockNumber),
        },
      ])
      .catch(() => undefined)) as Array<{ address: string; topics: string[] }> | undefined;
    if (!Array.isArray(logs)) return undefined;
    const out = new Map(pools.map((p) => [p.address, new Set<number>()]));
    for (const log of logs) {
      const ticks = out.get(log.address.toLowerCase());
      if (!ticks || log.topics.length < 4) continue;
      for (const topic of log.topics.slice(2, 4)) ticks.add(Number(abiCoder.decode(['int24'], topic)[0]));
    }
    return out;
  }

  /** Every tick whose bitmap bit is set: bitmap words over the pool's usable range, then ticks(index). */
  private async scanBitmaps(
    pools: readonly KnownPool[],
    blockNumber: number,
  ): Promise<Map<string, V3Tick[]>> {
    const wordCalls: Array<{ pool: KnownPool; word: number }> = pools.flatMap((pool) =>
      bitmapWords(pool.tickSpacing).map((word) => ({ pool, word })),
    );
    const words = await sequentialMulticall(
      this.client,
      this.multicallAddress,
      wordCalls.map(({ pool, word }) => ({
        target: pool.address,
        callData: poolInterface.encodeFunctionData('tickBitmap', [word]),
      })),
      BITMAP_CHUNK_SIZE,
      blockNumber,
    );
    const tickCalls: Array<{ pool: KnownPool; index: number }> = [];
    words.results.forEach((result, i) => {
      const { pool, word } = wordCalls[i]!;
      if (!result.success)
        throw new Error(`tickBitmap(${word}) of pool ${pool.address} failed at block ${blockNumber}`);
      const bits = poolInterface.decodeFunctionResult('tickBitmap', result.returnData)[0] as bigint;
      for (const index of ticksOfWord(word, bits, pool.tickSpacing)) tickCalls.push({ pool, index });
    });
    const infos = await this.tickInfos(tickCalls, blockNumber);
    // Words were read in ascending order and bits ascending within a word: ticks are already sorted.
    return new Map(
      pools.map((p) => [
        p.address,
        (infos.get(p.address) ?? []).map(({ index, liquidityNet }) => ({ index, liquidityNet })),
      ]),
    );
  }

  /** ticks(index) of each (pool, index), in the order asked, grouped per pool. */
  private async tickInfos(
    tickCalls: ReadonlyArray<{ pool: KnownPool; index: number }>,
    blockNumber: number,
  ): Promise<Map<string, TickInfo[]>> {
    const out = new Map<string, TickInfo[]>(tickCalls.map(({ pool }) => [pool.address, []]));
    const calls: MulticallCall[] = tickCalls.map(({ pool, index }) => ({
      target: pool.address,
      callData: poolInterface.encodeFunctionData('ticks', [index]),
    }));
    const infos = await multicall(this.client, this.multicallAddress, calls, {
      chunkSize: this.chunkSize,
      blockTag: blockNumber,
    });
    infos.results.forEach((result, i) => {
      const { pool, index } = tickCalls[i]!;
      if (!result.success)
        throw new Error(`ticks(${index}) of pool ${pool.address} failed at block ${blockNumber}`);
      const info = poolInterface.decodeFunctionResult('ticks', result.returnData);
      out.get(pool.address)!.push({
        index,
        liquidityNet: info[1] as bigint,
        initialized: info[7] as boolean,
      });
    });
    return out;
  }
}

/**
 * multicall with its chunks sent one after the other instead of in parallel: a node that runs eth_calls one at
 * a time (ganache) would queue parallel chunks, and the queued ones would hit the client's per-request timeout.
 */
async function sequentialMulticall(
  client: ChainClient,
  multicallAddress: string,
  calls: readonly MulticallCall[],
  chunkSize: number,
  blockNumber: number,
): Promise<MulticallResponse> {
  const results: MulticallResponse['results'] = [];
  for (let i = 0; i < calls.length; i += chunkSize) {
    const response = await multicall(client, multicallAddress, calls.slice(i, i + chunkSize), {
      chunkSize,
      blockTag: blockNumber,
    });
    results.push(...response.results);
  }
  return { blockNumber, results };
}
