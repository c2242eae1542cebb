import type { ManifestContracts, ManifestToken } from './manifest';

/** The contracts a forked chain already has: everything in the manifest but ours and the bridges we deploy. */
export type KnownForkContracts = Omit<
  ManifestContracts,
  'swapRouter' | 'spender' | 'orderExecutor' | 'spokePool' | 'crossChainEntry' | 'lockReleaseBridge'
>;

/**
 * Real contracts a forked chain already has (everything but ours). Polygon's V2-style exchange is QuickSwap: our
 * contracts look pairs up through the factory, so its own init-code hash does not matter.
 */
export const FORK_CONTRACTS: Readonly<Record<number, KnownForkContracts>> = {
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

/**
 * The real ERC-20s a forked chain lists and funds the test accounts with, besides its wrapped native (the `weth`
 * of FORK_CONTRACTS). Symbols are those of the chain's fixture world, so the token list names them the same way.
 * On 137, USDC is Circle's native USDC (not the bridged USDC.e at 0x2791…4174); the others are the PoS-bridged
 * tokens.
 */
export const FORK_TOKENS: Readonly<Record<number, readonly ManifestToken[]>> = {
  1: [
    { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    { symbol: 'USDT', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
    { symbol: 'DAI', address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 },
    { symbol: 'WBTC', address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', decimals: 8 },
    { symbol: 'LINK', address: '0x514910771AF9Ca656af840dff83E8264EcF986CA', decimals: 18 },
    { symbol: 'UNI', address: '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', decimals: 18 },
  ],
  137: [
    { symbol: 'WETH', address: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619', decimals: 18 },
    { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
    { symbol: 'USDT', address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
    { symbol: 'DAI', address: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', decimals: 18 },
    { symbol: 'WBTC', address: '0x1BFD67037B42Cf73acF2047067bd4F2C47D9BfD6', decimals: 8 },
    { symbol: 'LINK', address: '0x53E0bca35eC356BD5ddDFebbD1Fc0fD03FaBad39', decimals: 18 },
  ],
};
