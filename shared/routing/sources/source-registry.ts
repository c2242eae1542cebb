import type { ChainClient } from '../../chain/chain-client';
import type { PoolState } from '../pools/pool-state';
import type { LiquiditySource } from './liquidity-source';
import { UniswapV2Source } from './uniswap-v2-source';
import { UniswapV3Source } from './uniswap-v3-source';

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

export type SourceConfig = UniswapV2SourceConfig | UniswapV3SourceConfig;

/** The liquidity sources of one chain: which adapters, with which contracts. */
export interface ChainSourcesConfig {
  chainId: number;
  multicall: string;
  sources: readonly SourceConfig[];
}

/** What the embedded mode needs of a devnet manifest chain entry (devnet/manifest.ts ManifestChain). */
export interface DevnetChainContracts {
  chainId: number;
  contracts: { multicall: string; uniswapV2Factory: string; uniswapV3Factory: string };
}

/** The embedded mode's sources: the devnet world's Uniswap V2 and V3. */
export function devnetSourcesConfig(chain: DevnetChainContracts): ChainSourcesConfig {
  return {
    chainId: chain.chainId,
    multicall: chain.contracts.multicall,
    sources: [
      { type: 'uniswap-v2', id: 'uniswap-v2', name: 'Uniswap V2', factory: chain.contracts.uniswapV2Factory },
      { type: 'uniswap-v3', id: 'uniswap-v3', name: 'Uniswap V3', factory: chain.contracts.uniswapV3Factory },
    ],
  };
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
