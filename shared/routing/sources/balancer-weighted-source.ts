import { Interface, id, toQuantity } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall, type MulticallCall, type MulticallResult } from '../../chain/multicall';
import type { WeightedPoolState } from '../pools/pool-state';
import {
  HOP_KIND_BALANCER_WEIGHTED,
  NEVER_REFRESHED,
  type LiquiditySource,
  type SourceSnapshot,
} from './liquidity-source';

export const BALANCER_V2_ID = 'balancer-v2';
export const BALANCER_V2_NAME = 'Balancer V2';

/** Blocks per eth_getLogs of the factory's PoolCreated events: within common providers' range caps. */
export const DEFAULT_LOG_BLOCK_RANGE = 50_000;

const POOL_CREATED_TOPIC = id('PoolCreated(address)');
const ONE = 10n ** 18n;

export const vaultInterface = new Interface([
  'function getPoolTokens(bytes32 poolId) view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock)',
  'function getPausedState() view returns (bool paused, uint256 pauseWindowEndTime, uint256 bufferPeriodEndTime)',
]);
export const weightedPoolInterface = new Interface([
  'function getPoolId() view returns (bytes32)',
  'function getNormalizedWeights() view returns (uint256[])',
  'function getSwapFeePercentage() view returns (uint256)',
  'function getPausedState() view returns (bool paused, uint256 pauseWindowEndTime, uint256 bufferPeriodEndTime)',
  'function getScalingFactors() view returns (uint256[])',
]);
const erc20Interface = new Interface(['function decimals() view returns (uint8)']);

export interface BalancerWeightedSourceOptions {
  client: ChainClient;
  vault: string;
  /** The WeightedPoolFactory whose pools are quoted (our contracts accept only its pools in a hop). */
  weightedPoolFactory: string;
  multicall: string;
  /** First block scanned for the factory's PoolCreated logs: its deployment block on a real chain. */
  fromBlock?: number;
  logBlockRange?: number;
  id?: string;
  name?: string;
  chunkSize?: number;
}

/** What never changes about a pool: read once when its PoolCreated log is first seen. */
export interface WeightedPoolInfo {
  address: string;
  poolId: string;
  token0: string;
  token1: string;
  weight0: bigint;
  weight1: bigint;
  /** From token decimals: what the pool scales by when it has no rate providers. */
  scalingFactor0: bigint;
  scalingFactor1: bigint;
}

/** 1e18 · 10^(18 − decimals), as BasePool computes a token's scaling factor. */
export function scalingFactorOf(decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 18)
    throw new RangeError(`Balancer pools support tokens of 0..18 decimals, not ${decimals}`);
  return ONE * 10n ** BigInt(18 - decimals);
}

/**
 * The two-token pool of a getPoolTokens answer and its weights, or undefined for a pool of more tokens (the
 * router's hop is two-token only), mismatched weights or an unsupported token.
 */
export function twoTokenPool(
  address: string,
  poolId: string,
  tokens: readonly string[],
  weights: readonly bigint[],
  decimals: ReadonlyMap<string, number>,
): WeightedPoolInfo | undefined {
  if (tokens.length !== 2 || weights.length !== 2) return undefined;
  const [token0, token1] = tokens.map((t) => t.toLowerCase()) as [string, string];
  const [d0, d1] = [decimals.get(token0), decimals.get(token1)];
  if (d0 === undefined || d1 === undefined || d0 > 18 || d1 > 18) return undefined;
  // Pool tokens are registered sorted, as pool states want token0 < token1; a pool that is not is skipped.
  if (BigInt(token0) >= BigInt(token1)) return undefined;
  return {
    address: address.toLowerCase(),
    poolId: poolId.toLowerCase(),
    token0,
    token1,
    weight0: weights[0]!,
    weight1: weights[1]!,
    scalingFactor0: scalingFactorOf(d0),
    scalingFactor1: scalingFactorOf(d1),
  };
}

/** Pool addresses of PoolCreated(address indexed pool) logs. */
export function createdPools(logs: ReadonlyArray<{ topics: readonly string[] }>): string[] {
  return logs.flatMap((log) =>
    log.topics[0] === POOL_CREATED_TOPIC && log.topics[1]
      ? [`0x${log.topics[1].slice(26).toLowerCase()}`]
      : [],
  );
}

/**
 * Two-token Balancer V2 weighted pools of one factory. Discovery reads the factory's PoolCreated logs (from
 * `fromBlock`, then only the blocks not yet scanned), each new pool's id, weights and tokens, and keeps the pools
 * whose two tokens are both listed. A refresh reads each pool's Vault balances, swap fee, paused state and scaling
 * factors (rate providers would change them) at the block, plus the Vault's own paused state; a paused pool or
 * Vault is left out, since its swaps revert.
 */
export class BalancerWeightedSource implements LiquiditySource {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly hopKind = HOP_KIND_BALANCER_WEIGHTED;
  private readonly client: ChainClient;
  private readonly vault: string;
  private readonly factory: string;
  private readonly multicallAddress: string;
  private readonly logBlockRange: number;
  private readonly chunkSize?: number;
  /** Next block to scan for PoolCreated logs. */
  private nextLogBlock: number;
  /** Every two-token pool of the factory seen so far, listed tokens or not. */
  private readonly seen = new Map<string, WeightedPoolInfo>();
  /** Pool addresses whose info could not be read (not two-token, odd tokens): never asked again. */
  private readonly skipped = new Set<string>();
  private readonly decimals = new Map<string, number>();
  private readonly pools = new Map<string, WeightedPoolInfo>();
  private current: SourceSnapshot = { blockNumber: NEVER_REFRESHED, pools: [] };

  constructor(opts: BalancerWeightedSourceOptions) {
    this.client = opts.client;
    this.chainId = opts.client.chainId;
    this.id = opts.id ?? BALANCER_V2_ID;
    this.name = opts.name ?? BALANCER_V2_NAME;
    this.vault = opts.vault.toLowerCase();
    this.factory = opts.weightedPoolFactory.toLowerCase();
    this.multicallAddress = opts.multicall.toLowerCase();
    this.nextLogBlock = opts.fromBlock ?? 0;
    this.logBlockRange = opts.logBlockRange ?? DEFAULT_LOG_BLOCK_RANGE;
    if (!Number.isInteger(this.logBlockRange) || this.logBlockRange < 1)
      throw new Error(`logBlockRange must be >= 1, got ${this.logBlockRange}`);
    this.chunkSize = opts.chunkSize;
  }

  async discover(tokens: readonly string[]): Promise<void> {
    const head = await this.client.blockNumber();
    const created = await this.poolCreatedSince(head);
    await this.readPoolInfos(
      created.filter((p) => !this.seen.has(p) && !this.skipped.has(p)),
      head,
    );
    this.nextLogBlock = Math.max(this.nextLogBlock, head + 1);
    const listed = new Set(tokens.map((t) => t.toLowerCase()));
    for (const pool of this.seen.values()) {
      if (listed.has(pool.token0) && listed.has(pool.token1)) this.pools.set(pool.address, pool);
    }
  }

  async refresh(blockNumber: number): Promise<void> {
    const pools = [...this.pools.values()];
    const calls: MulticallCall[] = [
      { target: this.vault, callData: vaultInterface.encodeFunctionData('getPausedState') },
      ...pools.flatMap((p) => [
        { target: this.vault, callData: vaultInterface.encodeFunctionData('getPoolTokens', [p.poolId]) },
        { target: p.address, callData: weightedPoolInterface.encodeFunctionData('getSwapFeePercentage') },
        { target: p.address, callData: weightedPoolInterface.encodeFunctionData('getPausedState') },
        { target: p.address, callData: weightedPoolInterface.encodeFunctionData('getScalingFactors') },
      ]),
    ];
    const response = await multicall(this.client, this.multicallAddress, calls, {
      chunkSize: this.chunkSize,
      blockTag: blockNumber,
    });
    const [vaultPaused, ...perPool] = response.results;
    // No Vault at that block: nothing to quote (the V2 source likewise skips pairs that do not exist yet).
    const vaultOpen = vaultPaused!.success && !decodePaused(vaultInterface, vaultPaused!);
    const states: WeightedPoolState[] = [];
    if (vaultOpen) {
      pools.forEach((pool, i) => {
        const state = weightedPoolState(this.id, pool, perPool.slice(4 * i, 4 * i + 4));
        if (state) states.push(state);
      });
    }
    this.current = { blockNumber: response.blockNumber, pools: states };
  }

  snapshot(): SourceSnapshot {
    return this.current;
  }

  reset(): void {
    // Every refresh reads all balances; pool infos are immutable (a reorg may orphan a pool's creation, but its
    // refresh then fails and leaves it out).
  }

  private async poolCreatedSince(head: number): Promise<string[]> {
    const out: string[] = [];
    for (let from = this.nextLogBlock; from <= head; from += this.logBlockRange) {
      const to = Math.min(head, from + this.logBlockRange - 1);
      const logs = (await this.client.send('eth_getLogs', [
        {
          address: this.factory,
          topics: [POOL_CREATED_TOPIC],
          fromBlock: toQuantity(from),
          toBlock: toQuantity(to),
        },
      ])) as Array<{ topics: string[] }>;
      out.push(...createdPools(logs));
    }
    return out;
  }

  /** Reads id, weights, tokens and token decimals of new pools at the block; two-token pools go to `seen`. */
  private async readPoolInfos(addresses: readonly string[], blockNumber: number): Promise<void> {
    if (addresses.length === 0) return;
    const opts = { chunkSize: this.chunkSize, blockTag: blockNumber };
    const heads = await multicall(
      this.client,
      this.multicallAddress,
      addresses.flatMap((address) => [
        { target: address, callData: weightedPoolInterface.encodeFunctionData('getPoolId') },
        { target: address, callData: weightedPoolInterface.encodeFunctionData('getNormalizedWeights') },
      ]),
      opts,
    );
    const withIds: Array<{ address: string; poolId: string; weights: bigint[] }> = [];
    addresses.forEach((address, i) => {
      const [idResult, weightsResult] = [heads.results[2 * i]!, heads.results[2 * i + 1]!];
      if (!idResult.success || !weightsResult.success) {
        this.skipped.add(address);
        return;
      }
      const poolId = weightedPoolInterface.decodeFunctionResult(
        'getPoolId',
        idResult.returnData,
      )[0] as string;
      const [weights] = weightedPoolInterface.decodeFunctionResult(
        'getNormalizedWeights',
        weightsResult.returnData,
      ) as unknown as [bigint[]];
      withIds.push({ address, poolId, weights: [...weights] });
    });
    const tokenLists = await multicall(
      this.client,
      this.multicallAddress,
      withIds.map((p) => ({
        target: this.vault,
        callData: vaultInterface.encodeFunctionData('getPoolTokens', [p.poolId]),
      })),
      opts,
    );
    const tokensOf = withIds.map((_, i) => {
      const result = tokenLists.results[i]!;
      if (!result.success) return undefined;
      const [tokens] = vaultInterface.decodeFunctionResult('getPoolTokens', result.returnData) as unknown as [
        string[],
      ];
      return tokens.map((t) => t.toLowerCase());
    });
    await this.readDecimals(
      tokensOf.flatMap((tokens) => (tokens?.length === 2 ? tokens : [])),
      blockNumber,
    );
    withIds.forEach((p, i) => {
      const tokens = tokensOf[i];
      const info = tokens && twoTokenPool(p.address, p.poolId, tokens, p.weights, this.decimals);
      if (info) this.seen.set(info.address, info);
      else this.skipped.add(p.address);
    });
  }

  private async readDecimals(tokens: readonly string[], blockNumber: number): Promise<void> {
    const unknown = [...new Set(tokens)].filter((t) => !this.decimals.has(t));
    const response = await multicall(
      this.client,
      this.multicallAddress,
      unknown.map((t) => ({ target: t, callData: erc20Interface.encodeFunctionData('decimals') })),
      { chunkSize: this.chunkSize, blockTag: blockNumber },
    );
    response.results.forEach((result, i) => {
      if (!result.success) return;
      this.decimals.set(
        unknown[i]!,
        Number(erc20Interface.decodeFunctionResult('decimals', result.returnData)[0] as bigint),
      );
    });
  }
}

function decodePaused(iface: Interface, result: MulticallResult): boolean {
  return iface.decodeFunctionResult('getPausedState', result.returnData)[0] as boolean;
}

/**
 * A pool's state from its four refresh results (getPoolTokens, getSwapFeePercentage, getPausedState,
 * getScalingFactors); undefined when it is paused, did not answer, or its tokens are not the known ones.
 */
export function weightedPoolState(
  sourceId: string,
  pool: WeightedPoolInfo,
  results: readonly MulticallResult[],
): WeightedPoolState | undefined {
  const [tokensResult, feeResult, pausedResult, scalingResult] = results;
  if (!tokensResult?.success || !feeResult?.success || !pausedResult?.success) return undefined;
  if (decodePaused(weightedPoolInterface, pausedResult)) return undefined;
  const [tokens, balances] = vaultInterface.decodeFunctionResult(
    'getPoolTokens',
    tokensResult.returnData,
  ) as unknown as [string[], bigint[]];
  if (
    tokens.length !== 2 ||
    tokens[0]!.toLowerCase() !== pool.token0 ||
    tokens[1]!.toLowerCase() !== pool.token1
  )
    return undefined;
  let [scalingFactor0, scalingFactor1] = [pool.scalingFactor0, pool.scalingFactor1];
  // Pools since the weighted pool V2 expose what they scale by, rate providers included; the first one does not.
  if (scalingResult?.success) {
    const [factors] = weightedPoolInterface.decodeFunctionResult(
      'getScalingFactors',
      scalingResult.returnData,
    ) as unknown as [bigint[]];
    if (factors.length === 2) [scalingFactor0, scalingFactor1] = [factors[0]!, factors[1]!];
  }
  return {
    kind: 'balancer-weighted',
    sourceId,
    address: pool.address,
    poolId: pool.poolId,
    token0: pool.token0,
    token1: pool.token1,
    balance0: balances[0]!,
    balance1: balances[1]!,
    weight0: pool.weight0,
    weight1: pool.weight1,
    scalingFactor0,
    scalingFactor1,
    swapFee: weightedPoolInterface.decodeFunctionResult(
      'getSwapFeePercentage',
      feeResult.returnData,
    )[0] as bigint,
  };
}
