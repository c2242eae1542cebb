import { ZeroAddress } from 'ethers';
import { loadNpmArtifact } from './npm-artifacts';
import type { TxQueue } from './tx-queue';

export interface UniswapContracts {
  multicall: string;
  uniswapV2Factory: string;
  uniswapV2Router02: string;
  uniswapV3Factory: string;
  uniswapV3QuoterV2: string;
  uniswapV3SwapRouter: string;
  uniswapV3PositionManager: string;
}

/**
 * Queues the Uniswap V2 and V3 deployments from their published npm builds. The V2 factory's fee switch
 * setter and every owner is the deployer; the position manager has no token descriptor (tokenURI is not
 * used on the devnet).
 */
export function queueUniswap(queue: TxQueue, weth: string): UniswapContracts {
  const uniswapV2Factory = queue.deploy('UniswapV2Factory', loadNpmArtifact('UniswapV2Factory'), [
    queue.address,
  ]);
  const uniswapV2Router02 = queue.deploy('UniswapV2Router02', loadNpmArtifact('UniswapV2Router02'), [
    uniswapV2Factory,
    weth,
  ]);
  const uniswapV3Factory = queue.deploy('UniswapV3Factory', loadNpmArtifact('UniswapV3Factory'));
  const uniswapV3PositionManager = queue.deploy(
    'NonfungiblePositionManager',
    loadNpmArtifact('NonfungiblePositionManager'),
    [uniswapV3Factory, weth, ZeroAddress],
  );
  const uniswapV3QuoterV2 = queue.deploy('QuoterV2', loadNpmArtifact('QuoterV2'), [uniswapV3Factory, weth]);
  const uniswapV3SwapRouter = queue.deploy('SwapRouter (Uniswap V3)', loadNpmArtifact('V3SwapRouter'), [
    uniswapV3Factory,
    weth,
  ]);
  const multicall = queue.deploy('UniswapInterfaceMulticall', loadNpmArtifact('UniswapInterfaceMulticall'));
  return {
    multicall,
    uniswapV2Factory,
    uniswapV2Router02,
    uniswapV3Factory,
    uniswapV3QuoterV2,
    uniswapV3SwapRouter,
    uniswapV3PositionManager,
  };
}
