import { ERC20_ABI } from '../../shared/chain/contract-interfaces';

/** The fragments of outside contracts that the devnet calls (human-readable ABI; checked against npm builds). */

/** Kept here for the devnet's and its tests' imports; the one definition is shared/chain's. */
export { ERC20_ABI };

export const TEST_TOKEN_ABI = [...ERC20_ABI, 'function mint(address to, uint256 amount)'] as const;

export const WETH_ABI = [
  ...ERC20_ABI,
  'function deposit() payable',
  'function withdraw(uint256 wad)',
] as const;

export const V2_FACTORY_ABI = ['function getPair(address, address) view returns (address)'] as const;

export const V2_PAIR_ABI = [
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
] as const;

export const V2_ROUTER_ABI = [
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
] as const;

export const V3_FACTORY_ABI = ['function getPool(address, address, uint24) view returns (address)'] as const;

export const V3_POOL_ABI = [
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function liquidity() view returns (uint128)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function increaseObservationCardinalityNext(uint16 observationCardinalityNext)',
] as const;

export const V3_POSITION_MANAGER_ABI = [
  'function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96) payable returns (address pool)',
  'function mint((address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, address recipient, uint256 deadline) params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
] as const;

export const V3_QUOTER_V2_ABI = [
  'function quoteExactInputSingle((address tokenIn, address tokenOut, uint256 amountIn, uint24 fee, uint160 sqrtPriceLimitX96) params) returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)',
] as const;

export const V3_SWAP_ROUTER_ABI = [
  'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params) payable returns (uint256 amountOut)',
] as const;

/** Ample for any deadline check: the devnet never relies on deadlines during seeding. */
export const FAR_DEADLINE = 2n ** 64n;

/** SushiSwap's V2 factory: Uniswap V2's, plus the pair's init-code hash as a view. */
export const SUSHISWAP_FACTORY_ABI = [
  ...V2_FACTORY_ABI,
  'function createPair(address tokenA, address tokenB) returns (address pair)',
  'function pairCodeHash() pure returns (bytes32)',
  'function feeToSetter() view returns (address)',
] as const;

/** A V2 pair's mint: the devnet seeds SushiSwap pairs by transferring both tokens in, then minting. */
export const V2_PAIR_MINT_ABI = ['function mint(address to) returns (uint256 liquidity)'] as const;

const V4_POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)';

export const V4_POOL_MANAGER_ABI = [
  `function initialize(${V4_POOL_KEY} key, uint160 sqrtPriceX96) returns (int24 tick)`,
  'function extsload(bytes32 slot) view returns (bytes32)',
  'function extsload(bytes32 startSlot, uint256 nSlots) view returns (bytes32[])',
  'function owner() view returns (address)',
] as const;

/** v4-core's PoolModifyLiquidityTest router: pays the manager from msg.sender's allowance. */
export const V4_MODIFY_LIQUIDITY_ABI = [
  `function modifyLiquidity(${V4_POOL_KEY} key, (int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt) params, bytes hookData) payable returns (int256 delta)`,
] as const;

/** v4-core's PoolSwapTest router: takes the input from msg.sender's allowance, sends the output to it. */
export const V4_SWAP_TEST_ABI = [
  `function swap(${V4_POOL_KEY} key, (bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96) params, (bool takeClaims, bool settleUsingBurn) testSettings, bytes hookData) payable returns (int256 delta)`,
] as const;

export const BALANCER_VAULT_ABI = [
  'function WETH() view returns (address)',
  'function getAuthorizer() view returns (address)',
  'function getPool(bytes32 poolId) view returns (address pool, uint8 specialization)',
  'function getPoolTokens(bytes32 poolId) view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock)',
  'function joinPool(bytes32 poolId, address sender, address recipient, (address[] assets, uint256[] maxAmountsIn, bytes userData, bool fromInternalBalance) request) payable',
  'function queryBatchSwap(uint8 kind, (bytes32 poolId, uint256 assetInIndex, uint256 assetOutIndex, uint256 amount, bytes userData)[] swaps, address[] assets, (address sender, bool fromInternalBalance, address recipient, bool toInternalBalance) funds) returns (int256[] assetDeltas)',
] as const;

export const BALANCER_WEIGHTED_POOL_FACTORY_ABI = [
  'function create(string name, string symbol, address[] tokens, uint256[] normalizedWeights, address[] rateProviders, uint256 swapFeePercentage, address owner) returns (address)',
  'function isPoolFromFactory(address pool) view returns (bool)',
  'function getVault() view returns (address)',
] as const;

export const BALANCER_WEIGHTED_POOL_ABI = [
  'function getPoolId() view returns (bytes32)',
  'function getNormalizedWeights() view returns (uint256[])',
  'function getSwapFeePercentage() view returns (uint256)',
] as const;

/** Our StableSwapFactory and StableSwapPool (contracts-abi/src), the functions the devnet calls. */
export const STABLE_SWAP_FACTORY_ABI = [
  'function createPool(address tokenA, address tokenB, uint256 A, uint256 fee) returns (address)',
  'function isPool(address pool) view returns (bool)',
  'function getPool(address tokenA, address tokenB) view returns (address)',
] as const;

export const STABLE_SWAP_POOL_ABI = [
  'function coins(uint256 i) view returns (address)',
  'function balances(uint256 i) view returns (uint256)',
  'function A() view returns (uint256)',
  'function fee() view returns (uint256)',
  'function getDy(uint256 i, uint256 j, uint256 dx) view returns (uint256)',
  'function exchange(uint256 i, uint256 j, uint256 dx, uint256 minDy) returns (uint256 dy)',
  'function addLiquidity(uint256[2] amounts, uint256 minMint) returns (uint256)',
] as const;
