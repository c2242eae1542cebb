import { stableSwapInvariant } from '../math/stable-swap-math';
import { Interface } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall, type MulticallResult } from '../../chain/multicall';
import type { StablePoolState } from '../pools/pool-state';
import {
  HOP_KIND_STABLE_SWAP,
  NEVER_REFRESHED,
  type LiquiditySource,
  type SourceSnapshot,
} from './liquidity-source';
import { findFactoryPairs } from './factory-pairs';
import { tokenPairs } from './token-pairs';

export const STABLE_SWAP_ID = 'stableswap';
export const STABLE_SWAP_NAME = 'TAS StableSwap';

export const stableSwapFactoryInterface = new Interface([
  'function getPool(address tokenA, address tokenB) view returns (address)',
]);
export const stableSwapPoolInterface = new Interface([
  'function coins(uint256 i) view returns (address)',
  'function balances(uint256 i) view returns (uint256)',
  'function A() view returns (uint256)',
  'function fee() view returns (uint256)',
  'function rates(uint256 i) view returns (uint256)',
]);

export interface StableSwapSourceOptions {
  client: ChainClient;
  /** Our StableSwapFactory (one pool per token pair, coins sorted). */
  factory: string;
  multicall: string;
  id?: string;
  name?: string;
  chunkSize?: number;
}

/** What never changes about a pool: its coins and their rates. */
export interface StablePoolInfo {
  address: string;
  token0: string;
  token1: string;
  rate0: bigint;
  rate1: bigint;
}

/**
 * The pool's state from its refresh results (balances(0), balances(1), A(), fee()); undefined when one failed
 * (no pool at that block).
 */
export function stablePoolState(
  sourceId: string,
  pool: StablePoolInfo,
  results: readonly MulticallResult[],
): StablePoolState | undefined {
  if (results.length !== 4 || results.some((r) => !r.success)) return undefined;
  const [balance0, balance1, amp, fee] = results.map(
    (r, i) =>
      stableSwapPoolInterface.decodeFunctionResult(
        (['balances', 'balances', 'A', 'fee'] as const)[i]!,
        r.returnData,
      )[0] as bigint,
  ) as [bigint, bigint, bigint, bigint];
  const state: StablePoolState = { kind: 'stable', sourceId, ...pool, balance0, balance1, amp, fee };
  // D once per block: every quote of the block prices its swaps from these balances.
  const invariant = stableSwapInvariant(state);
  return invariant === undefined ? state : { ...state, invariant };
}

/**
 * Two-coin pools of our StableSwapFactory (contracts-abi/src/StableSwapPool.sol): discovery asks
 * factory.getPool for every token pair, then each new pool's coins (checked against the pair) and rates; a
 * refresh reads balances, A and fee of every pool at the block.
 */
export class StableSwapSource implements LiquiditySource {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly hopKind = HOP_KIND_STABLE_SWAP;
  private readonly client: ChainClient;
  private readonly factory: string;
  private readonly multicallAddress: string;
  private readonly chunkSize?: number;
  private readonly pools = new Map<string, StablePoolInfo>();
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(opts: StableSwapSourceOptions) {
    this.client = opts.client;
    this.chainId = opts.client.chainId;
    this.id = opts.id ?? STABLE_SWAP_ID;
    this.name = opts.name ?? STABLE_SWAP_NAME;
    this.factory = opts.factory.toLowerCase();
    this.multicallAddress = opts.multicall.toLowerCase();
    this.chunkSize = opts.chunkSize;
  }

  async discover(tokens: readonly string[]): Promise<void> {
    const { blockNumber, fresh } = await findFactoryPairs({
      client: this.client,
      multicall: this.multicallAddress,
      chunkSize: this.chunkSize,
      factory: this.factory,
      factoryInterface: stableSwapFactoryInterface,
      method: 'getPool',
      pairs: tokenPairs(tokens),
      isKnown: (address) => this.pools.has(address),
    });
    if (fresh.length === 0) return;
    // The pool's own rates (10^(18 − decimals) of each coin, fixed at its creation): what its math multiplies by.
    const response = await multicall(
      this.client,
      this.multicallAddress,
      fresh.flatMap(({ address }) => [
        { target: address, callData: stableSwapPoolInterface.encodeFunctionData('coins', [0]) },
        { target: address, callData: stableSwapPoolInterface.encodeFunctionData('coins', [1]) },
        { target: address, callData: stableSwapPoolInterface.encodeFunctionData('rates', [0]) },
        { target: address, callData: stableSwapPoolInterface.encodeFunctionData('rates', [1]) },
      ]),
      { chunkSize: this.chunkSize, blockTag: blockNumber },
    );
    fresh.forEach(({ address, pair }, i) => {
      const info = stablePoolInfo(address, pair, response.results.slice(4 * i, 4 * i + 4));
      if (info) this.pools.set(address, info);
    });
  }

  async refresh(blockNumber: number): Promise<void> {
    const pools = [...this.pools.values()];
    const response = await multicall(
      this.client,
      this.multicallAddress,
      pools.flatMap((p) => [
        { target: p.address, callData: stableSwapPoolInterface.encodeFunctionData('balances', [0]) },
        { target: p.address, callData: stableSwapPoolInterface.encodeFunctionData('balances', [1]) },
        { target: p.address, callData: stableSwapPoolInterface.encodeFunctionData('A') },
        { target: p.address, callData: stableSwapPoolInterface.encodeFunctionData('fee') },
      ]),
      { chunkSize: this.chunkSize, blockTag: blockNumber },
    );
    const states: StablePoolState[] = [];
    pools.forEach((pool, i) => {
      const state = stablePoolState(this.id, pool, response.results.slice(4 * i, 4 * i + 4));
      if (state) states.push(state);
    });
    this.current = { blockNumber: response.blockNumber, pools: states };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    // Nothing is carried from one refresh to the next.
  }
}

/**
 * A pool's coins and rates from coins(0), coins(1), rates(0) and rates(1); undefined when a call failed or the
 * coins are not the (sorted) pair the factory was asked about.
 */
export function stablePoolInfo(
  address: string,
  pair: readonly [string, string],
  results: readonly MulticallResult[],
): StablePoolInfo | undefined {
  if (results.length !== 4 || results.some((r) => !r.success)) return undefined;
  const [coin0, coin1] = results
    .slice(0, 2)
    .map((r) =>
      (stableSwapPoolInterface.decodeFunctionResult('coins', r.returnData)[0] as string).toLowerCase(),
    ) as [string, string];
  const [rate0, rate1] = results
    .slice(2)
    .map((r) => stableSwapPoolInterface.decodeFunctionResult('rates', r.returnData)[0] as bigint) as [
    bigint,
    bigint,
  ];
  if (coin0 !== pair[0] || coin1 !== pair[1] || rate0 <= 0n || rate1 <= 0n) return undefined;
  return { address: address.toLowerCase(), token0: coin0, token1: coin1, rate0, rate1 };
}
