import type { ManifestContracts } from './manifest';

/**
 * Real contracts a forked chain already has (everything but ours). Polygon's V2-style exchange is QuickSwap: our
 * contracts look pairs up through the factory, so its own init-code hash does not matter.
 */
export const FORK_CONTRACTS: Readonly<
  Record<number, Omit<ManifestContracts, 'swapRouter' | 'spender' | 'orderExecutor'>>
> = {
  1: {
    weth: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
    uniswapV2Factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
    uniswapV2Router02: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D',
    uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
    uniswapV3SwapRouter: '0xE592427A0AEce92De3Edee1F18E0157C05861564',
  },
  137: {
    weth: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
    multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
    uniswapV2Factory: '0x5757371414417b8C6CAad45bAeF941aBc7d3Ab32',
    uniswapV2Router02: '0xa5E0829CaCEd8fFDD4De3c43696c57F7D7A678ff',
    uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
    uniswapV3SwapRouter: '0xE592427A0AEce92De3Edee1F18E0157C05861564',
  },
};
