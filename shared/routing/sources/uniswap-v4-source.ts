import { Interface, toQuantity } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall, type MulticallCall } from '../../chain/multicall';
import type { V3Tick } from '../math/v3-swap';
import type { V4PoolState } from '../pools/pool-state';
import { HOP_KIND_V4, NEVER_REFRESHED, type LiquiditySource, type SourceSnapshot } from './liquidity-source';
import { tokenPairs } from './token-pairs';
import { bitmapWords, ticksMatchLiquidity, ticksOfWord } from './uniswap-v3-source';
import {
  MODIFY_LIQUIDITY_TOPIC,
  modifiedTicks,
  patchTicks,
  type LiquidityLog,
  type TickRead,
} from './uniswap-v4-tick-sets';
import {
  decodeLiquidity,
  decodeSlot0,
  decodeTickLiquidity,
  liquiditySlot,
  poolStateSlot,
  slot0Slot,
  tickBitmapSlot,
  tickInfoSlot,
  v4PoolId,
} from './uniswap-v4-storage';

export const UNISWAP_V4_ID = 'uniswap-v4';
export const UNISWAP_V4_NAME = 'Uniswap V4';

/** (fee in pips, tick spacing): the V3 tiers, the pairs most V4 pools use. */
export const DEFAULT_V4_POOL_PARAMS: ReadonlyArray<readonly [number, number]> = [
  [100, 1],
  [500, 10],
  [3000, 60],
  [10000, 200],
];

const managerInterface = new Interface([
  'function extsload(bytes32[] slots) view returns (bytes32[] values)',
]);

/**
 * Storage slots per extsload call: a cold SLOAD costs 2,100 gas, so 250 of them stay well under the multicall's
 * per-call gas limit (1M); and 12 such calls per eth_call (about 7M gas) under any node's eth_call gas cap.
 */
const SLOTS_PER_CALL = 250;
const CALLS_PER_CHUNK = 12;
const EXTSLOAD_GAS = 1_000_000n;

export interface UniswapV4SourceOptions {
  client: ChainClient;
  /** The PoolManager singleton. */
  poolManager: string;
  multicall: string;
  id?: string;
  name?: string;
  /** The (fee, tickSpacing) of the hooks-free pools looked for between each token pair. */
  poolParams?: ReadonlyArray<readonly [number, number]>;
}

/** A pool's head at the refresh block: what its tick set must agree with. */
interface LivePool {
  pool: KnownPool;
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
}

interface KnownPool {
  /** The PoolId. */
  address: string;
  token0: string;
  token1: string;
  fee: number;
  tickSpacing: number;
  stateSlot: bigint;
}

/**
 * Hooks-free Uniswap V4 pools of one PoolManager. Discovery computes the PoolId of every token pair × (fee, tick
 * spacing) with no hooks and keeps those whose slot0 is set; a refresh reads slot0 and liquidity of every pool and
 * keeps each pool's initialized ticks current from its ModifyLiquidity logs (one eth_getLogs a refresh): the
 * ticks they name are re-read, or the whole bitmap is scanned when the logs are refused or do not add up. All
 * state comes from the manager's storage through batched extsload calls at the refresh block.
 */
export class UniswapV4Source implements LiquiditySource {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly hopKind = HOP_KIND_V4;
  private readonly client: ChainClient;
  private readonly manager: string;
  private readonly multicallAddress: string;
  private readonly poolParams: ReadonlyArray<readonly [number, number]>;
  private readonly pools = new Map<string, KnownPool>();
  /** Tick sets as read at `ticksBlock`, per PoolId. */
  private ticks = new Map<string, readonly V3Tick[]>();
  private ticksBlock: number | undefined;
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(opts: UniswapV4SourceOptions) {
    this.client = opts.client;
    this.chainId = opts.client.chainId;
    this.id = opts.id ?? UNISWAP_V4_ID;
    this.name = opts.name ?? UNISWAP_V4_NAME;
    this.manager = opts.poolManager.toLowerCase();
    this.multicallAddress = opts.multicall.toLowerCase();
    this.poolParams = opts.poolParams ?? DEFAULT_V4_POOL_PARAMS;
  }

  async discover(tokens: readonly string[]): Promise<void> {
    const candidates: KnownPool[] = tokenPairs(tokens).flatMap(([token0, token1]) =>
      this.poolParams.map(([fee, tickSpacing]) => {
        const address = v4PoolId({ currency0: token0, currency1: token1, fee, tickSpacing });
        return { address, token0, token1, fee, tickSpacing, stateSlot: poolStateSlot(address) };
      }),
    );
    const fresh = candidates.filter((p) => !this.pools.has(p.address));
    const words = await this.readSlots(
      fresh.map((p) => slot0Slot(p.stateSlot)),
      'latest',
    );
    fresh.forEach((pool, i) => {
      // Uninitialized pools read as zero: PoolManager.initialize sets a non-zero price.
      if (decodeSlot0(words[i]!).sqrtPriceX96 !== 0n) this.pools.set(pool.address, pool);
    });
  }

  async refresh(blockNumber: number): Promise<void> {
    const pools = [...this.pools.values()];
    const [heads, changes] = await Promise.all([
      this.readSlots(
        pools.flatMap((p) => [slot0Slot(p.stateSlot), liquiditySlot(p.stateSlot)]),
        blockNumber,
      ),
      this.liquidityChanges(pools, blockNumber),
    ]);
    const live: LivePool[] = [];
    pools.forEach((pool, i) => {
      const slot0 = decodeSlot0(heads[2 * i]!);
      // Not initialized yet at that block (a refresh behind discovery). A protocol fee makes the swap fee differ
      // from the LP fee the hop names (the manager's fee controller sets it): such a pool cannot be quoted exactly
      // with its PoolKey fee, so it is left out rather than mispriced.
      if (slot0.sqrtPriceX96 === 0n || slot0.protocolFee !== 0 || slot0.lpFee !== pool.fee) return;
      live.push({
        pool,
        sqrtPriceX96: slot0.sqrtPriceX96,
        tick: slot0.tick,
        liquidity: decodeLiquidity(heads[2 * i + 1]!),
      });
    });
    const ticks = await this.tickSets(live, changes, blockNumber);

    const states: V4PoolState[] = live.map(({ pool, sqrtPriceX96, tick, liquidity }) => ({
      kind: 'v4',
      sourceId: this.id,
      address: pool.address,
      token0: pool.token0,
      token1: pool.token1,
      fee: pool.fee,
      tickSpacing: pool.tickSpacing,
      sqrtPriceX96,
      tick,
      liquidity,
      ticks: ticks.get(pool.address)!,
    }));
    // Only the live pools' sets are kept: one left out now may change unseen before it is live again.
    this.ticks = ticks;
    this.ticksBlock = blockNumber;
    this.current = { blockNumber, pools: states };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    this.ticks = new Map();
    this.ticksBlock = undefined;
  }

  /**
   * Each live pool's tick set at the block. A known set with no ModifyLiquidity since is carried over; one with
   * logs gets the ticks they name re-read; a pool seen for the first time (or after reset()) gets the ticks of its
   * whole ModifyLiquidity history read. A set that then does not add up to the pool's liquidity (a log missing
   * from the node's answer), or whose logs the node refused, is read by scanning the bitmap instead.
   */
  private async tickSets(
    live: readonly LivePool[],
    changes: Map<string, Set<number>> | undefined,
    blockNumber: number,
  ): Promise<Map<string, readonly V3Tick[]>> {
    const out = new Map<string, readonly V3Tick[]>();
    const patched: LivePool[] = [];
    const unknown: LivePool[] = [];
    for (const p of live) {
      const known = changes && this.ticks.get(p.pool.address);
      if (!known) unknown.push(p);
      else if (changes.has(p.pool.address)) patched.push(p);
      else out.set(p.pool.address, known);
    }
    const history =
      unknown.length > 0 ? await this.history(unknown, blockNumber) : new Map<string, Set<number>>();
    const reads: Array<{ pool: LivePool; index: number }> = [
      ...patched.flatMap((p) => [...changes!.get(p.pool.address)!].map((index) => ({ pool: p, index }))),
      ...unknown.flatMap((p) =>
        [...(history?.get(p.pool.address) ?? [])].map((index) => ({ pool: p, index })),
      ),
    ];
    const words = await this.readSlots(
      reads.map(({ pool, index }) => tickInfoSlot(pool.pool.stateSlot, index)),
      blockNumber,
    );
    const readsOf = new Map<LivePool, TickRead[]>();
    reads.forEach(({ pool, index }, i) => {
      const list = readsOf.get(pool) ?? [];
      list.push({ index, ...decodeTickLiquidity(words[i]!) });
      readsOf.set(pool, list);
    });
    const scan: KnownPool[] = [];
    for (const p of [...patched, ...unknown]) {
      const fromLogs = patched.includes(p) || history !== undefined;
      const ticks = patchTicks(
        patched.includes(p) ? this.ticks.get(p.pool.address)! : [],
        readsOf.get(p) ?? [],
      );
      if (fromLogs && ticksMatchLiquidity(ticks, p.tick, p.liquidity)) out.set(p.pool.address, ticks);
      else scan.push(p.pool);
    }
    for (const [poolId, ticks] of await this.scanTicks(scan, blockNumber)) out.set(poolId, ticks);
    return out;
  }

  /**
   * The ticks each pool's ModifyLiquidity logs named in (last refresh, blockNumber]; undefined when every tick set
   * must be read afresh (no earlier refresh, this one is behind it, or the node refused the range).
   */
  private async liquidityChanges(
    pools: readonly KnownPool[],
    blockNumber: number,
  ): Promise<Map<string, Set<number>> | undefined> {
    if (this.ticksBlock === undefined || blockNumber < this.ticksBlock) return undefined;
    if (pools.length === 0 || blockNumber === this.ticksBlock) return new Map();
    return this.modifyLiquidityLogs(pools, this.ticksBlock + 1, blockNumber);
  }

  /** The ticks of every ModifyLiquidity of the pools up to the block; undefined when the node refuses the range. */
  private history(
    pools: readonly LivePool[],
    blockNumber: number,
  ): Promise<Map<string, Set<number>> | undefined> {
    return this.modifyLiquidityLogs(
      pools.map((p) => p.pool),
      0,
      blockNumber,
    );
  }

  private async modifyLiquidityLogs(
    pools: readonly KnownPool[],
    fromBlock: number,
    toBlock: number,
  ): Promise<Map<string, Set<number>> | undefined> {
    const logs = (await this.client
      .send('eth_getLogs', [
        {
          address: this.manager,
          topics: [MODIFY_LIQUIDITY_TOPIC, pools.map((p) => p.address)],
          fromBlock: toQuantity(fromBlock),
          toBlock: toQuantity(toBlock),
        },
      ])
      // Providers cap eth_getLogs spans and result sizes: the bitmap is the fallback.
      .catch(() => undefined)) as LiquidityLog[] | undefined;
    return Array.isArray(logs) ? modifiedTicks(logs) : undefined;
  }

  /** Every initialized tick of each pool at the block, sorted: every bitmap word, then the set ticks' info. */
  private async scanTicks(pools: readonly KnownPool[], blockNumber: number): Promise<Map<string, V3Tick[]>> {
    const wordReads = pools.flatMap((pool) => bitmapWords(pool.tickSpacing).map((word) => ({ pool, word })));
    const words = await this.readSlots(
      wordReads.map(({ pool, word }) => tickBitmapSlot(pool.stateSlot, word)),
      blockNumber,
    );
    const tickReads: Array<{ pool: KnownPool; index: number }> = [];
    words.forEach((bits, i) => {
      const { pool, word } = wordReads[i]!;
      for (const index of ticksOfWord(word, bits, pool.tickSpacing)) tickReads.push({ pool, index });
    });
    const infos = await this.readSlots(
      tickReads.map(({ pool, index }) => tickInfoSlot(pool.stateSlot, index)),
      blockNumber,
    );
    const out = new Map<string, V3Tick[]>(pools.map((p) => [p.address, []]));
    // Words ascend and bits ascend within a word: each pool's ticks come out sorted.
    infos.forEach((word, i) => {
      const { pool, index } = tickReads[i]!;
      const { liquidityGross, liquidityNet } = decodeTickLiquidity(word);
      // A set bit always has liquidity referencing it; a clear gross means a bitmap read from another block.
      if (liquidityGross === 0n)
        throw new Error(
          `tick ${index} of V4 pool ${pool.address} is flagged but empty at block ${blockNumber}`,
        );
      out.get(pool.address)!.push({ index, liquidityNet });
    });
    return out;
  }

  /** The words at `slots` of the manager's storage, in order, through batched extsload calls at one block. */
  private async readSlots(slots: readonly string[], blockTag: number | 'latest'): Promise<bigint[]> {
    const calls: MulticallCall[] = [];
    for (let i = 0; i < slots.length; i += SLOTS_PER_CALL) {
      calls.push({
        target: this.manager,
        callData: managerInterface.encodeFunctionData('extsload', [slots.slice(i, i + SLOTS_PER_CALL)]),
        gasLimit: EXTSLOAD_GAS,
      });
    }
    if (calls.length === 0) return [];
    const response = await multicall(this.client, this.multicallAddress, calls, {
      chunkSize: CALLS_PER_CHUNK,
      blockTag,
    });
    return response.results.flatMap((result, i) => {
      if (!result.success)
        throw new Error(
          `extsload on the V4 PoolManager ${this.manager} failed (call ${i}) at block ${blockTag}`,
        );
      const [values] = managerInterface.decodeFunctionResult('extsload', result.returnData) as unknown as [
        string[],
      ];
      return values.map((v) => BigInt(v));
    });
  }
}
