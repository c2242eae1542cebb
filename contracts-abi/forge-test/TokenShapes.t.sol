// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterFixture} from "./utils/RouterFixture.sol";
import {BlacklistToken, FeeOnTransferToken, MintableToken, NoBoolToken} from "./mocks/Tokens.sol";
import {Path} from "../src/RouteTypes.sol";
import {SwapRouter} from "../src/SwapRouter.sol";
import {TestExternalSource} from "../src/test/TestExternalSource.sol";

/// @notice SwapRouter with tokens that are not plain ERC-20s: USDT's no-bool transfers, a 1% fee-on-transfer
///         token and a token that freezes blacklisted addresses, through Uniswap V2 pairs, our StableSwap pools
///         and an external source.
contract TokenShapesTest is RouterFixture {
    MintableToken internal dai;
    NoBoolToken internal noBool;
    FeeOnTransferToken internal fot;
    BlacklistToken internal frozen;
    TestExternalSource internal source;
    address internal stableNoBool;
    address internal stableFrozen;

    address internal alice = address(0xA11CE);

    function setUp() public {
        _deployWeth();
        _deployV2();
        _deployStableSwap();
        _deployRouter();
        dai = new MintableToken("DAI", 18);
        noBool = new NoBoolToken();
        fot = new FeeOnTransferToken("FOT", 100);
        frozen = new BlacklistToken("FRZ", 6);
        _track(address(dai));
        _track(address(noBool));
        _track(address(fot));
        _track(address(frozen));
        lossyTransfers[address(fot)] = true;

        _trackApprovalTarget(
            _v2Pair(venues.uniswapV2Factory, address(noBool), address(dai), 10_000_000e6, 10_000_000e18)
        );
        _trackApprovalTarget(_v2Pair(venues.uniswapV2Factory, address(fot), address(dai), 10_000_000e18, 10_000_000e18));
        _trackApprovalTarget(
            _v2Pair(venues.uniswapV2Factory, address(frozen), address(dai), 10_000_000e6, 10_000_000e18)
        );
        stableNoBool = _stablePool(address(noBool), address(dai), 10_000_000e6, 10_000_000e18);
        stableFrozen = _stablePool(address(frozen), address(dai), 10_000_000e6, 10_000_000e18);
        _trackApprovalTarget(stableNoBool);
        _trackApprovalTarget(stableFrozen);

        source = new TestExternalSource();
        router.setSourceWhitelisted(address(source), true);
        _trackApprovalTarget(address(source));
        _mint(address(fot), address(source), 1_000_000e18);

        _fundBystanders(1_000_000e6);
    }

    function _route(address token, bool viaStable, address tokenOut) internal view returns (Path[] memory) {
        if (!viaStable) return _single(_v2Hop(tokenOut));
        return _single(_stableHop(tokenOut, token == address(noBool) ? stableNoBool : stableFrozen));
    }

    function _amount(uint256 amountIn, address tokenIn) internal view returns (uint256) {
        return tokenIn == address(dai) ? bound(amountIn, 1e13, 1_000_000e18) : bound(amountIn, 10, 1_000_000e6);
    }

    // ---- no-bool (USDT) ----

    function testFuzz_NoBoolTokenInAndOut(uint256 amountIn, bool sellNoBool, bool viaStable, uint16 integratorBps)
        public
    {
        (address tokenIn, address tokenOut) =
            sellNoBool ? (address(noBool), address(dai)) : (address(dai), address(noBool));
        amountIn = _amount(amountIn, tokenIn);
        SwapRouter.SwapParams memory p =
            _params(alice, tokenIn, tokenOut, amountIn, 0, _route(address(noBool), viaStable, tokenOut));
        p.integratorFeeBps = uint16(bound(integratorBps, 0, 100));
        p.integratorFeeRecipient = integratorRecipient;
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "no-bool token swaps both ways");
    }

    // ---- fee-on-transfer ----

    /// @dev The V2 hop prices the input it sent, the pair counts what arrived: the pair's K check refuses the
    ///      swap, and nothing moves.
    function testFuzz_FeeOnTransferInputThroughV2Reverts(uint256 amountIn) public {
        amountIn = bound(amountIn, 1e6, 1_000_000e18);
        SwapRouter.SwapParams memory p =
            _params(alice, address(fot), address(dai), amountIn, 0, _single(_v2Hop(address(dai))));
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertFalse(o.ok, "fee-on-transfer input through V2 reverts");
    }

    /// @dev The V2 hop counts the output the pair sent; 1% less arrived, so the router cannot pay it: reverts.
    function testFuzz_FeeOnTransferOutputThroughV2Reverts(uint256 amountIn, uint32 pips, uint16 integratorBps) public {
        amountIn = bound(amountIn, 1e6, 1_000_000e18);
        router.setProtocolFee(uint32(bound(pips, 0, 10_000)), protocolRecipient);
        SwapRouter.SwapParams memory p =
            _params(alice, address(dai), address(fot), amountIn, 0, _single(_v2Hop(address(fot))));
        p.integratorFeeBps = uint16(bound(integratorBps, 0, 100));
        p.integratorFeeRecipient = integratorRecipient;
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertFalse(o.ok, "fee-on-transfer output through V2 reverts");
    }

    /// @dev A source's output is measured on arrival, so the router's accounting holds and it keeps nothing; but
    ///      the token's own cut also comes off what the account receives. The minimum is checked against that
    ///      receipt: a minimum above it (even one the router's amountOut meets) reverts
    ///      InsufficientOutput(received, minAmountOut) and nothing moves; otherwise the account gets amountOut less
    ///      the cut, never less than its minimum.
    function testFuzz_FeeOnTransferOutputThroughSourceNeverUndercutsTheMinimum(
        uint256 amountIn,
        uint256 paid,
        uint256 minOut,
        bool aboveReceipt
    ) public {
        amountIn = bound(amountIn, 1, 1_000_000e18);
        paid = bound(paid, 1e6, 100_000e18);
        bytes memory data = abi.encodeCall(TestExternalSource.fill, (address(dai), address(fot), amountIn, paid));
        SwapRouter.SwapParams memory p = _params(
            alice, address(dai), address(fot), amountIn, 0, _single(_hop(2, address(fot), 0, address(source), data))
        );
        uint256 arrived = paid - (paid * 100) / 10_000;
        uint256 amountOut = arrived - (arrived * PROTOCOL_FEE_PIPS) / 1_000_000;
        uint256 received = amountOut - (amountOut * 100) / 10_000;
        // Above the receipt up to amountOut itself (the minimum the router's own check accepts), or at most it.
        p.minAmountOut = aboveReceipt ? bound(minOut, received + 1, amountOut) : bound(minOut, 0, received);
        SwapOutcome memory o = _fundAndSwap(alice, p);
        if (aboveReceipt) {
            vm.assertFalse(o.ok, "a receipt below the minimum reverts");
            vm.assertEq(
                keccak256(o.revertData),
                keccak256(abi.encodeWithSelector(SwapRouter.InsufficientOutput.selector, received, p.minAmountOut)),
                "InsufficientOutput(received, minAmountOut)"
            );
            return;
        }
        vm.assertTrue(o.ok, "swap succeeds");
        vm.assertEq(o.gross, arrived, "gross = what arrived");
        vm.assertEq(o.amountOut, amountOut, "amountOut = gross less the protocol fee");
        vm.assertEq(o.received, received, "the account gets amountOut less the cut");
        vm.assertGe(o.received, p.minAmountOut, "never below the minimum");
    }

    // ---- blacklist ----

    function testFuzz_BlacklistedAccountCannotSwap(uint256 amountIn, bool sellFrozen, bool viaStable) public {
        (address tokenIn, address tokenOut) =
            sellFrozen ? (address(frozen), address(dai)) : (address(dai), address(frozen));
        amountIn = _amount(amountIn, tokenIn);
        _mint(tokenIn, alice, amountIn);
        vm.prank(alice);
        _approveMaxFrom(tokenIn, address(spender));
        frozen.setBlacklisted(alice, true);
        SwapRouter.SwapParams memory p =
            _params(alice, tokenIn, tokenOut, amountIn, 0, _route(address(frozen), viaStable, tokenOut));
        SwapOutcome memory o = _swapChecked(alice, p, 0);
        vm.assertFalse(o.ok, "a frozen account neither sends nor receives");
        vm.assertEq(bytes4(o.revertData), BlacklistToken.Blacklisted.selector, "the token's own revert");
    }

    /// @dev Freezing someone else (here: the bystander bob, who approved the spender) changes nothing for alice.
    function testFuzz_BlacklistedBystanderDoesNotBlockOthers(uint256 amountIn, bool sellFrozen, bool viaStable) public {
        frozen.setBlacklisted(bob, true);
        (address tokenIn, address tokenOut) =
            sellFrozen ? (address(frozen), address(dai)) : (address(dai), address(frozen));
        amountIn = _amount(amountIn, tokenIn);
        SwapRouter.SwapParams memory p =
            _params(alice, tokenIn, tokenOut, amountIn, 0, _route(address(frozen), viaStable, tokenOut));
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "swap succeeds");
    }

    /// @dev Fees are paid in the output token: a frozen fee recipient stops every swap into that token (the
    ///      operator must use recipients the token accepts). Nothing moves.
    function testFuzz_BlacklistedFeeRecipientBlocksOnlyThatOutput(uint256 amountIn) public {
        amountIn = bound(amountIn, 1e15, 1_000_000e18);
        frozen.setBlacklisted(protocolRecipient, true);
        SwapRouter.SwapParams memory p =
            _params(alice, address(dai), address(frozen), amountIn, 0, _single(_v2Hop(address(frozen))));
        SwapOutcome memory o = _fundAndSwap(alice, p);
        vm.assertFalse(o.ok, "fee transfer refused");
        p = _params(alice, address(dai), address(noBool), amountIn, 0, _single(_v2Hop(address(noBool))));
        o = _fundAndSwap(alice, p);
        vm.assertTrue(o.ok, "other outputs unaffected");
    }
}
