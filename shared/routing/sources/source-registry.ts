import type { ChainClient } from '../../chain/chain-client';
import type { PoolState } from '../pools/pool-state';
import { BALANCER_V2_ID, BALANCER_V2_NAME, BalancerWeightedSource } from './balancer-weighted-source';
import type { LiquiditySource } from './liquidity-source';
import { STABLE_SWAP_ID, STABLE_SWAP_NAME, StableSwapSource } from './stable-swap-source';
import { SUSHISWAP_V2_ID, SUSHISWAP_V2_NAME, sushiSwapV2Source } from './sushiswap-v2-source';
import { UniswapV2Source } from './uniswap-v2-source';
import { UniswapV3Source } from './uniswap-v3-source';
import { UNISWAP_V4_ID, UNISWAP_V4_NAME, UniswapV4Source } from './uniswap-v4-source';

export interface UniswapV2SourceConfig {
  type: 'uniswap-v2';
  id: string;
  name: string;
  factory: string;
  feeBps?: bigint;
}

export interface UniswapV3SourceConfig {
  type: 'uniswap-v3';
  id: string;
  name: string;
  factory: string;
  feeTiers?: readonly number[];
}

export interface SushiSwapV2SourceConfig {
  type: 'sushiswap-v2';
  id: string;
  name: string;
  factory: string;
}

export interface UniswapV4SourceConfig {
  type: 'uniswap-v4';
  id: string;
  name: string;
  poolManager: string;
}

export interface BalancerWeightedSourceConfig {
  type: 'balancer-weighted';
  id: string;
  name: string;
  vault: string;
  weightedPoolFactory: string;
  /** The factory's deployment block: its PoolCreated logs are read from there. */
  fromBlock?: number;
}

export interface StableSwapSourceConfig {
  type: 'stable-swap';
  id: string;
  name: string;
  factory: string;
}

export type SourceConfig =
  | UniswapV2SourceConfig
  | UniswapV3SourceConfig
  | SushiSwapV2SourceConfig
  | UniswapV4SourceConfig
  | BalancerWeightedSourceConfig
  | StableSwapSourceConfig;

/** The liquidity sources of one chain: which adapters, with which contracts. */
export interface ChainSourcesConfig {
  chainId: number;
  multicall: string;
  sources: readonly SourceConfig[];
}

/** What the sources need of a chain's contracts (shared/config ChainContracts, the devnet manifest's). */
export interface DevnetChainContracts {
  chainId: number;
  contracts: {
    multicall: string;
    uniswapV2Factory: string;
    uniswapV3Factory: string;
    sushiswapV2Factory?: string;
    uniswapV4PoolManager?: string;
    balancerVault?: string;
    balancerWeightedPoolFactory?: string;
    balancerFromBlock?: number;
    stableSwapFactory?: string;
  };
}

/**
 * A chain's sources from its contracts: Uniswap V2 and V3 always, each other venue when its contracts are
 * configured (real chains lack some; a devnet without Cancun has no Uniswap V4).
 */
export function devnetSourcesConfig(chain: DevnetChainContracts): ChainSourcesConfig {
  const c = chain.contracts;
  const sources: SourceConfig[] = [
    { type: 'uniswap-v2', id: 'uniswap-v2', name: 'Uniswap V2', factory: c.uniswapV2Factory },
    { type: 'uniswap-v3', id: 'uniswap-v3', name: 'Uniswap V3', factory: c.uniswapV3Factory },
  ];
  if (c.sushiswapV2Factory) {
    sources.push({
      type: 'sushiswap-v2',
      id: SUSHISWAP_V2_ID,
      name: SUSHISWAP_V2_NAME,
      factory: c.sushiswapV2Factory,
    });
  }
  if (c.uniswapV4PoolManager) {
    sources.push({
      type: 'uniswap-v4',
      id: UNISWAP_V4_ID,
      name: UNISWAP_V4_NAME,
      poolManager: c.uniswapV4PoolManager,
    });
  }
  if (c.balancerVault && c.balancerWeightedPoolFactory) {
    sources.push({
      type: 'balancer-weighted',
      id: BALANCER_V2_ID,
      name: BALANCER_V2_NAME,
      vault: c.balancerVault,
      weightedPoolFactory: c.balancerWeightedPoolFactory,
      ...(c.balancerFromBlock !== undefined ? { fromBlock: c.balancerFromBlock } : {}),
    });
  }
  if (c.stableSwapFactory) {
    sources.push({
      type: 'stable-swap',
      id: STABLE_SWAP_ID,
      name: STABLE_SWAP_NAME,
      factory: c.stableSwapFactory,
    });
  }
  return { chainId: chain.chainId, multicall: c.multicall, sources };
}

export function buildSource(
  client: ChainClient,
  multicallAddress: string,
  config: SourceConfig,
): LiquiditySource {
  switch (config.type) {
    case 'uniswap-v2':
      return new UniswapV2Source({ client, multicall: multicallAddress, ...config });
    case 'uniswap-v3':
      return new UniswapV3Source({ client, multicall: multicallAddress, ...config });
    case 'sushiswap-v2':
      return sushiSwapV2Source({ client, multicall: multicallAddress, ...config });
    case 'uniswap-v4':
      return new UniswapV4Source({ client, multicall: multicallAddress, ...config });
    case 'balancer-weighted':
      return new BalancerWeightedSource({ client, multicall: multicallAddress, ...config });
    case 'stable-swap':
      return new StableSwapSource({ client, multicall: multicallAddress, ...config });
  }
}

export interface SourceFailure {
  sourceId: string;
  error: Error;
}

export interface ChainRefresh {
  blockNumber: number;
  /** Pools of the sources that refreshed at blockNumber; a failed source contributes none (never stale ones). */
  pools: readonly PoolState[];
  failures: readonly SourceFailure[];
}

/** The sources of one chain, discovered and refreshed together. */
export class SourceRegistry {
  readonly chainId: number;
  readonly sources: readonly LiquiditySource[];

  constructor(chainId: number, sources: readonly LiquiditySource[]) {
    const ids = new Set<string>();
    for (const source of sources) {
      if (source.chainId !== chainId)
        throw new Error(`source ${source.id} is for chain ${source.chainId}, not ${chainId}`);
      if (ids.has(source.id)) throw new Error(`two sources with id ${source.id} on chain ${chainId}`);
      ids.add(source.id);
    }
    this.chainId = chainId;
    this.sources = sources;
  }

  static fromConfig(client: ChainClient, config: ChainSourcesConfig): SourceRegistry {
    if (client.chainId !== config.chainId) {
      throw new Error(`sources of chain ${config.chainId} need that chain's client, got ${client.chainId}`);
    }
    return new SourceRegistry(
      config.chainId,
      config.sources.map((source) => buildSource(client, config.multicall, source)),
    );
  }

  get(id: string): LiquiditySource | undefined {
    return this.sources.find((s) => s.id === id);
  }

  async discoverAll(tokens: readonly string[]): Promise<void> {
    await Promise.all(this.sources.map((s) => s.discover(tokens)));
  }

  /** Refreshes every source at the block in parallel; one failing source does not hold the others back. */
  async refreshAll(blockNumber: number): Promise<ChainRefresh> {
    const settled = await Promise.allSettled(this.sources.map((s) => s.refresh(blockNumber)));
    const pools: PoolState[] = [];
    const failures: SourceFailure[] = [];
    settled.forEach((outcome, i) => {
      const source = this.sources[i]!;
      if (outcome.status === 'rejected') {
        const error = outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
        failures.push({ sourceId: source.id, error });
        return;
      }
      pools.push(...source.snapshot().pools);
    });
    return { blockNumber, pools, failures };
  }

  /** After a reorg: nothing read before may be reused (see LiquiditySource.reset). */
  resetAll(): void {
    for (const source of this.sources) source.reset();
  }
}
