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
///         deadline, releases once per (origin chain, origin bridge, nonce), the hourly limit (a token bucket) and
///         the delayed queue (execute, cancel, voided by a rotation), releases paid only from free liquidity (never
///         from unaccepted locks, whose refunds stay payable), and native payouts.
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
        // No delay would make the hourly limit no bound at all.
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        new LockReleaseBridge(OWNER, RELEASER, address(weth), LOCK_TIMEOUT, 0);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        new LockReleaseBridge(OWNER, RELEASER, address(weth), 0, 0);
        // The least delay is enough.
        vm.assertEq(new LockReleaseBridge(OWNER, RELEASER, address(weth), 1, 1).releaseDelay(), 1, "1 s delay");
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

    function test_LimitBucketPaysWithinQueuesBeyondAndIsFullAfterAnIdleHour() public {
        // Limit 1,000 per hour; the bucket starts full.
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "full at first");
        _release(0, address(token), 600e18, RECIPIENT);
        vm.assertEq(bridge.releasableNow(address(token)), 400e18, "less what was paid");
        _release(1, address(token), 400e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "exactly the limit paid at once");
        vm.assertEq(bridge.releasableNow(address(token)), 0, "empty");

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
        vm.assertEq(pending.queuedBy, RELEASER, "queued by the releaser");
        vm.assertTrue(bridge.released(ORIGIN, ORIGIN_BRIDGE, 2), "a queued message counts as released");
        vm.assertEq(bridge.releasableNow(address(token)), 0, "a queued release counts nothing");

        // The limit is per token: the wrapped native has its own bucket.
        vm.assertEq(bridge.releasableNow(address(weth)), 10e18, "weth bucket full");
        _release(3, address(weth), 10e18, RECIPIENT);
        vm.assertEq(weth.balanceOf(RECIPIENT), 0, "no weth to a contract-less account: native");
        vm.assertEq(RECIPIENT.balance, 10e18, "weth bucket independent");
        vm.assertEq(bridge.releasableNow(address(weth)), 0, "weth bucket empty");

        // 59:59 later the bucket is a second's refill short of full; an hour after the spending it is full.
        vm.warp(START + 1 hours - 1);
        uint256 almost = (uint256(1 hours - 1) * 1_000e18) / 1 hours;
        vm.assertEq(bridge.releasableNow(address(token)), almost, "refilled but for a second's worth");
        _release(4, address(token), almost + 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "one wei beyond the refill: queued");
        vm.warp(START + 1 hours);
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "full after an hour");
        _release(5, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "the full limit paid");
        _release(6, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "and no more");

        // An idle day refills it to the limit, never beyond.
        vm.warp(START + 1 days);
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "capped at the limit");
        _release(7, address(token), 1_000e18 + 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 2_000e18, "a limit and a wei: queued");
    }

    /// @dev A release that does not fit is not counted: a smaller one after it still pays.
    function test_AQueuedReleaseLeavesTheBucketUntouched() public {
        _release(0, address(token), 5_000e18, RECIPIENT);
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "still full");
        _release(1, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "the small one paid");
    }

    /// @dev The refill is proportional to the time passed: half an hour after the full limit was spent, half of it
    ///      is releasable again.
    function test_BucketRefillIsProportional() public {
        _release(0, address(token), 1_000e18, RECIPIENT);
        vm.warp(START + 30 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 500e18, "half refilled after half an hour");
        _release(1, address(token), 500e18 + 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "beyond the half: queued");
        _release(2, address(token), 500e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_500e18, "the half paid");
        vm.assertEq(bridge.releasableNow(address(token)), 0, "empty again");

        vm.warp(START + 36 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 100e18, "six minutes: a tenth");
        vm.warp(START + 45 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 250e18, "fifteen minutes: a quarter");
        _release(3, address(token), 100e18, RECIPIENT);
        vm.assertEq(bridge.releasableNow(address(token)), 150e18, "less what was paid");
        vm.warp(START + 45 minutes + 30 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 650e18, "half an hour more: half the limit more");
        vm.warp(START + 45 minutes + 1 hours);
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "full an hour after the last release");
    }

    /// @dev What was a fixed window's turn is nothing now: a full limit spent just before it leaves a second's
    ///      refill just after it, so a (leaked) releaser no longer moves two limits within seconds.
    function test_TwoLimitsAroundAFormerWindowTurnNoLongerBothPay() public {
        _release(0, address(token), 1, RECIPIENT);
        vm.warp(START + 1 hours - 1);
        _release(1, address(token), 1_000e18 - 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "one limit paid");
        vm.warp(START + 1 hours);
        // spent 1,000e18 - 1, refilled a second's worth: that and the wei are all there is.
        uint256 second = uint256(1_000e18) / 1 hours;
        vm.assertEq(bridge.releasableNow(address(token)), second + 1, "a second's refill");
        _release(2, address(token), 1_000e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18, "the second limit waits");
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 2).executableAt, 0, "queued");
        // Split into small releases it does not fit either: at most the refill goes out at once.
        _release(3, address(token), second + 1, RECIPIENT);
        _release(4, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 1_000e18 + second + 1, "only the refill paid");
        // The next full limit an hour after the last spending.
        vm.warp(START + 2 hours);
        vm.assertEq(bridge.releasableNow(address(token)), 1_000e18, "full an hour later");
    }

    /// @dev For any spending and wait: exactly the proportional refill is releasable, and exactly that pays at once.
    function testFuzz_BucketRefill(uint256 spend, uint256 wait) public {
        uint256 limit = 1_000e18;
        spend = bound(spend, 1, limit);
        wait = bound(wait, 0, 2 hours);
        _release(0, address(token), spend, RECIPIENT);
        vm.warp(START + wait);
        uint256 refilled = wait >= 1 hours ? limit : (wait * limit) / 1 hours;
        uint256 expected = spend > refilled ? limit - (spend - refilled) : limit;
        vm.assertEq(bridge.releasableNow(address(token)), expected, "limit less the unrefilled spending");

        uint256 snapshot = vm.snapshotState();
        _release(1, address(token), expected + 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), spend, "a wei beyond: queued");
        vm.revertToState(snapshot);
        if (expected == 0) return;
        _release(1, address(token), expected, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), spend + expected, "exactly the releasable amount paid");
        vm.assertEq(bridge.releasableNow(address(token)), 0, "and the bucket is empty");
    }

    function test_ZeroLimitQueuesEveryRelease() public {
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(token), 0);
        vm.assertEq(bridge.releasableNow(address(token)), 0, "nothing releasable");
        _release(0, address(token), 1, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 0, "queued");
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).executableAt, 0, "pending");
    }

    /// @dev A limit fits the bucket's uint192: a larger one is refused (ZeroAmount), the largest one counts without
    ///      overflowing.
    function test_ReleaseLimitIsCappedAtUint192() public {
        uint256 cap = type(uint192).max;
        vm.startPrank(OWNER);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.setReleaseLimit(address(token), cap + 1);
        vm.expectRevert(LockReleaseBridge.ZeroAmount.selector);
        bridge.setReleaseLimit(address(token), type(uint256).max);
        vm.assertEq(bridge.releaseLimit(address(token)), 1_000e18, "unchanged");
        bridge.setReleaseLimit(address(token), cap);
        vm.stopPrank();
        vm.assertEq(bridge.releaseLimit(address(token)), cap, "the cap itself is allowed");
        vm.assertEq(bridge.releasableNow(address(token)), cap, "full");

        _release(0, address(token), LIQUIDITY, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), LIQUIDITY, "all the liquidity at once");
        vm.assertEq(bridge.releasableNow(address(token)), cap - LIQUIDITY, "counted");
        vm.warp(START + 1 hours - 1);
        vm.assertEq(bridge.releasableNow(address(token)), cap, "refilled (cap * 3599 s did not overflow)");
        // More than the bridge holds fits the limit but not the liquidity.
        vm.prank(RELEASER);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.InsufficientLiquidity.selector, address(token), 0, cap)
        );
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 1, address(token), cap, RECIPIENT);
    }

    /// @dev A new limit applies to what was already spent: raised, the difference is releasable at once; lowered
    ///      below the spending, nothing is until the (new, slower) refill covers it.
    function test_ALimitChangeKeepsWhatWasSpent() public {
        _release(0, address(token), 800e18, RECIPIENT);
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(token), 2_000e18);
        vm.assertEq(bridge.releasableNow(address(token)), 1_200e18, "raised: the new limit less the spending");
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(token), 500e18);
        vm.assertEq(bridge.releasableNow(address(token)), 0, "lowered below the spending: nothing");
        vm.warp(START + 36 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 0, "refilled 300 of 800 at the new rate: still over 500");
        vm.warp(START + 48 minutes);
        vm.assertEq(bridge.releasableNow(address(token)), 100e18, "refilled 400: 400 spent of 500");
        vm.warp(START + 1 hours);
        vm.assertEq(bridge.releasableNow(address(token)), 500e18, "full at the new limit");
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

    /// @dev A rotation voids a (leaked) releaser's queued releases: executing one reverts ReleaserRotated, however
    ///      late, and its message stays taken until the owner cancels it; the new releaser then releases it afresh,
    ///      and its own queued releases execute.
    function test_ARotatedReleasersQueueIsNeverPaid() public {
        _release(0, address(token), 5_000e18, STRANGER);
        _release(1, address(token), 6_000e18, STRANGER);
        vm.assertEq(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 0).queuedBy, RELEASER, "queued by the releaser");
        vm.prank(OWNER);
        bridge.setReleaser(NEW_RELEASER);

        // Too early is still reported as such.
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.TooEarly.selector, uint64(START + RELEASE_DELAY)));
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.ReleaserRotated.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.prank(NEW_RELEASER);
        vm.expectRevert(LockReleaseBridge.ReleaserRotated.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.warp(START + 30 days);
        vm.expectRevert(LockReleaseBridge.ReleaserRotated.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.assertEq(token.balanceOf(STRANGER), 0, "nothing paid");
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 1).executableAt, 0, "still pending");

        // The message stays taken until the owner cancels it; then the new releaser releases it correctly.
        vm.prank(NEW_RELEASER);
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.AlreadyReleased.selector, ORIGIN, ORIGIN_BRIDGE, 1));
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 1, address(token), 100e18, RECIPIENT);
        vm.prank(OWNER);
        bridge.cancelRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.prank(NEW_RELEASER);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 1, address(token), 100e18, RECIPIENT);
        vm.assertEq(token.balanceOf(RECIPIENT), 100e18, "re-released by the new releaser");

        // The new releaser's own queued release executes.
        vm.prank(NEW_RELEASER);
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 2, address(token), 5_000e18, RECIPIENT);
        vm.assertEq(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 2).queuedBy, NEW_RELEASER, "queued by the new one");
        vm.warp(block.timestamp + RELEASE_DELAY);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 2);
        vm.assertEq(token.balanceOf(RECIPIENT), 5_100e18, "the current releaser's queue pays");
        vm.expectRevert(LockReleaseBridge.ReleaserRotated.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
    }

    /// @dev Rotations are counted: rotated back to the old key, its old queue stays void.
    function test_RotatingBackToTheOldReleaserDoesNotReviveItsQueue() public {
        _release(0, address(token), 5_000e18, STRANGER);
        vm.startPrank(OWNER);
        bridge.setReleaser(NEW_RELEASER);
        bridge.setReleaser(RELEASER);
        vm.stopPrank();
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(LockReleaseBridge.ReleaserRotated.selector);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 0);
        vm.assertEq(token.balanceOf(STRANGER), 0, "not paid after the rotation back");
    }

    // ---- free liquidity: unaccepted locks stay for their refunds ----

    function _held(address t) internal view returns (uint256) {
        return bridge.heldForRefunds(t);
    }

    function test_HeldForRefundsFollowsTheLocksState() public {
        vm.assertEq(_held(address(token)), 0, "nothing held at first");
        uint256 a = _lock(ALICE, ALICE, token, 100e18);
        uint256 b = _lock(BOB, BOB, token, 50e18);
        uint256 c = _lock(ALICE, ALICE, token, 7e18);
        uint256 f = _lock(ALICE, ALICE, fot, 1_000e18);
        vm.assertEq(_held(address(token)), 157e18, "locks held");
        vm.assertEq(_held(address(fot)), 990e18, "what arrived is held");

        vm.startPrank(RELEASER);
        bridge.accept(a);
        vm.assertEq(_held(address(token)), 57e18, "accepted: liquidity now");
        bridge.accept(a);
        vm.assertEq(_held(address(token)), 57e18, "a re-sent acceptance changes nothing");
        bridge.refund(b);
        vm.assertEq(_held(address(token)), 7e18, "refunded by the releaser");
        vm.expectRevert(abi.encodeWithSelector(LockReleaseBridge.NotLocked.selector, b));
        bridge.accept(b);
        vm.stopPrank();
        vm.assertEq(_held(address(token)), 7e18, "a refused accept changes nothing");

        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(c);
        vm.assertEq(_held(address(token)), 0, "refunded by the depositor");
        vm.prank(STRANGER);
        bridge.refund(f);
        vm.assertEq(_held(address(fot)), 0, "fot refunded");
        vm.assertEq(_held(address(weth)), 0, "per token");
        vm.assertEq(token.balanceOf(address(bridge)), LIQUIDITY + 100e18, "the accepted lock stays as liquidity");
    }

    /// @dev The reviewer's scenario: alice locks 100 of a token the bridge holds nothing else of; the releaser
    ///      releases 100 of it for another chain's message. Neither at once nor delayed does it reach alice's lock,
    ///      and her refund after the deadline pays.
    function test_AReleaseNeverSpendsAnUnacceptedLock() public {
        MintableToken fresh = new MintableToken("FRESH", 18);
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(fresh), 1_000e18);
        uint256 nonce = _lock(ALICE, ALICE, fresh, 100e18);
        vm.assertEq(fresh.balanceOf(address(bridge)), 100e18, "only alice's lock here");

        vm.prank(RELEASER);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.InsufficientLiquidity.selector, address(fresh), 0, 100e18)
        );
        bridge.release(ORIGIN + 1, OTHER_ORIGIN_BRIDGE, 0, address(fresh), 100e18, RECIPIENT);
        vm.assertFalse(bridge.released(ORIGIN + 1, OTHER_ORIGIN_BRIDGE, 0), "the message stays open");
        vm.assertEq(bridge.releasableNow(address(fresh)), 1_000e18, "nothing counted");

        // Delayed (beyond the limit) it is queued, but its execution finds no free liquidity either.
        vm.prank(RELEASER);
        bridge.release(ORIGIN + 1, OTHER_ORIGIN_BRIDGE, 1, address(fresh), 2_000e18, RECIPIENT);
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.InsufficientLiquidity.selector, address(fresh), 0, 2_000e18)
        );
        bridge.executeRelease(ORIGIN + 1, OTHER_ORIGIN_BRIDGE, 1);
        vm.assertEq(fresh.balanceOf(RECIPIENT), 0, "nothing released");
        vm.assertEq(fresh.balanceOf(address(bridge)), 100e18, "the lock intact");

        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(nonce);
        vm.assertEq(fresh.balanceOf(ALICE), 100e18, "alice's refund paid in full");
        vm.assertEq(fresh.balanceOf(address(bridge)), 0, "bridge empty");
        vm.assertEq(_held(address(fresh)), 0, "nothing held");
    }

    /// @dev Free liquidity is the balance less what unaccepted locks hold: a donation is free, an accepted lock
    ///      becomes free, and a queued release waiting for liquidity pays once there is some.
    function test_ReleasesPayOnlyFreeLiquidity() public {
        MintableToken fresh = new MintableToken("FRESH", 18);
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(fresh), 50e18);
        uint256 nonce = _lock(ALICE, ALICE, fresh, 100e18);
        fresh.mint(address(bridge), 30e18);

        vm.prank(RELEASER);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.InsufficientLiquidity.selector, address(fresh), 30e18, 31e18)
        );
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(fresh), 31e18, RECIPIENT);
        _release(0, address(fresh), 30e18, RECIPIENT);
        vm.assertEq(fresh.balanceOf(RECIPIENT), 30e18, "the free part paid");

        _release(1, address(fresh), 100e18, RECIPIENT);
        vm.warp(START + RELEASE_DELAY);
        vm.expectRevert(
            abi.encodeWithSelector(LockReleaseBridge.InsufficientLiquidity.selector, address(fresh), 0, 100e18)
        );
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.assertGt(bridge.pendingRelease(ORIGIN, ORIGIN_BRIDGE, 1).executableAt, 0, "still pending");

        // Accepted, the lock is liquidity: the queued release pays.
        vm.prank(RELEASER);
        bridge.accept(nonce);
        bridge.executeRelease(ORIGIN, ORIGIN_BRIDGE, 1);
        vm.assertEq(fresh.balanceOf(RECIPIENT), 130e18, "paid once the lock was accepted");
        vm.assertEq(fresh.balanceOf(address(bridge)), 0, "all of it");
    }

    /// @dev The wrapped native checks free liquidity before it unwraps.
    function test_TheWrappedNativeUnwrapsOnlyFreeLiquidity() public {
        vm.deal(ALICE, 5e18);
        uint256 nonce = bridge.lockCount();
        vm.startPrank(ALICE);
        weth.deposit{value: 5e18}();
        weth.approve(address(bridge), 5e18);
        bridge.lock(ALICE, address(weth), 5e18, address(weth), 5e18, DESTINATION, RECIPIENT);
        vm.stopPrank();
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(weth), type(uint192).max);

        address eoa = address(0xE0A);
        vm.prank(RELEASER);
        vm.expectRevert(
            abi.encodeWithSelector(
                LockReleaseBridge.InsufficientLiquidity.selector, address(weth), LIQUIDITY, LIQUIDITY + 1
            )
        );
        bridge.release(ORIGIN, ORIGIN_BRIDGE, 0, address(weth), LIQUIDITY + 1, eoa);
        _release(0, address(weth), LIQUIDITY, eoa);
        vm.assertEq(eoa.balance, LIQUIDITY, "the free part unwrapped");
        vm.assertEq(weth.balanceOf(address(bridge)), 5e18, "the lock left");

        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(nonce);
        vm.assertEq(weth.balanceOf(ALICE), 5e18, "refunded in weth");
    }

    /// @dev For any liquidity, lock and release: a release pays iff it fits the free liquidity; the balance never
    ///      falls below what is held; the lock's refund pays.
    function testFuzz_AReleaseNeverReachesALock(uint256 liquidity, uint256 locked, uint256 amount) public {
        liquidity = bound(liquidity, 0, 1e30);
        locked = bound(locked, 1, 1e30);
        amount = bound(amount, 1, 2e30);
        MintableToken fresh = new MintableToken("FRESH", 18);
        vm.prank(OWNER);
        bridge.setReleaseLimit(address(fresh), type(uint192).max);
        fresh.mint(address(bridge), liquidity);
        uint256 nonce = _lock(ALICE, ALICE, fresh, locked);

        vm.prank(RELEASER);
        (bool ok, bytes memory reason) = address(bridge)
            .call(
                abi.encodeCall(LockReleaseBridge.release, (ORIGIN, ORIGIN_BRIDGE, 0, address(fresh), amount, RECIPIENT))
            );
        vm.assertEq(ok, amount <= liquidity, "pays exactly when the free liquidity covers it");
        if (!ok) {
            vm.assertEq(
                keccak256(reason),
                keccak256(
                    abi.encodeWithSelector(
                        LockReleaseBridge.InsufficientLiquidity.selector, address(fresh), liquidity, amount
                    )
                ),
                "InsufficientLiquidity(token, free, amount)"
            );
        }
        vm.assertGe(fresh.balanceOf(address(bridge)), _held(address(fresh)), "balance covers the hold");
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(nonce);
        vm.assertEq(fresh.balanceOf(ALICE), locked, "the refund paid");
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

    /// @dev An EIP-7702 account whose delegate refuses the coin (or would burn the releaser's gas) cannot block
    ///      its release: it gets the wrapped native instead, within the payout's gas bound.
    function test_ARecipientThatRefusesTheCoinGetsTheWrappedNative() public {
        address delegated = address(0x7702);
        // A delegation designator to an address whose "code" is an invalid opcode: every call to it fails.
        vm.etch(delegated, abi.encodePacked(bytes3(0xef0100), address(0xdead)));
        vm.etch(address(0xdead), hex"fe");
        _release(0, address(weth), 4e18, delegated);
        vm.assertEq(delegated.balance, 0, "no coin");
        vm.assertEq(weth.balanceOf(delegated), 4e18, "the wrapped native instead");
        vm.assertEq(weth.balanceOf(address(bridge)), LIQUIDITY - 4e18, "liquidity");
        vm.assertEq(address(bridge).balance, 0, "nothing left over");
    }

    function test_OnlyTheWrappedNativeSendsCoins() public {
        vm.deal(STRANGER, 1 ether);
        vm.prank(STRANGER);
        (bool ok, bytes memory reason) = address(bridge).call{value: 1 ether}("");
        vm.assertFalse(ok, "refused");
        vm.assertEq(bytes32(reason), bytes32(LockReleaseBridge.NotWrappedNative.selector), "reason");
    }
}
