import { readFileSync } from 'node:fs';
import type { JsonFragment } from 'ethers';
import { SPOKE_POOL_ARTIFACT } from '../../shared/bridges/contracts';

/** ABI and creation code of a contract published in an npm package (the real, audited builds). */
export interface NpmArtifact {
  abi: JsonFragment[];
  /** Creation code, 0x-hex. */
  bytecode: string;
}

/** The outside contracts of the fixture world, each from the package that publishes its production build. */
const SOURCES = {
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  UniswapV2Router02: '@uniswap/v2-periphery/build/UniswapV2Router02.json',
  UniswapV3Factory: '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  UniswapV3Pool: '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
  NonfungiblePositionManager:
    '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
  QuoterV2: '@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json',
  V3SwapRouter: '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json',
  UniswapInterfaceMulticall:
    '@uniswap/v3-periphery/artifacts/contracts/lens/UniswapInterfaceMulticall.sol/UniswapInterfaceMulticall.json',
  // The intent bridge: Across V3's L1 SpokePool (owned by an admin key that plays the HubPool) behind its proxy.
  Ethereum_SpokePool: SPOKE_POOL_ARTIFACT,
  ERC1967Proxy: '@across-protocol/contracts/dist/evm/artifacts/ERC1967Proxy.sol/ERC1967Proxy.json',
  // Uniswap V4 (forge builds, Cancun): the singleton, and v4-core's own test routers to seed and swap with.
  PoolManager: '@uniswap/v4-core/out/PoolManager.sol/PoolManager.json',
  PoolModifyLiquidityTest: '@uniswap/v4-core/out/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json',
  PoolSwapTest: '@uniswap/v4-core/out/PoolSwapTest.sol/PoolSwapTest.json',
  // Balancer V2 as deployed on mainnet (the deployment tasks' artifacts), with the newest weighted pool build here.
  BalancerAuthorizer: '@balancer-labs/v2-deployments/dist/tasks/20210418-authorizer/artifact/Authorizer.json',
  BalancerVault: '@balancer-labs/v2-deployments/dist/tasks/20210418-vault/artifact/Vault.json',
  ProtocolFeePercentagesProvider:
    '@balancer-labs/v2-deployments/dist/tasks/20220725-protocol-fee-percentages-provider/artifact/ProtocolFeePercentagesProvider.json',
  WeightedPoolFactory:
    '@balancer-labs/v2-deployments/dist/tasks/20230206-weighted-pool-v3/artifact/WeightedPoolFactory.json',
  WeightedPool:
    '@balancer-labs/v2-deployments/dist/tasks/20230206-weighted-pool-v3/artifact/WeightedPool.json',
} as const;

export type NpmContractName = keyof typeof SOURCES;

/**
 * Reads an artifact from node_modules. Uniswap V2's builds (waffle) store the creation code without the 0x
 * prefix, the hardhat builds with it, forge's under `bytecode.object`; callers always get 0x-hex.
 */
export function loadNpmArtifact(name: NpmContractName): NpmArtifact {
  const file = require.resolve(SOURCES[name]);
  const json = JSON.parse(readFileSync(file, 'utf8')) as {
    abi: JsonFragment[];
    bytecode: string | { object: string };
  };
  const bytecode = typeof json.bytecode === 'string' ? json.bytecode : json.bytecode?.object;
  if (!bytecode || bytecode === '0x') throw new Error(`${file} has no creation code`);
  return { abi: json.abi, bytecode: bytecode.startsWith('0x') ? bytecode : `0x${bytecode}` };
}
