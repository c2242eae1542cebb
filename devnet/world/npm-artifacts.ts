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
} as const;

export type NpmContractName = keyof typeof SOURCES;

/**
 * Reads an artifact from node_modules. Uniswap V2's builds (waffle) store the creation code without the 0x
 * prefix, the hardhat builds with it; callers always get 0x-hex.
 */
export function loadNpmArtifact(name: NpmContractName): NpmArtifact {
  const file = require.resolve(SOURCES[name]);
  const json = JSON.parse(readFileSync(file, 'utf8')) as { abi: JsonFragment[]; bytecode: string };
  if (!json.bytecode || json.bytecode === '0x') throw new Error(`${file} has no creation code`);
  return { abi: json.abi, bytecode: json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}` };
}
