// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AdversarialRoutes} from "./utils/AdversarialRoutes.sol";
import {RouterFixture} from "./utils/RouterFixture.sol";
import {MintableToken} from "./mocks/Tokens.sol";
import {Path} from "../src/RouteTypes.sol";
import {PathExecutor} from "../src/PathExecutor.sol";
import {SwapRouter} from "../src/SwapRouter.sol";
import {TokenSpender} from "../src/TokenSpender.sol";
import {TestExternalSource} from "../src/test/TestExternalSource.sol";
import {TestSwapCaller} from "../src/test/TestSwapCaller.sol";

/// @notice SwapRouter and TokenSpender over Uniswap V2 pairs, our StableSwap pools and a whitelisted external
///         source: fuzzed amounts, fees, splits and minimums, native in and out, and adversarial routes.
contract SwapRouterTest is RouterFixture {
    MintableToken internal dai;
    MintableToken internal usdc;
    address internal stableDaiUsdc;
    TestExternalSource internal source;

    address internal alice = address(0xA11CE);
    address internal mallory = address(0xBAD);

    function setUp() public {
        _deployWeth();
        _deployV2();
        _deployStableSwap();
        _deployRouter();
        dai = new MintableToken("DAI", 18);
        usdc = new MintableToken("USDC", 6);
        vm.label(address(dai), "DAI");
        vm.label(address(usdc), "USDC");
        _track(address(dai));
        _track(address(usdc));

        // 10M a side; WETH at 3,000 USD.
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(dai), address(usdc), 10_000_000e18, 10_000_000e6));
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(dai), address(weth), 9_000_000e18, 3_000e18));
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(weth), address(usdc), 3_000e18, 9_000_000e6));
        stableDaiUsdc = _stablePool(address(dai), address(usdc), 10_000_000e18, 10_000_000e6);
        _trackApprovalTarget(stableDaiUsdc);

        source = new TestExternalSource();
        router.setSourceWhitelisted(address(source), true);
        _trackApprovalTarget(address(source));
        _mint(address(dai), address(source), 1_000_000e18);
        _mint(address(usdc), address(source), 1_000_000e6);

        _fundBystanders(1_000_000e18);
    }

    // ---- fuzz: single hop, fees and minimum ----

    function testFuzz_V2SingleHopPaysQuoteMinusFees(
        uint256 amountIn,
        uint32 pips,
        uint16 integratorBps,
        uint256 minOutSeed,
        bool daiToUsdc
    ) public {
        (address tokenIn, address tokenOut) = daiToUsdc ? (address(dai), address(usdc)) : (address(usdc), address(dai));
        amountIn = bound(amountIn, daiToUsdc ? 1e12 : 1, daiToUsdc ? 1_000_000e18 : 1_000_000e6);
        pips = uint32(bound(pips, 0, router.MAX_PROTOCOL_FEE_PIPS()));
        router.setProtocolFee(pips, protocolRecipient);
        integratorBps = uint16(bound(integratorBps, 0, router.MAX_INTEGRATOR_FEE_BPS()));

        uint256 gross = _v2Quote(venues.uniswapV2Factory, tokenIn, tokenOut, amountIn);
        uint256 net = gross - (gross * pips) / 1_000_000 - (gross * integratorBps) / 10_000;
        uint256 minOut = bound(minOutSeed, 0, net + net / 10 + 1);

        SwapRouter.SwapParams memory p = _params(alice, tokenIn, tokenOut, amountIn, minOut, _single(_v2Hop(tokenOut)));
        p.integratorFeeBps = integratorBps;
        p.integratorFeeRecipient = integratorRecipient;
        SwapOutcome memory o = _fundAndSwap(alice, p);

        if (gross == 0) {
            vm.assertFalse(o.ok, "a zero V2 output reverts in the pair");
        } else if (minOut > net) {
            vm.assertFalse(o.ok, "below minimum reverts");
            vm.assertEq(
                bytes32(o.revertData),
                bytes32(abi.encodeWithSelector(SwapRouter.InsufficientOutput.selector, net, minOut)),
                "InsufficientOutput(amountOut, minAmountOut)"
            );
        } else {
            vm.assertTrue(o.ok, "swap succeeds");
            vm.assertEq(o.gross, gross, "gross = V2 quote");
            vm.assertEq(o.amountOut, net, "net = gross - fees");
        }
    }

    /// @dev The exact minimum passes, one more reverts, and the result does not depend on the minimum.
    function testFuzz_SplitMultiHopMinimumIsExact(uint256 amountIn, uint64 w0, uint64 w1, uint64 w2) public {
        amountIn = bound(amountIn, 1e6, 2_000_000e18);
        Path[] memory paths = new Path[](3);
        paths[0] = Path(w0, _hops(_v2Hop(address(usdc))));
        paths[1] = Path(w1, _hops(_stableHop(address(usdc), stableDaiUsdc)));
        paths[2] = Path(w2, _hops(_v2Hop(address(weth)), _v2Hop(address(usdc))));
        SwapRouter.SwapParams memory p = _params(alice, address(dai), address(usdc), amountIn, 0, paths);

        uint256 snapshot = vm.snapshotState();
        SwapOutcome memory probe = _fundAndSwap(alice, p);
        vm.revertToState(snapshot);
        if (uint256(w0) + w1 + w2 == 0) {
            vm.assertFalse(probe.ok, "all weights zero: BadPath");
            vm.assertEq(bytes4(probe.revertData), PathExecutor.BadPath.selector, "BadPath");
            return;
        }
        if (!probe.ok) {
            // Only a dust share can fail: a V2 pair refuses to pay a zero output.
            uint256 total = uint256(w0) + w1 + w2;
            uint256 share0 = (amountIn * w0) / total;
            uint256 share1 = (amountIn * w1) / total;
            uint256 share2 = amountIn - share0 - share1;
            vm.assertTrue(
                (share0 > 0 && share0 < 1e15) || (share2 > 0 && share2 < 1e15),
                "only a dust share of a V2 path may fail"
            );
            vm.assertEq(
                keccak256(probe.revertData),
                keccak256(abi.encodeWithSignature("Error(string)", "UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT")),
                "the pair's zero-output revert"
            );
            return;
        }

        snapshot = vm.snapshotState();
        p.minAmountOut = probe.amountOut + 1;
        SwapOutcome memory tooHigh = _fundAndSwap(alice, p);
        vm.assertFalse(tooHigh.ok, "minimum one above the output reverts");
        vm.revertToState(snapshot);

        p.minAmountOut = probe.amountOut;
        SwapOutcome memory exact = _fundAndSwap(alice, p);
        vm.assertTrue(exact.ok, "exact minimum passes");
        vm.assertEq(exact.amountOut, probe.amountOut, "same output");
    }

    // ---- native coin ----

    function testFuzz_NativeInput(uint256 amountIn, uint16 integratorBps) public {
        amountIn = bound(amountIn, 1e9, 300 ether);
        integratorBps = uint16(bound(integratorBps, 0, 100));
        SwapRouter.SwapParams memory p =
            _params(alice, NATIVE, address(usdc), amountIn, 0, _single(_v2Hop(address(usdc))));
        p.integratorFeeBps = integratorBps;
        p.integratorFeeRecipient = integratorRecipient;
        uint256 gross = _v2Quote(venues.uniswapV2Factory, address(weth), address(usdc), amountIn);
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "native input swaps");
        vm.assertEq(o.gross, gross, "gross = quote of the WETH pair");
    }

    function testFuzz_NativeOutput(uint256 amountIn, uint16 integratorBps) public {
        amountIn = bound(amountIn, 1e3, 1_000_000e6);
        integratorBps = uint16(bound(integratorBps, 0, 100));
        SwapRouter.SwapParams memory p =
            _params(alice, address(usdc), NATIVE, amountIn, 0, _single(_v2Hop(address(weth))));
        p.integratorFeeBps = integratorBps;
        p.integratorFeeRecipient = integratorRecipient;
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "native output swaps");
    }

    function testFuzz_NativeValueMustMatch(uint256 amountIn, uint256 value) public {
        amountIn = bound(amountIn, 1, 10 ether);
        value = bound(value, 0, 20 ether);
        vm.assume(value != amountIn);
        vm.deal(alice, value);
        SwapRouter.SwapParams memory p =
            _params(alice, NATIVE, address(usdc), amountIn, 0, _single(_v2Hop(address(usdc))));
        SwapOutcome memory o = _swapChecked(alice, p, value);
        vm.assertEq(bytes4(o.revertData), SwapRouter.BadValue.selector, "native: value != amountIn");

        _mint(address(dai), alice, 1e18);
        vm.prank(alice);
        _approveMaxFrom(address(dai), address(spender));
        p = _params(alice, address(dai), address(usdc), 1e18, 0, _single(_v2Hop(address(usdc))));
        vm.deal(alice, 1);
        o = _swapChecked(alice, p, 1);
        vm.assertEq(bytes4(o.revertData), SwapRouter.BadValue.selector, "ERC-20 input with value");
    }

    function test_NativeOutputToRejectingContractReverts() public {
        TestSwapCaller wallet = new TestSwapCaller();
        wallet.setReceiveMode(wallet.REJECT(), address(0), "");
        SwapRouter.SwapParams memory p =
            _params(address(wallet), address(usdc), NATIVE, 1_000e6, 0, _single(_v2Hop(address(weth))));
        SwapOutcome memory o = _fundAndSwap(address(wallet), p);
        vm.assertFalse(o.ok, "payout refused");
        vm.assertEq(bytes4(o.revertData), PathExecutor.NativeTransferFailed.selector, "NativeTransferFailed");
    }

    // ---- who can move whose tokens ----

    function testFuzz_OnlyTheAccountCanSwap(address caller) public {
        vm.assume(caller != alice);
        _mint(address(dai), alice, 1e18);
        vm.prank(alice);
        _approveMaxFrom(address(dai), address(spender));
        SwapRouter.SwapParams memory p =
            _params(alice, address(dai), address(usdc), 1e18, 0, _single(_v2Hop(address(usdc))));
        vm.prank(caller);
        vm.expectRevert(SwapRouter.NotAccount.selector);
        router.swap(p);
    }

    function testFuzz_SpenderPullsOnlyForItsCallers(address caller, address to, uint256 amount) public {
        vm.assume(caller != address(router));
        vm.prank(caller);
        vm.expectRevert(abi.encodeWithSelector(TokenSpender.NotCaller.selector, caller));
        spender.pull(address(dai), bob, to, amount);
        vm.prank(caller);
        vm.expectRevert();
        spender.setCaller(caller, true);
    }

    function test_ForbiddenSources() public {
        address[4] memory forbidden = [address(spender), address(router), address(weth), address(0)];
        for (uint256 i; i < forbidden.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(PathExecutor.ForbiddenSource.selector, forbidden[i]));
            router.setSourceWhitelisted(forbidden[i], true);
        }
        vm.prank(mallory);
        vm.expectRevert();
        router.setSourceWhitelisted(address(0x1234), true);
        vm.prank(mallory);
        vm.expectRevert();
        router.setProtocolFee(0, address(0));
    }

    function testFuzz_ProtocolFeeCapped(uint32 pips, address recipient) public {
        if (pips > router.MAX_PROTOCOL_FEE_PIPS() || (pips > 0 && recipient == address(0))) {
            vm.expectRevert(SwapRouter.BadFee.selector);
            router.setProtocolFee(pips, recipient);
        } else {
            router.setProtocolFee(pips, recipient);
            vm.assertEq(router.protocolFeePips(), pips, "pips set");
        }
    }

    function testFuzz_ParameterChecks(uint16 integratorBps, uint256 late) public {
        _mint(address(dai), alice, 1e18);
        vm.prank(alice);
        _approveMaxFrom(address(dai), address(spender));
        SwapRouter.SwapParams memory p =
            _params(alice, address(dai), address(usdc), 1e18, 0, _single(_v2Hop(address(usdc))));

        p.integratorFeeBps = uint16(bound(integratorBps, 101, type(uint16).max));
        p.integratorFeeRecipient = integratorRecipient;
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), SwapRouter.BadFee.selector, "integrator fee > 1%");
        p.integratorFeeBps = uint16(bound(integratorBps, 1, 100));
        p.integratorFeeRecipient = address(0);
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), SwapRouter.BadFee.selector, "fee to nobody");
        p.integratorFeeBps = 0;

        p.deadline = block.timestamp - 1;
        vm.warp(block.timestamp + bound(late, 0, 365 days));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), SwapRouter.Expired.selector, "past deadline");
        p.deadline = block.timestamp;

        p.amountIn = 0;
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), SwapRouter.ZeroAmount.selector, "zero amount");
        p.amountIn = 1e18;

        p.paths = new Path[](0);
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.BadPath.selector, "no path");
        p.paths = _single(_v2Hop(address(weth)));
        vm.assertEq(bytes4(_swapChecked(alice, p, 0).revertData), PathExecutor.BadPath.selector, "path ends elsewhere");
    }

    // ---- external source (hop kind 2) ----

    function testFuzz_ExternalSourceMustTakeExactlyTheInput(uint256 amountIn, uint256 taken, uint256 paid) public {
        amountIn = bound(amountIn, 1, 100_000e18);
        taken = bound(taken, 0, amountIn);
        paid = bound(paid, 0, 100_000e6);
        bytes memory data = abi.encodeCall(TestExternalSource.fill, (address(dai), address(usdc), taken, paid));
        SwapRouter.SwapParams memory p = _params(
            alice, address(dai), address(usdc), amountIn, 0, _single(_hop(2, address(usdc), 0, address(source), data))
        );
        SwapOutcome memory o = _fundAndSwap(alice, p);
        if (taken != amountIn) {
            vm.assertEq(bytes4(o.revertData), PathExecutor.PartialFill.selector, "partial take reverts");
        } else {
            vm.assertTrue(o.ok, "exact take swaps");
            vm.assertEq(o.gross, paid, "gross = what the source paid");
        }
    }

    function test_NotWhitelistedSourceReverts() public {
        TestExternalSource other = new TestExternalSource();
        bytes memory data = abi.encodeCall(TestExternalSource.fill, (address(dai), address(usdc), 1e18, 1e6));
        SwapRouter.SwapParams memory p = _params(
            alice, address(dai), address(usdc), 1e18, 0, _single(_hop(2, address(usdc), 0, address(other), data))
        );
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertEq(
            bytes32(o.revertData),
            bytes32(abi.encodeWithSelector(PathExecutor.SourceNotWhitelisted.selector, address(other))),
            "SourceNotWhitelisted"
        );
    }

    /// @dev A source that reenters the router or calls the spender during the swap gets nothing.
    function testFuzz_SourceReentryFails(uint256 amount, bool viaSpender) public {
        amount = bound(amount, 1, 1_000e18);
        bytes memory reentry = viaSpender
            ? abi.encodeCall(TokenSpender.pull, (address(dai), bob, address(source), amount))
            : abi.encodeCall(
                SwapRouter.swap,
                (_params(address(source), address(dai), address(usdc), amount, 0, _single(_v2Hop(address(usdc)))))
            );
        source.setReentry(viaSpender ? address(spender) : address(router), reentry);
        bytes memory data = abi.encodeCall(TestExternalSource.fill, (address(dai), address(usdc), 1e18, 1e6));
        SwapRouter.SwapParams memory p = _params(
            alice, address(dai), address(usdc), 1e18, 0, _single(_hop(2, address(usdc), 0, address(source), data))
        );
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertFalse(o.ok, "reentry fails the swap");
    }

    // ---- adversarial routes ----

    /// @dev Whatever route, tokens and data mallory sends, bob (approved the spender) and carol (approved the
    ///      router) lose nothing, and the router and spender keep nothing.
    function testFuzz_AdversarialRouteTouchesNoBystander(uint256 seed, uint256 amountIn, uint8 tokenInIndex) public {
        address[4] memory inputs = [address(dai), address(usdc), address(weth), NATIVE];
        address tokenIn = inputs[tokenInIndex % 4];
        amountIn = bound(amountIn, 1, 1_000e18);
        if (tokenIn == address(weth)) {
            vm.deal(mallory, amountIn);
            vm.prank(mallory);
            weth.deposit{value: amountIn}();
            vm.prank(mallory);
            weth.approve(address(spender), type(uint256).max);
        } else if (tokenIn != NATIVE) {
            _mint(tokenIn, mallory, amountIn);
            vm.prank(mallory);
            _approveMaxFrom(tokenIn, address(spender));
        } else {
            vm.deal(mallory, amountIn);
        }
        address tokenOut = inputs[(seed >> 8) % 4];
        SwapRouter.SwapParams memory p = _params(mallory, tokenIn, tokenOut, amountIn, 0, _randomPaths(seed));
        if (seed % 5 == 0) {
            p.integratorFeeBps = 100;
            p.integratorFeeRecipient = mallory;
        }
        bytes32 bystanders = _bystanderState();
        vm.prank(mallory);
        try router.swap{value: tokenIn == NATIVE ? amountIn : 0}(p) {} catch {}
        _assertNothingHeld();
        vm.assertEq(_bystanderState(), bystanders, "bystanders untouched");
    }

    function _randomPaths(uint256 seed) internal view returns (Path[] memory) {
        address[] memory outs = new address[](8);
        (outs[0], outs[1], outs[2], outs[3]) = (address(dai), address(usdc), address(weth), NATIVE);
        (outs[4], outs[5], outs[6], outs[7]) = (address(spender), address(router), bob, address(0));
        address[] memory targets = new address[](7);
        (targets[0], targets[1], targets[2], targets[3]) =
        (address(source), stableDaiUsdc, address(spender), address(router));
        (targets[4], targets[5], targets[6]) = (address(dai), address(0), bob);
        // Calldata an attacker would try: pulling from a bystander, filling from the source, or junk.
        uint256 amount = (seed >> 40) % 2_000e18;
        bytes[] memory datas = new bytes[](6);
        datas[0] = abi.encodeCall(TokenSpender.pull, (address(dai), bob, mallory, amount));
        datas[1] = abi.encodeWithSignature("transferFrom(address,address,uint256)", carol, mallory, amount);
        datas[2] = abi.encodeCall(TestExternalSource.fill, (address(dai), address(usdc), amount, amount % 1e9));
        datas[3] = abi.encode(int24(60));
        datas[4] = abi.encode(bytes32(seed));
        datas[5] = "";
        return AdversarialRoutes.randomPaths(seed, outs, targets, datas);
    }
}
