// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {OrderFixture} from "./utils/OrderFixture.sol";
import {IUniswapV3Pool} from "./utils/VenueInterfaces.sol";
import {Hop, Path} from "../src/RouteTypes.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";
import {PriceOracle} from "../src/PriceOracle.sol";

/// @notice The price bound from a Uniswap V3 pool's time-weighted average (the owner names each token's pool of
///         the token and WETH), against an executor that trades the pool in the block of its batch, holds the price
///         for a while, or creates a pool of its own.
contract OrderExecutorTwapTest is OrderFixture {
    address internal daiPool;

    function setUp() public {
        _deployOrderWorld(true);
        // DAI at 3,000 per WETH, 64 observations, an hour of history.
        daiPool = _v3Pool(address(dai), address(weth), 30_000_000e18, 10_000e18);
        IUniswapV3Pool(daiPool).increaseObservationCardinalityNext(64);
        vm.warp(block.timestamp + 1 hours);
        _refreshFeeds();
        oracle.setOracle(address(dai), oracle.ORACLE_V3_WETH_POOL(), daiPool);
        poolPriced[address(dai)] = true;
    }

    function _refreshFeeds() internal {
        for (uint256 t; t < tokens.length; ++t) {
            feedOf[tokens[t]].set(feedOf[tokens[t]].answer(), block.timestamp);
        }
    }

    /// @notice Pays a swap of _v3Swap by minting what the pool asks for.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external {
        IUniswapV3Pool pool = IUniswapV3Pool(msg.sender);
        if (amount0Delta > 0) _mint(pool.token0(), msg.sender, uint256(amount0Delta));
        if (amount1Delta > 0) _mint(pool.token1(), msg.sender, uint256(amount1Delta));
    }

    /// @dev Sells `amountIn` of tokenIn into the pool as an outsider (the executor).
    function _v3Swap(address pool, address tokenIn, uint256 amountIn) internal {
        bool zeroForOne = tokenIn == IUniswapV3Pool(pool).token0();
        IUniswapV3Pool(pool)
            .swap(
                executor,
                zeroForOne,
                int256(amountIn),
                zeroForOne ? 4295128740 : 1461446703485210103287273052203988822378723970341,
                ""
            );
    }

    /// @dev WETH per DAI base unit (Q128) from the pool's current price.
    function _spotWethPerDai(address pool) internal view returns (uint256) {
        (bool ok, bytes memory data) = pool.staticcall(abi.encodeWithSignature("slot0()"));
        require(ok, "slot0");
        uint160 sqrtPrice = abi.decode(data, (uint160));
        uint256 token1PerToken0X128 = (uint256(sqrtPrice) * uint256(sqrtPrice)) >> 64;
        return address(dai) < address(weth) ? token1PerToken0X128 : (type(uint256).max / token1PerToken0X128);
    }

    function _daiToWethGroup(uint256 amountIn) internal view returns (OrderExecutor.Group memory g) {
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](2);
        orders[0] = _signedOrder(makers[0], 2, amountIn, 0, bytes32("twap0"));
        orders[1] = _signedOrder(makers[2], 2, amountIn / 2 + 1, 0, bytes32("twap1"));
        Path[] memory paths = new Path[](1);
        Hop[] memory hops = new Hop[](1);
        hops[0] = Hop(1, address(weth), 3000, address(0), "");
        paths[0] = Path(1, hops);
        g = OrderExecutor.Group(address(dai), NATIVE, paths, orders);
    }

    function test_BoundIsThePoolsAverage() public view {
        uint256 bound_ = oe.priceBound(address(dai), address(weth));
        uint256 spot = _spotWethPerDai(daiPool);
        // The mean tick is an integer: within one tick (1 bp) of the unchanged price.
        vm.assertApproxEqAbs(bound_, spot, spot / 5_000, "bound = the pool's price");
        vm.assertGt(oe.priceBound(address(dai), address(usdc)), 0, "DAI in USDC through WETH's USD feed");
    }

    /// @dev Trading the pool in the batch's block leaves the average exactly where it was: the executor's own
    ///      trade, then minAmountOut 0 through the moved pool, pays every maker at least the bound or fails it.
    function testFuzz_SameBlockTradeDoesNotMoveTheBound(uint256 pump, bool sellDai, uint256 amountSeed) public {
        uint256 before = oe.priceBound(address(dai), address(weth));
        if (sellDai) _v3Swap(daiPool, address(dai), bound(pump, 1e18, 20_000_000e18));
        else _v3Swap(daiPool, address(weth), bound(pump, 1e15, 8_000e18));
        vm.assertEq(oe.priceBound(address(dai), address(weth)), before, "same-block trade: bound unchanged");

        OrderExecutor.Group memory g = _daiToWethGroup(bound(amountSeed, 1e18, 50_000e18));
        executeChecked(_one(g), block.timestamp + 60);
        _assertNoViolation();
        for (uint256 k; k < 2; ++k) {
            if (!_executed(g, k)) {
                vm.assertEq(keccak256(bytes(_failure(g, k))), keccak256("BELOW_PRICE_BOUND"), "or below the bound");
                continue;
            }
            vm.assertGe(
                _paid(g, k),
                (((g.orders[k].amountIn * before) >> 128) * (10_000 - MAX_DEVIATION_BPS)) / 10_000,
                "paid at least the pre-trade bound"
            );
        }
    }

    /// @dev Holding a moved price for `held` seconds moves the bound by about held / window of the move, never
    ///      beyond the moved price.
    function testFuzz_HeldPriceMovesTheBoundGradually(uint256 pump, uint256 held) public {
        uint256 before = oe.priceBound(address(dai), address(weth));
        _v3Swap(daiPool, address(dai), bound(pump, 1_000_000e18, 20_000_000e18));
        uint256 moved = _spotWethPerDai(daiPool);
        vm.warp(block.timestamp + bound(held, 1, 1800));
        _refreshFeeds();
        uint256 afterwards = oe.priceBound(address(dai), address(weth));
        vm.assertLe(afterwards, before, "selling DAI only lowers DAI's bound");
        vm.assertGe(afterwards + afterwards / 5_000, moved, "never below the moved price");
    }

    /// @dev A pool anyone creates (another fee tier, any price, any depth, any age) never sets the bound.
    function testFuzz_PoolsNobodyNamedAreIgnored(uint256 price, uint256 age) public {
        uint256 before = oe.priceBound(address(dai), address(weth));
        price = bound(price, 1, 1e6);
        _v3PoolAt(10_000, 200, address(dai), address(weth), 1_000_000e18 * price, 1_000_000e18);
        vm.warp(block.timestamp + bound(age, 1, 30 days));
        _refreshFeeds();
        vm.assertApproxEqAbs(oe.priceBound(address(dai), address(weth)), before, before / 5_000, "bound unchanged");
    }

    /// @dev Only the factory's pool of the token and WETH can be named, never for WETH itself, and only by the
    ///      oracle's owner; a kind other than none needs a source, and none clears it.
    function test_OnlyAGenuineWethPoolCanBeNamed() public {
        uint8 poolKind = oracle.ORACLE_V3_WETH_POOL();
        uint8 feedKind = oracle.ORACLE_USD_FEED();
        address usdcPool = _v3Pool(address(usdc), address(dai), 1_000_000e6, 1_000_000e18);
        vm.expectRevert(PriceOracle.BadOracle.selector);
        oracle.setOracle(address(usdc), poolKind, usdcPool);
        vm.expectRevert(PriceOracle.BadOracle.selector);
        oracle.setOracle(address(weth), poolKind, daiPool);
        vm.expectRevert(PriceOracle.BadOracle.selector);
        oracle.setOracle(address(usdc), poolKind, daiPool);
        vm.expectRevert(PriceOracle.BadOracle.selector);
        oracle.setOracle(address(usdc), 3, address(feedOf[address(usdc)]));
        vm.expectRevert(PriceOracle.BadOracle.selector);
        oracle.setOracle(address(usdc), feedKind, address(0));
        vm.prank(executor);
        vm.expectRevert();
        oracle.setOracle(address(dai), feedKind, address(feedOf[address(dai)]));

        (uint8 kind, address source) = oracle.oracleOf(address(dai));
        vm.assertEq(uint256(kind), poolKind, "DAI priced by its pool");
        vm.assertEq(source, daiPool, "the named pool");
        oracle.setOracle(address(dai), oracle.ORACLE_NONE(), daiPool);
        (kind, source) = oracle.oracleOf(address(dai));
        vm.assertEq(uint256(kind), 0, "none");
        vm.assertEq(source, address(0), "none keeps no source");
        vm.assertEq(oe.priceBound(address(dai), address(weth)), 0, "no source, no bound");
    }
}
