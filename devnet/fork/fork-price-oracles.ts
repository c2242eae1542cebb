import { Contract, ZeroAddress, type JsonRpcProvider } from 'ethers';
import type { PriceOracle } from '../world/deploy-service-contracts';
import { V3_FACTORY_ABI, V3_POOL_ABI } from '../world/abis';

const FEE_TIERS = [100, 500, 3000, 10_000];

/**
 * The price sources of a forked chain's tokens for the OrderExecutor's bound, chosen once at deployment as an
 * operator would: for each token, its Uniswap V3 pool against the wrapped native with the most liquidity now. A
 * token with no such pool gets none (its pairs do not execute until the operator sets a feed).
 */
export async function forkPriceOracles(
  provider: JsonRpcProvider,
  uniswapV3Factory: string,
  weth: string,
  tokens: readonly string[],
): Promise<PriceOracle[]> {
  const factory = new Contract(uniswapV3Factory, V3_FACTORY_ABI, provider);
  const oracles: PriceOracle[] = [];
  for (const token of tokens) {
    if (token.toLowerCase() === weth.toLowerCase()) continue;
    let best: { pool: string; liquidity: bigint } | undefined;
    for (const fee of FEE_TIERS) {
      const pool = (await factory.getFunction('getPool')(token, weth, fee)) as string;
      if (pool === ZeroAddress) continue;
      const liquidity = (await new Contract(pool, V3_POOL_ABI, provider).getFunction(
        'liquidity',
      )()) as bigint;
      if (!best || liquidity > best.liquidity) best = { pool, liquidity };
    }
    if (best) oracles.push({ token, kind: 'v3-weth-pool', source: best.pool });
  }
  return oracles;
}
