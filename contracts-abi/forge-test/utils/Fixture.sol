// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {TestBase} from "./TestBase.sol";
import {
    IBalancerPool,
    IBalancerVault,
    IMintable,
    IPoolManagerV4,
    IPoolModifyLiquidityTest,
    IUniswapV2Factory,
    IUniswapV2Pair,
    IUniswapV3Factory,
    IUniswapV3Pool,
    IWeightedPoolFactory,
    JoinPoolRequest,
    ModifyLiquidityParamsV4,
    PoolKeyV4
} from "./VenueInterfaces.sol";
import {Venues} from "../../src/RouteTypes.sol";
import {StableSwapFactory} from "../../src/StableSwapFactory.sol";
import {StableSwapPool} from "../../src/StableSwapPool.sol";
import {WrappedNative} from "../../src/test/WrappedNative.sol";

/// @notice Deploys the venues from their real builds (npm artifacts; our StableSwap from source) and seeds pools
///         with tokens it mints. Only the venues a suite asks for are deployed.
abstract contract Fixture is TestBase {
    string internal constant V2_FACTORY = "node_modules/@uniswap/v2-core/build/UniswapV2Factory.json";
    string internal constant SUSHI_FACTORY = "contracts-abi/external/sushiswap-v2/UniswapV2Factory.json";
    string internal constant V3_FACTORY =
        "node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json";
    string internal constant V4_POOL_MANAGER = "node_modules/@uniswap/v4-core/out/PoolManager.sol/PoolManager.json";
    string internal constant V4_MODIFY_LIQUIDITY =
        "node_modules/@uniswap/v4-core/out/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json";
    string internal constant BALANCER_AUTHORIZER =
        "node_modules/@balancer-labs/v2-deployments/dist/tasks/20210418-authorizer/artifact/Authorizer.json";
    string internal constant BALANCER_VAULT =
        "node_modules/@balancer-labs/v2-deployments/dist/tasks/20210418-vault/artifact/Vault.json";
    string internal constant BALANCER_FEE_PROVIDER =
        "node_modules/@balancer-labs/v2-deployments/dist/tasks/20220725-protocol-fee-percentages-provider/artifact/ProtocolFeePercentagesProvider.json";
    string internal constant BALANCER_WEIGHTED_FACTORY =
        "node_modules/@balancer-labs/v2-deployments/dist/tasks/20230206-weighted-pool-v3/artifact/WeightedPoolFactory.json";

    // Full-range ticks for tick spacing 60 (fee 0.3%).
    int24 internal constant FULL_RANGE_LOWER = -887220;
    int24 internal constant FULL_RANGE_UPPER = 887220;

    WrappedNative internal weth;
    Venues internal venues;
    address internal v4ModifyLiquidity;

    function _deployWeth() internal {
        weth = new WrappedNative("Wrapped Ether", "WETH");
        vm.label(address(weth), "WETH");
    }

    function _deployV2() internal {
        venues.uniswapV2Factory = deployWaffleArtifact(V2_FACTORY, abi.encode(address(this)));
        vm.label(venues.uniswapV2Factory, "UniswapV2Factory");
    }

    function _deploySushi() internal {
        venues.sushiswapV2Factory = deployArtifact(SUSHI_FACTORY, abi.encode(address(this)));
        vm.label(venues.sushiswapV2Factory, "SushiSwapV2Factory");
    }

    function _deployV3() internal {
        venues.uniswapV3Factory = deployArtifact(V3_FACTORY, "");
        vm.label(venues.uniswapV3Factory, "UniswapV3Factory");
    }

    /// @dev The PoolManager uses transient storage: the suite's EVM must be Cancun (vm.setEvmVersion).
    function _deployV4() internal {
        venues.uniswapV4PoolManager = deployArtifact(V4_POOL_MANAGER, abi.encode(address(this)));
        v4ModifyLiquidity = deployArtifact(V4_MODIFY_LIQUIDITY, abi.encode(venues.uniswapV4PoolManager));
        vm.label(venues.uniswapV4PoolManager, "PoolManager");
    }

    function _deployBalancer() internal {
        address authorizer = deployArtifact(BALANCER_AUTHORIZER, abi.encode(address(this)));
        venues.balancerVault =
            deployArtifact(BALANCER_VAULT, abi.encode(authorizer, address(weth), uint256(90 days), uint256(30 days)));
        address provider =
            deployArtifact(BALANCER_FEE_PROVIDER, abi.encode(venues.balancerVault, uint256(5e17), uint256(5e17)));
        venues.balancerWeightedPoolFactory =
            deployArtifact(BALANCER_WEIGHTED_FACTORY, abi.encode(venues.balancerVault, provider, "factory", "pool"));
        vm.label(venues.balancerVault, "BalancerVault");
    }

    function _deployStableSwap() internal {
        venues.stableSwapFactory = address(new StableSwapFactory(address(this)));
        vm.label(venues.stableSwapFactory, "StableSwapFactory");
    }

    // ---- tokens ----

    function _mint(address token, address to, uint256 amount) internal {
        if (token == address(weth)) {
            vm.deal(address(this), amount);
            weth.deposit{value: amount}();
            weth.transfer(to, amount);
        } else {
            IMintable(token).mint(to, amount);
        }
    }

    function _sorted(address a, address b) internal pure returns (address, address) {
        return a < b ? (a, b) : (b, a);
    }

    // ---- pools ----

    function _v2Pair(address factory, address tokenA, address tokenB, uint256 amountA, uint256 amountB)
        internal
        returns (address pair)
    {
        pair = IUniswapV2Factory(factory).createPair(tokenA, tokenB);
        _mint(tokenA, pair, amountA);
        _mint(tokenB, pair, amountB);
        IUniswapV2Pair(pair).mint(address(this));
    }

    function _stablePool(address tokenA, address tokenB, uint256 amountA, uint256 amountB)
        internal
        returns (address pool)
    {
        pool = StableSwapFactory(venues.stableSwapFactory).createPool(tokenA, tokenB, 2000, 4e6);
        (address token0, address token1) = _sorted(tokenA, tokenB);
        (uint256 amount0, uint256 amount1) = token0 == tokenA ? (amountA, amountB) : (amountB, amountA);
        _mint(token0, address(this), amount0);
        _mint(token1, address(this), amount1);
        _approveMax(token0, pool);
        _approveMax(token1, pool);
        StableSwapPool(pool).addLiquidity([amount0, amount1], 0);
    }

    /// @dev A 0.3% pool with full-range liquidity at the price amountB / amountA.
    function _v3Pool(address tokenA, address tokenB, uint256 amountA, uint256 amountB) internal returns (address pool) {
        return _v3PoolAt(3000, 60, tokenA, tokenB, amountA, amountB);
    }

    /// @dev A pool of the given fee tier (and its tick spacing) with full-range liquidity at amountB / amountA.
    function _v3PoolAt(uint24 fee, int24 spacing, address tokenA, address tokenB, uint256 amountA, uint256 amountB)
        internal
        returns (address pool)
    {
        pool = IUniswapV3Factory(venues.uniswapV3Factory).createPool(tokenA, tokenB, fee);
        (address token0,) = _sorted(tokenA, tokenB);
        (uint256 amount0, uint256 amount1) = token0 == tokenA ? (amountA, amountB) : (amountB, amountA);
        IUniswapV3Pool(pool).initialize(_sqrtPriceX96(amount0, amount1));
        int24 top = (887272 / spacing) * spacing;
        IUniswapV3Pool(pool).mint(address(this), -top, top, uint128(_sqrt(amount0 * amount1)), "");
    }

    /// @notice Pays a liquidity mint of _v3Pool by minting what the pool asks for.
    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata) external {
        IUniswapV3Pool pool = IUniswapV3Pool(msg.sender);
        if (amount0Owed > 0) _mint(pool.token0(), msg.sender, amount0Owed);
        if (amount1Owed > 0) _mint(pool.token1(), msg.sender, amount1Owed);
    }

    /// @dev A hooks-free 0.3% V4 pool (tick spacing 60) with full-range liquidity at the price amountB / amountA.
    function _v4Pool(address tokenA, address tokenB, uint256 amountA, uint256 amountB)
        internal
        returns (PoolKeyV4 memory key)
    {
        (address token0, address token1) = _sorted(tokenA, tokenB);
        (uint256 amount0, uint256 amount1) = token0 == tokenA ? (amountA, amountB) : (amountB, amountA);
        key = PoolKeyV4(token0, token1, 3000, 60, address(0));
        IPoolManagerV4(venues.uniswapV4PoolManager).initialize(key, _sqrtPriceX96(amount0, amount1));
        // The test router pulls what the position needs from this contract.
        _mint(token0, address(this), amount0 * 2);
        _mint(token1, address(this), amount1 * 2);
        _approveMax(token0, v4ModifyLiquidity);
        _approveMax(token1, v4ModifyLiquidity);
        IPoolModifyLiquidityTest(v4ModifyLiquidity)
            .modifyLiquidity(
                key,
                ModifyLiquidityParamsV4(
                    FULL_RANGE_LOWER, FULL_RANGE_UPPER, int256(_sqrt(amount0 * amount1)), bytes32(0)
                ),
                ""
            );
    }

    /// @dev A 50/50 weighted pool (0.3% swap fee) of the weighted factory, INIT-joined with amountA and amountB.
    function _balancerPool(address tokenA, address tokenB, uint256 amountA, uint256 amountB)
        internal
        returns (bytes32 poolId)
    {
        (address token0, address token1) = _sorted(tokenA, tokenB);
        (uint256 amount0, uint256 amount1) = token0 == tokenA ? (amountA, amountB) : (amountB, amountA);
        address[] memory tokens = new address[](2);
        (tokens[0], tokens[1]) = (token0, token1);
        uint256[] memory weights = new uint256[](2);
        (weights[0], weights[1]) = (5e17, 5e17);
        address pool = IWeightedPoolFactory(venues.balancerWeightedPoolFactory)
            .create("pool", "BPT", tokens, weights, new address[](2), 3e15, address(0));
        poolId = IBalancerPool(pool).getPoolId();
        uint256[] memory amounts = new uint256[](2);
        (amounts[0], amounts[1]) = (amount0, amount1);
        _mint(token0, address(this), amount0);
        _mint(token1, address(this), amount1);
        _approveMax(token0, venues.balancerVault);
        _approveMax(token1, venues.balancerVault);
        IBalancerVault(venues.balancerVault)
            .joinPool(
                poolId,
                address(this),
                address(this),
                JoinPoolRequest(tokens, amounts, abi.encode(uint256(0), amounts), false)
            );
    }

    /// @dev Approves through a low-level call: works for tokens that return no bool.
    function _approveMax(address token, address spender) internal {
        (bool ok,) = token.call(abi.encodeWithSelector(IERC20.approve.selector, spender, type(uint256).max));
        require(ok, "approve");
    }

    // ---- math ----

    /// @dev sqrt(amount1 / amount0) in Q64.96 (amounts below 2^128).
    function _sqrtPriceX96(uint256 amount0, uint256 amount1) internal pure returns (uint160) {
        return uint160(_sqrt((amount1 << 96) / amount0) << 48);
    }

    function _sqrt(uint256 x) internal pure returns (uint256 y) {
        if (x == 0) return 0;
        uint256 z = x / 2 + 1;
        y = x;
        while (z < y) {
            y = z;
            z = (x / z + z) / 2;
        }
    }

    receive() external payable {}
}
