import { Interface } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall } from '../../chain/multicall';
import type { V2PoolState } from '../pools/pool-state';
import {
  HOP_KIND_V2,
  NEVER_REFRESHED,
  type HOP_KIND_SUSHISWAP_V2,
  type LiquiditySource,
  type SourceSnapshot,
} from './liquidity-source';
import { findFactoryPairs } from './factory-pairs';
import { tokenPairs } from './token-pairs';

const factoryInterface = new Interface(['function getPair(address, address) view returns (address)']);
const pairInterface = new Interface([
  'function token0() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

export interface UniswapV2SourceOptions {
  client: ChainClient;
  id: string;
  name: string;
  factory: string;
  multicall: string;
  /** Swap fee of the fork in basis points: 30 for Uniswap V2 itself. */
  feeBps?: bigint;
  /**
   * Which factory our contracts look the pairs up in (HOP_KIND_V2 by default); a fork's pools carry it so the
   * swap builder encodes their hops for that factory.
   */
  hopKind?: V2HopKind;
  chunkSize?: number;
}

export type V2HopKind = typeof HOP_KIND_V2 | typeof HOP_KIND_SUSHISWAP_V2;

interface KnownPair {
  address: string;
  token0: string;
  token1: string;
}

/** Uniswap V2 and its forks: pairs from factory.getPair, state from getReserves, all through multicall. */
export class UniswapV2Source implements LiquiditySource {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly hopKind: V2HopKind;
  private readonly client: ChainClient;
  private readonly factory: string;
  private readonly multicallAddress: string;
  private readonly feeBps: bigint;
  private readonly chunkSize?: number;
  private readonly pairs = new Map<string, KnownPair>();
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(opts: UniswapV2SourceOptions) {
    this.client = opts.client;
    this.chainId = opts.client.chainId;
    this.id = opts.id;
    this.name = opts.name;
    this.factory = opts.factory.toLowerCase();
    this.multicallAddress = opts.multicall.toLowerCase();
    this.feeBps = opts.feeBps ?? 30n;
    this.hopKind = opts.hopKind ?? HOP_KIND_V2;
    this.chunkSize = opts.chunkSize;
  }

  async discover(tokens: readonly string[]): Promise<void> {
    const { blockNumber, fresh } = await findFactoryPairs({
      client: this.client,
      multicall: this.multicallAddress,
      chunkSize: this.chunkSize,
      factory: this.factory,
      factoryInterface,
      method: 'getPair',
      pairs: tokenPairs(tokens),
      isKnown: (address) => this.pairs.has(address),
    });
    // Read at the block getPair was read at: the pairs exist there.
    const token0s = await multicall(
      this.client,
      this.multicallAddress,
      fresh.map((p) => ({ target: p.address, callData: pairInterface.encodeFunctionData('token0') })),
      { chunkSize: this.chunkSize, blockTag: blockNumber },
    );
    token0s.results.forEach((result, i) => {
      if (!result.success) return;
      const { address, pair } = fresh[i]!;
      const token0 = (
        pairInterface.decodeFunctionResult('token0', result.returnData)[0] as string
      ).toLowerCase();
      if (token0 !== pair[0] && token0 !== pair[1]) return;
      this.pairs.set(address, { address, token0, token1: token0 === pair[0] ? pair[1] : pair[0] });
    });
  }

  async refresh(blockNumber: number): Promise<void> {
    const pairs = [...this.pairs.values()];
    const response = await multicall(
      this.client,
      this.multicallAddress,
      pairs.map((p) => ({ target: p.address, callData: pairInterface.encodeFunctionData('getReserves') })),
      { chunkSize: this.chunkSize, blockTag: blockNumber },
    );
    const pools: V2PoolState[] = [];
    response.results.forEach((result, i) => {
      // A pair that fails here did not exist at that block (a refresh behind discovery): leave it out.
      if (!result.success) return;
      const [reserve0, reserve1] = pairInterface.decodeFunctionResult(
        'getReserves',
        result.returnData,
      ) as unknown as [bigint, bigint];
      const pair = pairs[i]!;
      const pool: V2PoolState = {
        kind: 'v2',
        sourceId: this.id,
        ...pair,
        reserve0,
        reserve1,
        feeBps: this.feeBps,
      };
      // Uniswap V2's own pools leave it out: the pool state's default.
      if (this.hopKind !== HOP_KIND_V2) pool.hopKind = this.hopKind;
      pools.push(pool);
    });
    this.current = { blockNumber: response.blockNumber, pools };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    // Nothing is carried from one refresh to the next: every refresh reads all reserves.
  }
}
