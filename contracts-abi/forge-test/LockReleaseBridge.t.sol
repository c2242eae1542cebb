// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {TestBase} from "./utils/TestBase.sol";
import {Vm} from "./utils/Vm.sol";
import {FeeOnTransferToken, MintableToken} from "./mocks/Tokens.sol";
import {LockReleaseBridge} from "../src/LockReleaseBridge.sol";
import {TestContractWallet} from "../src/test/TestContractWallet.sol";
import {WrappedNative} from "../src/test/WrappedNative.sol";

/// @notice LockReleaseBridge call by call: who may do what (owner, releaser before and after a rotation, fee taker,
///         depositors, strangers), locks credited by what arrived, the accept / refund state machine around the
///         deadline, releases once per (origin chain, origin bridge, nonce), the hourly limit and the delayed
///         queue (execute, cancel), and native payouts.
contract LockReleaseBridgeTest is TestBase {
    uint32 internal constant LOCK_TIMEOUT = 1 days;
    uint32 internal constant RELEASE_DELAY = 6 hours;
    uint256 internal constant START = 1_700_000_000;
    uint256 internal constant DESTINATION = 10;
    uint256 internal constant ORIGIN = 8453;
    uint256 internal constant LIQUIDITY = 1_000_000e18;

    address internal constant OWNER = address(0x0A11);
    address internal constant RELEASER = address(0x5E1E);
    address internal constant NEW_RELEASER = address(0x5E2E);
    address internal constant FEE_TAKER = address(0xFEE0);
    address internal constant ALICE = address(0xA11CE);
    address internal constant BOB = address(0xB0B);
    address internal constant STRANGER = address(0xBAD);
    address internal constant RECIPIENT = address(0x2EC1);
    address internal constant ORIGIN_BRIDGE = address(0x0B1);
    address internal constant OTHER_ORIGIN_BRIDGE = address(0x0B2);

    LockReleaseBridge internal bridge;
    WrappedNative internal weth;
    MintableToken internal token;
    FeeOnTransferToken internal fot;

    function setUp() public {
        vm.warp(START);
        weth = new WrappedNative("Wrapped Ether", "WETH");
        token = new MintableToken("TKN", 18);
        fot = new FeeOnTransferToken("FOT", 100);
        bridge = new LockReleaseBridge(OWNER, RELEASER, address(weth), LOCK_TIMEOUT, RELEASE_DELAY);
        token.mint(address(bridge), LIQUIDITY);
        vm.deal(address(this), LIQUIDITY);
        weth.deposit{value: LIQUIDITY}();
        weth.transfer(address(bridge), LIQUIDITY);
        vm.startPrank(OWNER);
        bridge.setFeeTaker(FEE_TAKER);
        bridge.setReleaseLimit(address(token), 1_000e18);
        bridge.setReleaseLimit(address(weth), 10e18);
        vm.stopPrank();
    }

    // ---- helpers ----

    function _lock(address caller, address depositor, MintableToken t, uint256 amount)
        internal
        returns (uint256 nonce)
    {
        t.mint(caller, amount);
        vm.prank(caller);
        t.approve(address(bridge), amount);
        nonce = bridge.lockCount();
        vm.prank(caller);
        bridge.lock(depositor, address(t), amount, address(t), amount, DESTINATION, RECIPIENT);
    }

    /// @dev The feesPaid flag of the one Locked event in `logs`.
    function _feesPaid(Vm.Log[] memory logs) internal view returns (bool feesPaid, uint256 inputAmount) {
        uint256 found;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Locked.selector) continue;
            ++found;
            (, inputAmount,,,,, feesPaid) =
                abi.decode(logs[i].data, (address, uint256, address, uint256, address, uint32, bool));
        }
        vm.assertEq(found, 1, "one Locked event");
    }

    function _release(uint256 nonce, address t, uint256 amount, address to) internal {
        vm.prank(RELEASER);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, nonce, t, amount, to);
    }

    function _notOwner(address caller) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, caller);
    }

    // ---- construction and the owner's powers ----

    function test_ConstructorRejectsZeroes() public {
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        new LockReleaseBridge(OWNER, address(0), address(weth), LOCK_TIMEOUT, RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        new LockReleaseBridge(OWNER, RELEASER, address(0), LOCK_TIMEOUT, RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        new LockReleaseBridge(OWNER, RELEASER, address(weth), 0, RELEASE_DELAY);
        vm.assertEq(bridge.owner(), OWNER, "owner");
        vm.assertEq(bridge.releaser(), RELEASER, "releaser");
        vm.assertEq(bridge.lockTimeout(), LOCK_TIMEOUT, "timeout");
        vm.assertEq(bridge.releaseDelay(), RELEASE_DELAY, "delay");
    }

    function test_OnlyOwnerSetsReleaserLimitsFeeTakerAndCancels() public {
        // A queued release for the cancel attempts.
        _release(0, address(token), 5_000e18, RECIPIENT);
        address[3] memory others = [RELEASER, STRANGER, FEE_TAKER];
        for (uint256 i; i < others.length; ++i) {
            vm.prank(others[i]);
            vm.expectRevert(_notOwner(others[i]));
            bridge.setReleaser(others[i]);
            vm.prank(others[i]);
            vm.expectRevert(_notOwner(others[i]));
            bridge.setReleaseLimit(address(token), type(uint256).max);
            vm.prank(others[i]);
            vm.expectRevert(_notOwner(others[i]));
            bridge.setFeeTaker(others[i]);
            vm.prank(others[i]);
            vm.expectRevert(_notOwner(others[i]));
            bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        }
        vm.assertEq(bridge.releaser(), RELEASER, "releaser unchanged");
        vm.assertEq(bridge.feeTaker(), FEE_TAKER, "fee taker unchanged");
        vm.assertEq(bridge.releaseLimit(address(token)), 1_000e18, "limit unchanged");
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).executableAt, 0, "still pending");

        vm.startPrank(OWNER);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.setReleaser(address(0));
        bridge.setReleaser(NEW_RELEASER);
        bridge.setReleaseLimit(address(token), 7);
        bridge.setFeeTaker(address(0));
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.stopPrank();
        vm.assertEq(bridge.releaser(), NEW_RELEASER, "releaser set");
        vm.assertEq(bridge.releaseLimit(address(token)), 7, "limit set");
        vm.assertEq(bridge.feeTaker(), address(0), "fee taker cleared");
        vm.assertEq(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).executableAt, 0, "cancelled");
    }

    /// @dev The owner holds no releaser power: it cannot release, accept or refund early.
    function test_OwnerCannotReleaseAcceptOrRefundEarly() public {
        uint256 nonce = _lock(ALICE, ALICE, token, 100e18);
        vm.startPrank(OWNER);
        vm.expectRevert(LockReleaseBridge.NotReleaser.selector);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1e18, OWNER);
        vm.expectRevert(LockReleaseBridge.NotReleaser.selector);
        bridge.accept(nonce);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotRefundable.selector, nonce));
        bridge.refund(nonce);
        vm.stopPrank();
    }

    // ---- rotation ----

    function test_RotationMovesEveryReleaserPower() public {
        uint256 a = _lock(ALICE, ALICE, token, 100e18);
        uint256 b = _lock(BOB, BOB, token, 50e18);
        vm.prank(OWNER);
        bridge.setReleaser(NEW_RELEASER);

        vm.startPrank(RELEASER);
        vm.expectRevert(LockReleaseBridge.NotReleaser.selector);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1e18, RELEASER);
        vm.expectRevert(LockReleaseBridge.NotReleaser.selector);
        bridge.accept(a);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotRefundable.selector, a));
        bridge.refund(a);
        vm.stopPrank();
        vm.assertFalse(bridge.released(ORIGIN, ORIGIN_BRIDGE, 0), "old releaser released nothing");
        vm.assertEq(uint256(bridge.locks(a).state), uint256(LockReleaseBridge.LockState.Locked), "a still locked");

        uint256 before = token.balanceOf(RECIPIENT);
        vm.startPrank(NEW_RELEASER);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1e18, RECIPIENT);
        bridge.accept(a);
        bridge.refund(b);
        vm.stopPrank();
        vm.assertEq(token.balanceOf(RECIPIENT) - before, 1e18, "new releaser released");
        vm.assertEq(uint256(bridge.locks(a).state), uint256(LockReleaseBridge.LockState.Accepted), "a accepted");
        vm.assertEq(uint256(bridge.locks(b).state), uint256(LockReleaseBridge.LockState.Refunded), "b refunded");
        vm.assertEq(token.balanceOf(BOB), 50e18, "b paid back early by the new releaser");
    }

    // ---- locks ----

    function test_LockRecordsTheLock() public {
        uint256 nonce = _lock(ALICE, BOB, token, 123e18);
        LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
        vm.assertEq(record.depositor, BOB, "depositor is the given one");
        vm.assertEq(uint256(record.deadline), START + LOCK_TIMEOUT, "deadline");
        vm.assertEq(uint256(record.state), uint256(LockReleaseBridge.LockState.Locked), "state");
        vm.assertEq(record.token, address(token), "token");
        vm.assertEq(record.amount, 123e18, "amount");
        vm.assertEq(bridge.lockCount(), nonce + 1, "count");
        vm.assertEq(token.balanceOf(address(bridge)), LIQUIDITY + 123e18, "held");
    }

    function test_LockRejectsBadArguments() public {
        token.mint(ALICE, 10e18);
        vm.startPrank(ALICE);
        token.approve(address(bridge), type(uint256).max);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.lock(ALICE, address(token), 0, address(token), 1, DESTINATION, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.lock(ALICE, address(token), 1, address(token), 0, DESTINATION, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.lock(address(0), address(token), 1, address(token), 1, DESTINATION, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.lock(ALICE, address(token), 1, address(0), 1, DESTINATION, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.lock(ALICE, address(token), 1, address(token), 1, DESTINATION, address(0));
        vm.expectRevert(LockReleaseBridge.SameChain.selector);
        bridge.lock(ALICE, address(token), 1, address(token), 1, block.chainid, RECIPIENT);
        vm.stopPrank();
        vm.assertEq(bridge.lockCount(), 0, "no lock");
    }

    function test_FeesPaidOnlyThroughTheFeeTaker() public {
        vm.recordLogs();
        _lock(FEE_TAKER, ALICE, token, 10e18);
        (bool feesPaid,) = _feesPaid(vm.getRecordedLogs());
        vm.assertTrue(feesPaid, "through the fee taker");

        _lock(ALICE, ALICE, token, 10e18);
        (feesPaid,) = _feesPaid(vm.getRecordedLogs());
        vm.assertFalse(feesPaid, "direct");

        // A new fee taker: the old one's locks no longer carry the flag.
        vm.prank(OWNER);
        bridge.setFeeTaker(BOB);
        _lock(FEE_TAKER, ALICE, token, 10e18);
        (feesPaid,) = _feesPaid(vm.getRecordedLogs());
        vm.assertFalse(feesPaid, "the old fee taker");
        _lock(BOB, ALICE, token, 10e18);
        (feesPaid,) = _feesPaid(vm.getRecordedLogs());
        vm.assertTrue(feesPaid, "the new fee taker");

        // No fee taker: nobody's locks carry it.
        vm.prank(OWNER);
        bridge.setFeeTaker(address(0));
        _lock(BOB, ALICE, token, 10e18);
        (feesPaid,) = _feesPaid(vm.getRecordedLogs());
        vm.assertFalse(feesPaid, "no fee taker");
    }

    function test_FeeOnTransferCreditedByBalanceChange() public {
        vm.recordLogs();
        uint256 nonce = _lock(ALICE, ALICE, fot, 1_000e18);
        (, uint256 emitted) = _feesPaid(vm.getRecordedLogs());
        vm.assertEq(emitted, 990e18, "event carries what arrived");
        vm.assertEq(bridge.locks(nonce).amount, 990e18, "record carries what arrived");
        vm.assertEq(fot.balanceOf(address(bridge)), 990e18, "held");

        // Refunded: the bridge pays what it credited (the token takes its fee on the way out too).
        vm.prank(RELEASER);
        bridge.refund(nonce);
        vm.assertEq(fot.balanceOf(address(bridge)), 0, "bridge paid the credited amount");
        vm.assertEq(fot.balanceOf(ALICE), 990e18 - 9.9e18, "depositor got the credited amount less the token's fee");
    }

    function test_LockOfATokenThatDeliversNothingReverts() public {
        FeeOnTransferToken all = new FeeOnTransferToken("ALL", 10_000);
        all.mint(ALICE, 10e18);
        vm.startPrank(ALICE);
        all.approve(address(bridge), 10e18);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.lock(ALICE, address(all), 10e18, address(token), 1, DESTINATION, RECIPIENT);
        vm.stopPrank();
    }

    // ---- accept and refund ----

    function test_AcceptAtTheDeadlineWorksAfterItReverts() public {
        uint256 a = _lock(ALICE, ALICE, token, 1e18);
        uint256 b = _lock(ALICE, ALICE, token, 1e18);
        vm.warp(START + LOCK_TIMEOUT);
        vm.prank(RELEASER);
        bridge.accept(a);
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.LockExpired.selector, b));
        bridge.accept(b);
        // Accepting the accepted one again does nothing, even now.
        vm.prank(RELEASER);
        bridge.accept(a);
        vm.assertEq(uint256(bridge.locks(a).state), uint256(LockReleaseBridge.LockState.Accepted), "a accepted");
        vm.assertEq(uint256(bridge.locks(b).state), uint256(LockReleaseBridge.LockState.Locked), "b still locked");
    }

    function test_AcceptOfAnUnknownLockReverts() public {
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, 42));
        bridge.accept(42);
    }

    function test_DepositorRefundOnlyAfterTheDeadline() public {
        uint256 nonce = _lock(ALICE, ALICE, token, 7e18);
        vm.prank(ALICE);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotRefundable.selector, nonce));
        bridge.refund(nonce);
        vm.warp(START + LOCK_TIMEOUT);
        vm.prank(ALICE);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotRefundable.selector, nonce));
        bridge.refund(nonce);
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(nonce);
        vm.assertEq(token.balanceOf(ALICE), 7e18, "paid back");
        vm.assertEq(token.balanceOf(address(bridge)), LIQUIDITY, "bridge back to its liquidity");
        vm.assertEq(uint256(bridge.locks(nonce).state), uint256(LockReleaseBridge.LockState.Refunded), "refunded");
    }

    /// @dev After the deadline a stranger may trigger the refund, but the depositor is paid, never the caller.
    function test_StrangerRefundAfterTheDeadlinePaysTheDepositor() public {
        uint256 nonce = _lock(BOB, ALICE, token, 7e18);
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(STRANGER);
        bridge.refund(nonce);
        vm.assertEq(token.balanceOf(ALICE), 7e18, "the recorded depositor");
        vm.assertEq(token.balanceOf(STRANGER), 0, "not the caller");
        vm.assertEq(token.balanceOf(BOB), 0, "not the payer");
    }

    function test_RefundOfAnAcceptedLockReverts() public {
        uint256 nonce = _lock(ALICE, ALICE, token, 7e18);
        vm.prank(RELEASER);
        bridge.accept(nonce);
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, nonce));
        bridge.refund(nonce);
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, nonce));
        bridge.refund(nonce);
        vm.assertEq(token.balanceOf(ALICE), 0, "nothing back");
    }

    function test_AcceptOfARefundedLockRevertsAndRefundsOnce() public {
        uint256 nonce = _lock(ALICE, ALICE, token, 7e18);
        vm.prank(RELEASER);
        bridge.refund(nonce);
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, nonce));
        bridge.accept(nonce);
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, nonce));
        bridge.refund(nonce);
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, nonce));
        bridge.refund(nonce);
        vm.assertEq(token.balanceOf(ALICE), 7e18, "paid once");
    }

    /// @dev Around the deadline exactly one of (the releaser's accept, a stranger's refund) is possible.
    function testFuzz_DeadlineSplitsAcceptFromStrangerRefund(uint256 wait) public {
        wait = bound(wait, 0, 3 * uint256(LOCK_TIMEOUT));
        uint256 nonce = _lock(ALICE, ALICE, token, 1e18);
        vm.warp(START + wait);
        uint256 snapshot = vm.snapshotState();
        vm.prank(RELEASER);
        (bool accepted,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.accept, (nonce)));
        vm.revertToState(snapshot);
        vm.prank(STRANGER);
        (bool refunded,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.refund, (nonce)));
        vm.assertEq(accepted, wait <= LOCK_TIMEOUT, "accept until the deadline");
        vm.assertEq(refunded, wait > LOCK_TIMEOUT, "stranger's refund after it");
        vm.assertTrue(accepted != refunded, "exactly one");
    }

    // ---- releases ----

    function test_OnlyTheReleaserReleases() public {
        address[3] memory others = [OWNER, STRANGER, FEE_TAKER];
        for (uint256 i; i < others.length; ++i) {
            vm.prank(others[i]);
            vm.expectRevert(LockReleaseBridge.NotReleaser.selector);
            bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1e18, others[i]);
        }
        vm.assertFalse(bridge.released(ORIGIN, ORIGIN_BRIDGE, 0), "nothing released");
    }

    function test_ReleaseRejectsBadArguments() public {
        vm.startPrank(RELEASER);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 0, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(0), 1, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1, address(0));
        vm.expectRevert(LockReleaseBridge.ZeroAddress.selector);
        bridge.release(ORIGIN, address(0), 0, address(token), 1, RECIPIENT);
        vm.stopPrank();
    }

    function test_ReleaseOncePerChainBridgeAndNonce() public {
        _release(5, address(token), 10e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 10e18, "paid");
        vm.assertTrue(bridge.released(ORIGIN, ORIGIN_BRIDGE, 5), "marked");

        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, ORIGIN_BRIDGE, 5));
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 5, address(token), 10e18, RECIPIENT);
        // Another amount, token or recipient does not make it another message.
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, ORIGIN_BRIDGE, 5));
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 5, address(weth), 1, BOB);

        // The same nonce from another origin bridge, or from another chain, is another message.
        vm.startPrank(RELEASER);
        bridge.release(ORIGIN, OTHER_ORIGIN_BRIDGE, 5, address(token), 10e18, RECIPIENT);
        bridge.release(ORIGIN + 1, ORIGIN_BRIDGE, 5, address(token), 10e18, RECIPIENT);
        vm.stopPrank();
        vm.assertEq(token.balanceOf(RECIPIENT), 30e18, "three messages paid");
        vm.assertTrue(bridge.released(ORIGIN, OTHER_ORIGIN_BRIDGE, 5), "other bridge marked");
        vm.assertTrue(
            bridge.releaseKey(ORIGIN, ORIGIN_BRIDGE, 5) != bridge.releaseKey(ORIGIN, OTHER_ORIGIN_BRIDGE, 5), "keys"
        );

        vm.prank(RELEASER);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, OTHER_ORIGIN_BRIDGE, 5)
        );
        bridge.release(ORIGIN, OTHER_ORIGIN_BRIDGE, 5, address(token), 10e18, RECIPIENT);
    }

    function test_LimitWindowPaysWithinQueuesBeyondAndResetsAfterAnHour() public {
        // Limit 1,000 per hour.
        _release(0, address(token), 600e18, RECIPIENT);
        _release(1, address(token), 400e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "exactly the limit paid at once");

        vm.recordLogs();
        _release(2, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "one wei over: queued");
        Vm.Log[] memory logs = vm.getRecordedLogs();
        vm.assertEq(logs.length, 1, "one event");
        vm.assertEq(logs[0].topics[0], LockReleaseBridge.ReleaseQueued.selector, "ReleaseQueued");
        LockReleaseBridge.PendingRelease memory pending = bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 2);
        vm.assertEq(pending.token, address(token), "pending token");
        vm.assertEq(pending.amount, 1, "pending amount");
        vm.assertEq(pending.recipient, RECIPIENT, "pending recipient");
        vm.assertEq(uint256(pending.executableAt), block.timestamp + RELEASE_DELAY, "pending time");
        vm.assertTrue(bridge.released(ORIGIN, ORIGIN_BRIDGE, 2), "a queued message counts as released");

        // The limit is per token: the wrapped native has its own.
        _release(3, address(weth), 10e18, RECIPIENT);
        vm.assertEq(weth.balanceOf(RECIPIENT), 0, "no weth to a contract-less account: native");
        vm.assertEq(RECIPIENT.balance, 10e18, "weth window independent");

        // 59:59 later the window is still full; an hour after it opened it starts afresh.
        vm.warp(START + 1 hours - 1);
        _release(4, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "still the same window: queued");
        vm.warp(START + 1 hours);
        _release(5, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "new window pays the full limit");
        _release(6, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "and no more");
    }

    /// @dev A release that does not fit is not counted: a smaller one after it still pays.
    function test_AQueuedReleaseLeavesTheWindowUntouched() public {
        _release(0, address(token), 5_000e18, RECIPIENT);
        _release(1, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "the small one paid");
    }

    /// @dev A fixed window (as documented): the limit is per window, not per sliding hour, so a (leaked) releaser
    ///      moves up to twice the limit within seconds around the window's turn.
    function test_FixedWindowAllowsTwoLimitsAroundItsTurn() public {
        _release(0, address(token), 1, RECIPIENT);
        vm.warp(START + 1 hours - 1);
        _release(1, address(token), 1_000e18 - 1, RECIPIENT);
        vm.warp(START + 1 hours);
        _release(2, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "two limits within a second");
    }

    function test_ZeroLimitQueuesEveryRelease() public {
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(token), 0);
        _release(0, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 0, "queued");
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).executableAt, 0, "pending");
    }

    function test_ExecuteReleaseOnlyAfterTheDelayByAnyone() public {
        _release(0, address(token), 2_000e18, RECIPIENT);
        uint64 executableAt = uint64(START + RELEASE_DELAY);
        vm.prank(STRANGER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.TooEarly.selector, executableAt));
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.warp(START + RELEASE_DELAY - 1);
        vm.prank(STRANGER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.TooEarly.selector, executableAt));
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);

        vm.warp(START + RELEASE_DELAY);
        vm.recordLogs();
        vm.prank(STRANGER);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "paid to the recipient");
        vm.assertEq(token.balanceOf(STRANGER), 0, "not to the caller");
        vm.assertEq(logs[logs.length - 1].topics[0], LockReleaseBridge.Released.selector, "Released");
        vm.assertEq(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).executableAt, 0, "no longer pending");

        // Once only; and no longer cancellable nor re-releasable.
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.prank(OWNER);
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, ORIGIN_BRIDGE, 0));
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 1, RECIPIENT);
    }

    function test_ExecuteOfAnUnknownReleaseReverts() public {
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        // Paid at once: nothing pending.
        _release(1, address(token), 1e18, RECIPIENT);
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
    }

    function test_CancelReopensTheMessage() public {
        _release(0, address(token), 2_000e18, BOB);
        vm.prank(OWNER);
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.assertFalse(bridge.released(ORIGIN, ORIGIN_BRIDGE, 0), "re-opened");
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.assertEq(token.balanceOf(BOB), 0, "the cancelled release paid nothing");
        vm.prank(OWNER);
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);

        // Released again, correctly this time: within the limit, paid at once.
        _release(0, address(token), 200e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 200e18, "paid");
        vm.prank(RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, ORIGIN_BRIDGE, 0));
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(token), 200e18, RECIPIENT);
    }

    /// @dev A rotation does not drop a leaked releaser's queued releases: the owner cancels them within the delay.
    function test_AnOldReleasersQueueOutlivesTheRotationUntilCancelled() public {
        _release(0, address(token), 5_000e18, STRANGER);
        _release(1, address(token), 6_000e18, STRANGER);
        vm.startPrank(OWNER);
        bridge.setReleaser(NEW_RELEASER);
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.stopPrank();
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.NotPending.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.assertEq(token.balanceOf(STRANGER), 6_000e18, "the uncancelled one pays");
    }

    // ---- native payouts ----

    function test_WrappedNativeGoesOutNativeToAnAccountAndWethToAContract() public {
        TestContractWallet wallet = new TestContractWallet(ALICE);
        address eoa = address(0xE0A);
        _release(0, address(weth), 3e18, eoa);
        vm.assertEq(eoa.balance, 3e18, "native to the account");
        vm.assertEq(weth.balanceOf(eoa), 0, "no weth to the account");
        _release(1, address(weth), 2e18, address(wallet));
        vm.assertEq(weth.balanceOf(address(wallet)), 2e18, "weth to the contract");
        vm.assertEq(address(wallet).balance, 0, "no native to the contract");
        vm.assertEq(weth.balanceOf(address(bridge)), LIQUIDITY - 5e18, "liquidity");
        vm.assertEq(address(bridge).balance, 0, "nothing left over");

        // A delayed one unwraps the same way.
        _release(3, address(weth), 50e18, eoa);
        vm.warp(START + RELEASE_DELAY);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 3);
        vm.assertEq(eoa.balance, 53e18, "delayed native to the account");
    }

    function test_OnlyTheWrappedNativeSendsCoins() public {
        vm.deal(STRANGER, 1 ether);
        vm.prank(STRANGER);
        (bool ok, bytes memory reason) = address(bridge).call{value: 1 ether}("");
        vm.assertFalse(ok, "refused");
        vm.assertEq(bytes32(reason), bytes32(LockReleaseBridge.NotWrappedNative.selector), "reason");
    }
}
