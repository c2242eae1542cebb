// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RouterFixture} from "./utils/RouterFixture.sol";
import {IUniswapV2Factory} from "./utils/VenueInterfaces.sol";
import {MintableToken} from "./mocks/Tokens.sol";
import {Hop, Path} from "../src/RouteTypes.sol";
import {PathExecutor} from "../src/PathExecutor.sol";
import {StableSwapPool} from "../src/StableSwapPool.sol";
import {SwapRouter} from "../src/SwapRouter.sol";

/// @notice Every hop kind through the venues' real builds: Uniswap V2 (0), Uniswap V3 (1), SushiSwap V2 (3),
///         Uniswap V4 (4), Balancer V2 weighted (5) and our StableSwap (6); the external source (2) is in
///         SwapRouter.t.sol. Each fuzzed amount must move exactly amountIn into the venue and exactly the output
///         the venue paid out to the account (less fees), and leave nothing in the router.
contract HopKindsTest is RouterFixture {
    MintableToken internal dai;
    MintableToken internal usdc;
    address internal stablePool;
    address internal v3Pool;
    bytes32 internal balancerPoolId;

    address internal alice = address(0xA11CE);

    function setUp() public {
        // Uniswap V4's PoolManager runs transient storage; our contracts are built for Shanghai and run unchanged.
        vm.setEvmVersion("cancun");
        _deployWeth();
        _deployV2();
        _deploySushi();
        _deployV3();
        _deployV4();
        _deployBalancer();
        _deployStableSwap();
        _deployRouter();
        dai = new MintableToken("DAI", 18);
        usdc = new MintableToken("USDC", 6);
        _track(address(dai));
        _track(address(usdc));

        uint256 daiSide = 10_000_000e18;
        uint256 usdcSide = 10_000_000e6;
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(dai), address(usdc), daiSide, usdcSide));
        _trackApprovalTarget(_v2Pair(venues.sushiswapV2Factory, address(dai), address(usdc), daiSide, usdcSide));
        v3Pool = _v3Pool(address(dai), address(usdc), daiSide, usdcSide);
        _trackApprovalTarget(v3Pool);
        _v3Pool(address(weth), address(usdc), 3_000e18, 9_000_000e6);
        _v4Pool(address(dai), address(usdc), daiSide, usdcSide);
        _v4Pool(address(dai), address(weth), 9_000_000e18, 3_000e18);
        _trackApprovalTarget(venues.uniswapV4PoolManager);
        balancerPoolId = _balancerPool(address(dai), address(usdc), daiSide, usdcSide);
        _trackApprovalTarget(venues.balancerVault);
        stablePool = _stablePool(address(dai), address(usdc), daiSide, usdcSide);
        _trackApprovalTarget(stablePool);
        _fundBystanders(1_000_000e18);
    }

    /// @dev Where the venue keeps the pool's tokens: what must gain exactly amountIn and lose exactly the output.
    function _custodian(uint8 kind) internal view returns (address) {
        if (kind == 0) return IUniswapV2Factory(venues.uniswapV2Factory).getPair(address(dai), address(usdc));
        if (kind == 3) return IUniswapV2Factory(venues.sushiswapV2Factory).getPair(address(dai), address(usdc));
        if (kind == 1) return v3Pool;
        if (kind == 4) return venues.uniswapV4PoolManager;
        if (kind == 5) return venues.balancerVault;
        return stablePool;
    }

    function _hopOf(uint8 kind, address tokenOut) internal view returns (Hop memory) {
        if (kind == 0) return _v2Hop(tokenOut);
        if (kind == 1) return _v3Hop(tokenOut);
        if (kind == 3) return _sushiHop(tokenOut);
        if (kind == 4) return _v4Hop(tokenOut);
        if (kind == 5) return _balancerHop(tokenOut, balancerPoolId);
        return _stableHop(tokenOut, stablePool);
    }

    /// @dev The venue's own quote where one is at hand (V2 formula, StableSwap getDy); max otherwise.
    function _expected(uint8 kind, address tokenIn, address tokenOut, uint256 amountIn)
        internal
        view
        returns (uint256)
    {
        if (kind == 0) return _v2Quote(venues.uniswapV2Factory, tokenIn, tokenOut, amountIn);
        if (kind == 3) return _v2Quote(venues.sushiswapV2Factory, tokenIn, tokenOut, amountIn);
        if (kind == 6) {
            return StableSwapPool(stablePool).getDy(tokenIn < tokenOut ? 0 : 1, tokenIn < tokenOut ? 1 : 0, amountIn);
        }
        return type(uint256).max;
    }

    function _swapThrough(uint8 kind, address tokenIn, address tokenOut, uint256 amountIn)
        internal
        returns (SwapOutcome memory)
    {
        Path[] memory paths = _single(_hopOf(kind, tokenOut));
        return _fundAndSwap(alice, _params(alice, tokenIn, tokenOut, amountIn, 0, paths));
    }

    function _checkKind(uint8 kind, uint256 amountIn, bool daiToUsdc) internal {
        (address tokenIn, address tokenOut) = daiToUsdc ? (address(dai), address(usdc)) : (address(usdc), address(dai));
        amountIn = bound(amountIn, daiToUsdc ? 1e13 : 10, daiToUsdc ? 2_000_000e18 : 2_000_000e6);
        address custodian = _custodian(kind);
        uint256[2] memory held = [IERC20(tokenIn).balanceOf(custodian), IERC20(tokenOut).balanceOf(custodian)];
        uint256 expected = _expected(kind, tokenIn, tokenOut, amountIn);

        SwapOutcome memory o = _swapThrough(kind, tokenIn, tokenOut, amountIn);
        vm.assertTrue(o.ok, "swap through the venue succeeds");
        vm.assertEq(IERC20(tokenIn).balanceOf(custodian) - held[0], amountIn, "venue received exactly amountIn");
        vm.assertEq(held[1] - IERC20(tokenOut).balanceOf(custodian), o.gross, "venue paid exactly the gross output");
        if (expected != type(uint256).max) vm.assertEq(o.gross, expected, "gross = the venue's own quote");
        // 10M a side at 1:1: no venue pays more than the amount at the pools' price (plus rounding).
        uint256 inAsOut = daiToUsdc ? amountIn / 1e12 : amountIn * 1e12;
        vm.assertLe(o.gross, inAsOut + inAsOut / 1000 + 1, "no venue pays more than the price");
    }

    function testFuzz_UniswapV2(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(0, amountIn, daiToUsdc);
    }

    function testFuzz_UniswapV3(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(1, amountIn, daiToUsdc);
    }

    function testFuzz_SushiSwapV2(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(3, amountIn, daiToUsdc);
    }

    function testFuzz_UniswapV4(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(4, amountIn, daiToUsdc);
    }

    function testFuzz_BalancerWeighted(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(5, amountIn, daiToUsdc);
    }

    function testFuzz_StableSwap(uint256 amountIn, bool daiToUsdc) public {
        _checkKind(6, amountIn, daiToUsdc);
    }

    /// @dev One swap split over all six venues with fuzzed weights, plus a two-hop V4 → V3 path through WETH.
    function testFuzz_SplitOverEveryVenue(uint256 amountIn, uint256 weightSeed) public {
        amountIn = bound(amountIn, 1e18, 3_000_000e18);
        uint8[6] memory kinds = [0, 1, 3, 4, 5, 6];
        Path[] memory paths = new Path[](7);
        for (uint256 i; i < 6; ++i) {
            // Weight 0 (the path carries nothing) or at least 1/70 of the total: no share is dust a pool refuses.
            uint256 weight = (weightSeed >> (i * 16)) % 1000;
            paths[i] = Path(weight < 100 ? 0 : weight, _hops(_hopOf(kinds[i], address(usdc))));
        }
        paths[6] = Path(100 + ((weightSeed >> 128) % 900), _hops(_v4Hop(address(weth)), _v3Hop(address(usdc))));
        SwapRouter.SwapParams memory p = _params(alice, address(dai), address(usdc), amountIn, 0, paths);
        p.integratorFeeBps = 100;
        p.integratorFeeRecipient = integratorRecipient;
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "split swap succeeds");
    }

    /// @dev A pool the configured venue did not create is never swapped through.
    function test_PoolsOutsideTheVenuesAreRefused() public {
        _mint(address(dai), alice, 3e18);
        vm.prank(alice);
        _approveMaxFrom(address(dai), address(spender));

        // A StableSwap pool deployed directly (not by the factory), and the factory's pool named for another pair.
        StableSwapPool rogue = new StableSwapPool(
            address(dai) < address(usdc) ? address(dai) : address(usdc),
            address(dai) < address(usdc) ? address(usdc) : address(dai),
            2000,
            4e6
        );
        SwapRouter.SwapParams memory p =
            _params(alice, address(dai), address(usdc), 1e18, 0, _single(_stableHop(address(usdc), address(rogue))));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.NotPool.selector, "rogue stable pool");
        p.paths = _single(_stableHop(address(weth), stablePool));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.NotPool.selector, "wrong pair");

        // Pairs that do not exist on a venue, and an unknown hop kind.
        p.tokenOut = address(weth);
        p.paths = _single(_v2Hop(address(weth)));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.BadPath.selector, "no V2 pair");
        p.paths = _single(_v3Hop(address(weth)));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.BadPath.selector, "no V3 pool");
        p.paths = _single(Hop(7, address(weth), 0, address(0), ""));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.BadPath.selector, "unknown kind");
    }

    /// @dev The V3 swap callback pays only a genuine pool of the factory; anyone else calling it gets a revert.
    function testFuzz_V3CallbackRefusesStrangers(address caller, int256 amount0, int256 amount1, uint24 fee) public {
        vm.assume(caller != v3Pool);
        vm.prank(caller);
        vm.expectRevert();
        router.uniswapV3SwapCallback(amount0, amount1, abi.encode(address(dai), address(usdc), fee));
        vm.prank(caller);
        vm.expectRevert(PathExecutor.NotPool.selector);
        router.unlockCallback(abi.encode(address(dai), address(usdc), uint24(3000), int24(60), uint256(1)));
    }

    /// @dev Only WETH may send the router native coin.
    function testFuzz_RouterRefusesNativeFromOthers(address sender, uint256 amount) public {
        vm.assume(sender != address(weth));
        amount = bound(amount, 1, 100 ether);
        vm.deal(sender, amount);
        vm.prank(sender);
        (bool ok,) = address(router).call{value: amount}("");
        vm.assertFalse(ok, "native coin refused");
    }
}
