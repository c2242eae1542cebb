// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {AdversarialRoutes} from "./utils/AdversarialRoutes.sol";
import {RouterFixture} from "./utils/RouterFixture.sol";
import {TestBase} from "./utils/TestBase.sol";
import {MintableToken} from "./mocks/Tokens.sol";
import {Hop, Path} from "../src/RouteTypes.sol";
import {SwapRouter} from "../src/SwapRouter.sol";
import {TokenSpender} from "../src/TokenSpender.sol";
import {TestExternalSource} from "../src/test/TestExternalSource.sol";
import {WrappedNative} from "../src/test/WrappedNative.sol";

/// @notice What the invariant fuzzer calls: honest swaps by three accounts over fixed routes (checked one by one),
///         adversarial swaps by mallory, protocol fee changes by the owner, and time passing.
contract SwapRouterHandler is TestBase {
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    SwapRouter internal immutable router;
    TokenSpender internal immutable spender;
    WrappedNative internal immutable weth;
    address internal immutable dai;
    address internal immutable usdc;
    address internal immutable stablePool;
    address internal immutable source;
    address internal immutable owner;
    address internal immutable bob;
    address internal immutable carol;
    address internal immutable integratorRecipient = address(0xFEE2);
    address internal constant MALLORY = address(0xBAD);

    uint256 public swaps;
    uint256 public reverted;
    uint256 public attacks;
    /// @notice Broken promises seen by the per-swap checks (0 always).
    uint256 public violations;
    string public lastViolation;

    constructor(
        SwapRouter router_,
        WrappedNative weth_,
        address dai_,
        address usdc_,
        address stablePool_,
        address source_,
        address bob_,
        address carol_
    ) {
        router = router_;
        spender = router_.spender();
        weth = weth_;
        (dai, usdc, stablePool, source) = (dai_, usdc_, stablePool_, source_);
        owner = msg.sender;
        (bob, carol) = (bob_, carol_);
    }

    function _violation(string memory what) internal {
        ++violations;
        lastViolation = what;
    }

    function _balance(address token, address account) internal view returns (uint256) {
        return token == NATIVE ? account.balance : IERC20(token).balanceOf(account);
    }

    function _give(address token, address to, uint256 amount) internal {
        if (token == NATIVE) {
            vm.deal(to, to.balance + amount);
        } else if (token == address(weth)) {
            vm.deal(address(this), amount);
            weth.deposit{value: amount}();
            weth.transfer(to, amount);
            vm.prank(to);
            weth.approve(address(spender), type(uint256).max);
        } else {
            MintableToken(token).mint(to, amount);
            vm.prank(to);
            IERC20(token).approve(address(spender), type(uint256).max);
        }
    }

    /// @dev Route r: (tokenIn, tokenOut, paths, amount scale).
    function _route(uint256 r)
        internal
        view
        returns (address tokenIn, address tokenOut, Path[] memory paths, uint256 unit)
    {
        paths = new Path[](1);
        Hop[] memory hops = new Hop[](1);
        r %= 6;
        if (r == 0) {
            (tokenIn, tokenOut, unit) = (dai, usdc, 1e18);
            hops[0] = Hop(0, usdc, 0, address(0), "");
        } else if (r == 1) {
            (tokenIn, tokenOut, unit) = (usdc, dai, 1e6);
            hops[0] = Hop(6, dai, 0, stablePool, "");
        } else if (r == 2) {
            (tokenIn, tokenOut, unit) = (NATIVE, usdc, 1e15);
            hops[0] = Hop(0, usdc, 0, address(0), "");
        } else if (r == 3) {
            (tokenIn, tokenOut, unit) = (usdc, NATIVE, 1e6);
            hops[0] = Hop(0, address(weth), 0, address(0), "");
        } else if (r == 4) {
            (tokenIn, tokenOut, unit) = (dai, usdc, 1e18);
            hops = new Hop[](2);
            hops[0] = Hop(0, address(weth), 0, address(0), "");
            hops[1] = Hop(0, usdc, 0, address(0), "");
        } else {
            (tokenIn, tokenOut, unit) = (dai, usdc, 1e18);
            paths = new Path[](2);
            Hop[] memory other = new Hop[](1);
            other[0] = Hop(6, usdc, 0, stablePool, "");
            paths[1] = Path(1, other);
            hops[0] = Hop(0, usdc, 0, address(0), "");
            paths[0] = Path(2, hops);
            return (tokenIn, tokenOut, paths, unit);
        }
        paths[0] = Path(1, hops);
    }

    function swap(uint256 actorSeed, uint256 routeSeed, uint256 amount, uint16 integratorBps, uint256 minOutSeed)
        external
    {
        address actor = address(uint160(0xA000 + (actorSeed % 3)));
        (address tokenIn, address tokenOut, Path[] memory paths, uint256 unit) = _route(routeSeed);
        amount = bound(amount, unit / 1000, 50_000 * unit);
        _give(tokenIn, actor, amount);
        SwapRouter.SwapParams memory p = SwapRouter.SwapParams(
            actor,
            tokenIn,
            tokenOut,
            amount,
            0,
            block.timestamp,
            uint16(bound(integratorBps, 0, 100)),
            integratorRecipient,
            paths
        );
        // The minimum: none, or near what the route pays (found by a dry run), sometimes just above it.
        uint256 snapshot = vm.snapshotState();
        bool dryRunOk;
        vm.prank(actor);
        try router.swap{value: tokenIn == NATIVE ? amount : 0}(p) returns (uint256 dryRun) {
            dryRunOk = true;
            p.minAmountOut = minOutSeed % 3 == 0 ? 0 : dryRun + (minOutSeed % 3) - 1;
        } catch {}
        vm.revertToState(snapshot);
        bool succeeded = _checkedSwap(actor, p);
        // The same swap with a minimum at most its dry run's output must succeed, one above must not.
        if (dryRunOk && succeeded != (minOutSeed % 3 != 2)) _violation("minimum not enforced exactly");
    }

    function _checkedSwap(address actor, SwapRouter.SwapParams memory p) internal returns (bool succeeded) {
        uint256 inBefore = _balance(p.tokenIn, actor);
        uint256 outBefore = _balance(p.tokenOut, actor);
        address feeToken = p.tokenOut == NATIVE ? address(weth) : p.tokenOut;
        uint256 protocolBefore = IERC20(feeToken).balanceOf(router.protocolFeeRecipient());
        vm.prank(actor);
        try router.swap{value: p.tokenIn == NATIVE ? p.amountIn : 0}(p) returns (uint256 out) {
            ++swaps;
            succeeded = true;
            uint256 received = _balance(p.tokenOut, actor) - outBefore;
            uint256 protocolFee = IERC20(feeToken).balanceOf(router.protocolFeeRecipient()) - protocolBefore;
            if (received != out) _violation("account did not receive amountOut");
            if (received < p.minAmountOut) _violation("account received less than minAmountOut");
            if (inBefore - _balance(p.tokenIn, actor) != p.amountIn) _violation("account paid other than amountIn");
            if (protocolFee > (received + protocolFee) / 99) _violation("protocol fee above 1%");
        } catch {
            ++reverted;
            if (_balance(p.tokenIn, actor) != inBefore) _violation("failed swap moved the input");
        }
    }

    function attack(uint256 seed, uint256 amount, uint8 tokenInIndex) external {
        ++attacks;
        address[4] memory inputs = [dai, usdc, address(weth), NATIVE];
        address tokenIn = inputs[tokenInIndex % 4];
        amount = bound(amount, 1, 1_000e18);
        _give(tokenIn, MALLORY, amount);
        SwapRouter.SwapParams memory p = SwapRouter.SwapParams(
            MALLORY,
            tokenIn,
            inputs[(seed >> 8) % 4],
            amount,
            0,
            block.timestamp,
            seed % 5 == 0 ? 100 : 0,
            MALLORY,
            _attackPaths(seed)
        );
        vm.prank(MALLORY);
        try router.swap{value: tokenIn == NATIVE ? amount : 0}(p) {} catch {}
    }

    function _attackPaths(uint256 seed) internal view returns (Path[] memory) {
        address[] memory outs = new address[](7);
        (outs[0], outs[1], outs[2], outs[3]) = (dai, usdc, address(weth), NATIVE);
        (outs[4], outs[5], outs[6]) = (address(spender), bob, address(0));
        address[] memory targets = new address[](6);
        (targets[0], targets[1], targets[2]) = (source, stablePool, address(spender));
        (targets[3], targets[4], targets[5]) = (address(router), dai, carol);
        uint256 amount = (seed >> 40) % 2_000e18;
        bytes[] memory datas = new bytes[](5);
        datas[0] = abi.encodeCall(TokenSpender.pull, (dai, bob, MALLORY, amount));
        datas[1] = abi.encodeWithSignature("transferFrom(address,address,uint256)", carol, MALLORY, amount);
        datas[2] = abi.encodeCall(TestExternalSource.fill, (dai, usdc, amount, amount % 1e9));
        datas[3] = abi.encode(int24(60));
        datas[4] = "";
        return AdversarialRoutes.randomPaths(seed, outs, targets, datas);
    }

    function setProtocolFee(uint32 pips) external {
        vm.prank(owner);
        router.setProtocolFee(uint32(bound(pips, 0, router.MAX_PROTOCOL_FEE_PIPS())), address(0xFEE1));
    }

    function wait(uint256 seconds_) external {
        vm.warp(block.timestamp + bound(seconds_, 1, 1 days));
    }

    receive() external payable {}
}

/// @notice Invariants of SwapRouter + TokenSpender under honest and adversarial swaps.
contract SwapRouterInvariantTest is RouterFixture {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    MintableToken internal dai;
    MintableToken internal usdc;
    SwapRouterHandler internal handler;
    bytes32 internal bystandersAtStart;

    function setUp() public {
        _deployWeth();
        _deployV2();
        _deployStableSwap();
        _deployRouter();
        dai = new MintableToken("DAI", 18);
        usdc = new MintableToken("USDC", 6);
        _track(address(dai));
        _track(address(usdc));
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(dai), address(usdc), 10_000_000e18, 10_000_000e6));
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(dai), address(weth), 9_000_000e18, 3_000e18));
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(weth), address(usdc), 3_000e18, 9_000_000e6));
        address stablePool = _stablePool(address(dai), address(usdc), 10_000_000e18, 10_000_000e6);
        _trackApprovalTarget(stablePool);
        TestExternalSource source = new TestExternalSource();
        router.setSourceWhitelisted(address(source), true);
        _trackApprovalTarget(address(source));
        _mint(address(dai), address(source), 1_000_000e18);
        _mint(address(usdc), address(source), 1_000_000e6);
        _fundBystanders(1_000_000e18);
        bystandersAtStart = _bystanderState();

        handler =
            new SwapRouterHandler(router, weth, address(dai), address(usdc), stablePool, address(source), bob, carol);
        router.transferOwnership(address(handler));
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory selectors) {
        bytes4[] memory fns = new bytes4[](4);
        fns[0] = SwapRouterHandler.swap.selector;
        fns[1] = SwapRouterHandler.attack.selector;
        fns[2] = SwapRouterHandler.setProtocolFee.selector;
        fns[3] = SwapRouterHandler.wait.selector;
        selectors = new FuzzSelector[](1);
        selectors[0] = FuzzSelector(address(handler), fns);
    }

    function invariant_RouterAndSpenderHoldNothing() public view {
        _assertNothingHeld();
    }

    function invariant_BystandersNeverLose() public view {
        vm.assertEq(_bystanderState(), bystandersAtStart, "bob and carol untouched");
    }

    function invariant_EverySwapKeptItsPromises() public view {
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
    }

    /// @dev The handler's swaps are not vacuous: from the start state they succeed (and one above its minimum fails).
    function test_HandlerSwapsSucceed() public {
        for (uint256 i; i < 12; ++i) {
            handler.swap(i, i, 1e30 + i, 50, i);
        }
        vm.assertGt(handler.swaps(), 0, "some swaps succeeded");
        vm.assertGt(handler.reverted(), 0, "some swaps reverted");
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
    }
}
