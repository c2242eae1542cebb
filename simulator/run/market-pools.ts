import { Contract, type Provider } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import type { PairToken } from '../../devnet/market/pool-price';
import { V2_FACTORY_ABI, V3_FACTORY_ABI, V3_POOL_ABI } from '../../devnet/world/abis';
import { v4PoolId, v4PoolKey, type V4PoolKey } from '../../devnet/world/venue-pool-address';
import { readV4Slot0 } from '../../devnet/world/v4-pool-state';

/** The fee tiers a V3 pool of a market may sit at. */
const V3_FEES = [100, 500, 3000, 10_000] as const;
/** V4 hooks-free pools at Uniswap's usual fee / tick-spacing pairs. */
const V4_TIERS = [
  [100, 1],
  [500, 10],
  [3000, 60],
  [10_000, 200],
] as const;

/** A pool of a market the mover trades: its kind decides how it is read and moved. */
export type MarketPool =
  | { kind: 'v2'; address: string; baseIsToken0: boolean }
  | { kind: 'sushi'; address: string; baseIsToken0: boolean }
  | { kind: 'v3'; address: string; fee: number; baseIsToken0: boolean }
  | { kind: 'v4'; key: V4PoolKey; poolId: string; baseIsToken0: boolean };

const factoryPair = async (provider: Provider, factory: string, a: string, b: string): Promise<string> =>
  (await new Contract(factory, V2_FACTORY_ABI, provider).getFunction('getPair')(a, b)) as string;

/**
 * Every pool of the pair holding liquidity on the chain: Uniswap V2 first (its price is the market's realized
 * price), then SushiSwap V2, Uniswap V3's fee tiers and Uniswap V4's hooks-free pools, where the devnet has them.
 */
export async function findMarketPools(
  provider: Provider,
  manifest: ManifestChain,
  base: PairToken,
  quote: PairToken,
): Promise<MarketPool[]> {
  const { contracts } = manifest;
  const baseIsToken0 = BigInt(base.address) < BigInt(quote.address);
  const pools: MarketPool[] = [];
  const v2 = await factoryPair(provider, contracts.uniswapV2Factory, base.address, quote.address);
  if (BigInt(v2) !== 0n) pools.push({ kind: 'v2', address: v2, baseIsToken0 });
  if (contracts.sushiswapV2Factory) {
    const sushi = await factoryPair(provider, contracts.sushiswapV2Factory, base.address, quote.address);
    if (BigInt(sushi) !== 0n) pools.push({ kind: 'sushi', address: sushi, baseIsToken0 });
  }
  const factory = new Contract(contracts.uniswapV3Factory, V3_FACTORY_ABI, provider);
  for (const fee of V3_FEES) {
    const address = (await factory.getFunction('getPool')(base.address, quote.address, fee)) as string;
    if (BigInt(address) === 0n) continue;
    const liquidity = (await new Contract(address, V3_POOL_ABI, provider).getFunction(
      'liquidity',
    )()) as bigint;
    if (liquidity > 0n) pools.push({ kind: 'v3', address, fee, baseIsToken0 });
  }
  if (contracts.uniswapV4PoolManager) {
    for (const [fee, tickSpacing] of V4_TIERS) {
      const key = v4PoolKey(base.address, quote.address, fee, tickSpacing);
      const poolId = v4PoolId(key);
      const slot0 = await readV4Slot0(provider, contracts.uniswapV4PoolManager, poolId);
      if (slot0.sqrtPriceX96 > 0n && slot0.liquidity > 0n)
        pools.push({ kind: 'v4', key, poolId, baseIsToken0 });
    }
  }
  return pools;
}
