import type { ManifestContracts, ManifestToken } from './manifest';

/**
 * The contracts a forked chain already has: everything in the manifest but ours (StableSwap included) and the
 * bridges we deploy. The venues are those the real chain has.
 */
export type KnownForkContracts = Omit<
  ManifestContracts,
  | 'swapRouter'
  | 'spender'
  | 'orderExecutor'
  | 'stableSwapFactory'
  | 'spokePool'
  | 'crossChainEntry'
  | 'lockReleaseBridge'
  | 'rootBundleAdmin'
>;

/**
 * Real contracts a forked chain already has (everything but ours). Polygon's V2-style exchange is QuickSwap: our
 * contracts look pairs up through the factory, so its own init-code hash does not matter (nor SushiSwap's).
 * Balancer's weighted pool factory is the newest one (v4, 20230320-weighted-pool-v4: the v3 math, where today's
 * weighted pools are created); the Vault is the same address on every chain. Uniswap's PoolManager addresses are
 * docs.uniswap.org's v4 deployments. A fork of a block before a venue existed drops it (deployForked).
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
    sushiswapV2Factory: '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac',
    uniswapV4PoolManager: '0x000000000004444c5dc75cB358380D2e3dE08A90',
    balancerVault: '0xBA12222222228d8Ba445958a75a0704d566BF2C8',
    balancerWeightedPoolFactory: '0x897888115Ada5773E02aA29F775430BFB5F34c51',
  },
  137: {
    weth: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
    multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
    uniswapV2Factory: '0x5757371414417b8C6CAad45bAeF941aBc7d3Ab32',
    uniswapV2Router02: '0xa5E0829CaCEd8fFDD4De3c43696c57F7D7A678ff',
    uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
    uniswapV3SwapRouter: '0xE592427A0AEce92De3Edee1F18E0157C05861564',
    sushiswapV2Factory: '0xc35DADB65012eC5796536bD9864eD8773aBc74C4',
    uniswapV4PoolManager: '0x67366782805870060151383F4BbFF9daB53e5cD6',
    balancerVault: '0xBA12222222228d8Ba445958a75a0704d566BF2C8',
    balancerWeightedPoolFactory: '0xFc8a407Bba312ac761D8BFe04CE1201904842B76',
  },
};

/**
 * The block each real weighted pool factory of FORK_CONTRACTS was deployed at: where the api starts reading its
 * PoolCreated logs on a fork (ChainContracts.balancerFromBlock) instead of block 0.
 */
export const FORK_BALANCER_FACTORY_BLOCKS: Readonly<Record<string, number>> = {
  '0x897888115Ada5773E02aA29F775430BFB5F34c51': 16_878_323,
  '0xFc8a407Bba312ac761D8BFe04CE1201904842B76': 40_611_103,
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
    { symbol: 'SUSHI', address: '0x6B3595068778DD592e39A122f4f5a5cF09C90fE2', decimals: 18 },
    { symbol: 'BAL', address: '0xba100000625a3754423978a60c9317c58a424e3D', decimals: 18 },
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
