// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The functions of the venues' real builds (npm artifacts) the fixtures call to create and seed pools.
interface IMintable {
    function mint(address to, uint256 amount) external;
}

interface IUniswapV2Factory {
    function createPair(address tokenA, address tokenB) external returns (address pair);
    function getPair(address tokenA, address tokenB) external view returns (address pair);
}

interface IUniswapV2Pair {
    function mint(address to) external returns (uint256 liquidity);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
}

interface IUniswapV3Factory {
    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
}

interface IUniswapV3Pool {
    function initialize(uint160 sqrtPriceX96) external;
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
    function swap(
        address recipient,
        bool zeroForOne,
        int256 amountSpecified,
        uint160 sqrtPriceLimitX96,
        bytes calldata data
    ) external returns (int256 amount0, int256 amount1);
    function increaseObservationCardinalityNext(uint16 observationCardinalityNext) external;
    function token0() external view returns (address);
    function token1() external view returns (address);
}

struct PoolKeyV4 {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct ModifyLiquidityParamsV4 {
    int24 tickLower;
    int24 tickUpper;
    int256 liquidityDelta;
    bytes32 salt;
}

interface IPoolManagerV4 {
    function initialize(PoolKeyV4 memory key, uint160 sqrtPriceX96) external returns (int24 tick);
}

interface IPoolModifyLiquidityTest {
    function modifyLiquidity(PoolKeyV4 memory key, ModifyLiquidityParamsV4 memory params, bytes memory hookData)
        external
        payable
        returns (int256 delta);
}

struct JoinPoolRequest {
    address[] assets;
    uint256[] maxAmountsIn;
    bytes userData;
    bool fromInternalBalance;
}

interface IBalancerVault {
    function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest memory request)
        external
        payable;
}

interface IWeightedPoolFactory {
    function create(
        string memory name,
        string memory symbol,
        address[] memory tokens,
        uint256[] memory normalizedWeights,
        address[] memory rateProviders,
        uint256 swapFeePercentage,
        address owner
    ) external returns (address);
}

interface IBalancerPool {
    function getPoolId() external view returns (bytes32);
}
