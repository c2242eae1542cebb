import type { ChainClient } from '../../chain/chain-client';
import { HOP_KIND_SUSHISWAP_V2 } from './liquidity-source';
import { UniswapV2Source } from './uniswap-v2-source';

export const SUSHISWAP_V2_ID = 'sushiswap-v2';
export const SUSHISWAP_V2_NAME = 'SushiSwap V2';

export interface SushiSwapV2SourceOptions {
  client: ChainClient;
  /** The SushiSwap V2 factory (UniswapV2Factory fork: getPair and pairs with getReserves). */
  factory: string;
  multicall: string;
  id?: string;
  name?: string;
  chunkSize?: number;
}

/**
 * SushiSwap V2: a Uniswap V2 fork with its own factory and the same 0.3% fee (997/1000), so the V2 source reads
 * it; its pools are stamped with the Sushi hop kind, which our contracts resolve in the Sushi factory.
 */
export function sushiSwapV2Source(opts: SushiSwapV2SourceOptions): UniswapV2Source {
  return new UniswapV2Source({
    client: opts.client,
    id: opts.id ?? SUSHISWAP_V2_ID,
    name: opts.name ?? SUSHISWAP_V2_NAME,
    factory: opts.factory,
    multicall: opts.multicall,
    feeBps: 30n,
    hopKind: HOP_KIND_SUSHISWAP_V2,
    chunkSize: opts.chunkSize,
  });
}
