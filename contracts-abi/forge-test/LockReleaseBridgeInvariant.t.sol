// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {TestBase} from "./utils/TestBase.sol";
import {Vm} from "./utils/Vm.sol";
import {FeeOnTransferToken, MintableToken} from "./mocks/Tokens.sol";
import {LockReleaseBridge} from "../src/LockReleaseBridge.sol";

/// @notice What the invariant fuzzer calls: locks by three depositors (directly or through the fee taker, in a
///         plain and a fee-on-transfer token), accepts and refunds by the releaser, old releasers, depositors and
///         strangers, releases of a small set of messages by the releaser and by others (now and then of the bridge's
///         whole balance), executions, cancels, limit changes, releaser rotations and time passing. Every call is
///         checked against what the contract promises (it succeeds exactly when it should, and moves exactly what it
///         should); the ghosts feed the suite's invariants.
contract LockReleaseBridgeHandler is TestBase {
    struct LockGhost {
        address token;
        address depositor;
        uint256 amount;
        uint32 deadline;
        bool accepted;
        uint256 refunds;
    }

    struct PendingGhost {
        address token;
        address recipient;
        uint256 amount;
        uint64 executableAt;
        address queuedBy;
        /// @dev The handler's count of rotations when it was queued.
        uint256 rotation;
    }

    /// @dev The release limit's token bucket, mirrored: what was spent (net of the refill) as of `updatedAt`.
    struct Bucket {
        uint256 updatedAt;
        uint256 spent;
    }

    /// @dev A release paid at once: when, and how much.
    struct AtOnce {
        uint256 at;
        uint256 amount;
    }

    struct ReleaseCall {
        address caller;
        uint256 chainId;
        address originBridge;
        uint256 nonce;
        address token;
        uint256 amount;
        address recipient;
    }

    uint256 internal constant DESTINATION = 10;
    uint256 internal constant KEYS = 16;

    LockReleaseBridge public immutable bridge;
    MintableToken public immutable token;
    FeeOnTransferToken public immutable fot;
    address public immutable owner;
    address public immutable feeTaker;

    address[3] internal depositors = [address(0xD001), address(0xD002), address(0xD003)];
    address[2] internal strangers = [address(0xBAD1), address(0xBAD2)];
    address[2] internal recipients = [address(0x2EC1), address(0x2EC2)];
    uint256[2] internal originChains = [uint256(8453), uint256(42161)];
    address[2] internal originBridges = [address(0x0B1), address(0x0B2)];

    /// @notice Every releaser so far; the last one is the current one.
    address[] public releasers;
    /// @dev Indices (see keyAt) of the messages ever queued: execute and cancel mostly aim at these.
    uint256[] internal _queuedKeys;

    LockGhost[] internal _locks;
    mapping(bytes32 key => PendingGhost) internal _pending;
    mapping(address token => Bucket) internal _bucket;
    /// @dev Releases paid at once since the token's limit was last set (for the rate check).
    mapping(address token => AtOnce[]) internal _atOnce;

    /// @notice What unaccepted locks hold, per token (lock +, accept and refund −): what must never be released.
    mapping(address token => uint256) public heldGhost;

    mapping(address token => uint256) public initialLiquidity;
    mapping(address token => uint256) public creditedTotal;
    mapping(address token => uint256) public refundedTotal;
    mapping(address token => uint256) public paidTotal;
    /// @notice Released events seen per message key.
    mapping(bytes32 key => uint256) public paidCount;

    /// @notice Successful release/accept calls by an account that was not the releaser at the time (0 always).
    uint256 public nonReleaserSuccesses;
    /// @notice Refunds that paid anything but the credited amount to the recorded depositor (0 always).
    uint256 public refundViolations;
    /// @notice Refunds of a Locked lock by an allowed caller (the releaser, anyone after the deadline) that failed
    ///         (0 always: nothing, liquidity included, blocks them).
    uint256 public blockedRefunds;
    /// @notice Any other broken promise seen call by call (0 always).
    uint256 public violations;
    string public lastViolation;

    // What happened (to tell a vacuous run from a real one).
    uint256 public locksViaFeeTaker;
    uint256 public locksDirect;
    uint256 public accepts;
    uint256 public releaserRefunds;
    uint256 public lateRefunds;
    uint256 public paidAtOnce;
    uint256 public queued;
    uint256 public executed;
    uint256 public cancelled;
    uint256 public rotations;
    uint256 public refusedOldReleaserCalls;
    uint256 public refusedStrangerReleases;
    /// @notice Releases (at once) and executions by the releaser refused for lack of free liquidity.
    uint256 public refusedForLiquidity;
    /// @notice Executions of a release queued by a releaser that was rotated away, refused.
    uint256 public refusedRotatedExecutions;
    /// @notice Refunds paid while the bridge's free liquidity could not have covered them (only the hold could).
    uint256 public refundsOnlyTheHoldCovered;
    /// @notice Releases of the bridge's whole balance of a token tried while some of it was held for refunds.
    uint256 public drainAttempts;
    uint256 public refusedLimitsAboveTheCap;

    constructor(LockReleaseBridge bridge_, MintableToken token_, FeeOnTransferToken fot_, address feeTaker_) {
        bridge = bridge_;
        token = token_;
        fot = fot_;
        owner = bridge_.owner();
        feeTaker = feeTaker_;
        releasers.push(bridge_.releaser());
        initialLiquidity[address(token_)] = token_.balanceOf(address(bridge_));
        initialLiquidity[address(fot_)] = fot_.balanceOf(address(bridge_));
    }

    // ---- views for the suite ----

    function lockGhostCount() external view returns (uint256) {
        return _locks.length;
    }

    function lockGhost(uint256 nonce) external view returns (LockGhost memory) {
        return _locks[nonce];
    }

    function releaserCount() external view returns (uint256) {
        return releasers.length;
    }

    function keyAt(uint256 index) public view returns (uint256 chainId, address originBridge, uint256 nonce) {
        index %= KEYS;
        return (originChains[index & 1], originBridges[(index >> 1) & 1], index >> 2);
    }

    function keyCount() external pure returns (uint256) {
        return KEYS;
    }

    // ---- actions ----

    /// @notice A depositor locks, directly or through the fee taker, the plain or the fee-on-transfer token.
    function lock(uint256 seed, uint256 amount) external {
        address depositor = depositors[seed % 3];
        address t = (seed >> 8) % 2 == 0 ? address(token) : address(fot);
        bool viaFeeTaker = (seed >> 16) % 2 == 0;
        address caller = viaFeeTaker ? feeTaker : depositor;
        amount = bound(amount, 1, 5_000e18);
        uint256 nonce = bridge.lockCount();
        (uint256 credited, Vm.Log[] memory logs) = _lockAs(caller, depositor, t, amount, recipients[seed % 2]);
        _checkLock(nonce, depositor, t, _received(t, amount), credited, viaFeeTaker, logs);
    }

    function _lockAs(address caller, address depositor, address t, uint256 amount, address to)
        internal
        returns (uint256 credited, Vm.Log[] memory logs)
    {
        MintableToken(t).mint(caller, amount);
        vm.prank(caller);
        IERC20(t).approve(address(bridge), amount);
        uint256 before = IERC20(t).balanceOf(address(bridge));
        vm.recordLogs();
        vm.prank(caller);
        bridge.lock(depositor, t, amount, t, amount, DESTINATION, to);
        logs = vm.getRecordedLogs();
        credited = IERC20(t).balanceOf(address(bridge)) - before;
    }

    function _checkLock(
        uint256 nonce,
        address depositor,
        address t,
        uint256 arrived,
        uint256 credited,
        bool viaFeeTaker,
        Vm.Log[] memory logs
    ) internal {
        if (nonce != _locks.length) _violation("nonce is not the next one");
        if (credited != arrived) _violation("lock credited other than what arrived");
        LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
        if (record.amount != credited) _violation("record amount is not the balance change");
        if (record.depositor != depositor) _violation("record depositor");
        if (record.token != t) _violation("record token");
        if (record.deadline != block.timestamp + bridge.lockTimeout()) _violation("record deadline");
        if (record.state != LockReleaseBridge.LockState.Locked) _violation("record state");
        (bool found, bool feesPaid, uint256 emitted) = _lockedEvent(logs);
        if (!found) _violation("no Locked event");
        if (emitted != credited) _violation("Locked event amount");
        if (feesPaid != viaFeeTaker) _violation("feesPaid is not 'through the fee taker'");

        _locks.push(LockGhost(t, depositor, credited, record.deadline, false, 0));
        creditedTotal[t] += credited;
        heldGhost[t] += credited;
        if (viaFeeTaker) ++locksViaFeeTaker;
        else ++locksDirect;
    }

    /// @notice Someone (usually the releaser) accepts a lock (or an unknown nonce).
    function accept(uint256 seed, uint256 nonceSeed) external {
        uint256 nonce = _pickNonce(nonceSeed);
        address caller = _pickCaller(seed, nonce);
        address current = bridge.releaser();
        LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
        bool expected = caller == current
            && (record.state == LockReleaseBridge.LockState.Accepted
                || (record.state == LockReleaseBridge.LockState.Locked && block.timestamp <= record.deadline));

        vm.prank(caller);
        (bool ok,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.accept, (nonce)));
        if (ok != expected) _violation(ok ? "accept succeeded where it must not" : "accept refused where it must not");
        if (ok && caller != current) ++nonReleaserSuccesses;
        if (!ok && caller != current && _isOldReleaser(caller)) ++refusedOldReleaserCalls;
        if (ok && nonce >= _locks.length) _violation("accepted a lock that does not exist");
        if (ok && nonce < _locks.length) {
            if (record.state == LockReleaseBridge.LockState.Locked) {
                ++accepts;
                heldGhost[record.token] -= record.amount;
            }
            _locks[nonce].accepted = true;
            if (bridge.locks(nonce).state != LockReleaseBridge.LockState.Accepted) _violation("accept did not stick");
        }
    }

    /// @notice Someone refunds a lock: the releaser at any time, anyone after the deadline.
    function refund(uint256 seed, uint256 nonceSeed) external {
        uint256 nonce = _pickNonce(nonceSeed);
        address caller = _pickCaller(seed, nonce);
        bool byReleaser = caller == bridge.releaser();
        LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
        // Half the time someone else waits for the deadline to pass first (the depositor taking its lock back).
        if (!byReleaser && record.state == LockReleaseBridge.LockState.Locked && (seed >> 12) % 2 == 0) {
            if (block.timestamp <= record.deadline) vm.warp(uint256(record.deadline) + 1 + (seed >> 16) % 1 hours);
        }
        bool expected =
            record.state == LockReleaseBridge.LockState.Locked && (byReleaser || block.timestamp > record.deadline);

        address t = record.token == address(0) ? address(token) : record.token;
        uint256 depositorBefore = IERC20(t).balanceOf(record.depositor);
        uint256 bridgeBefore = IERC20(t).balanceOf(address(bridge));
        uint256 freeBefore = _free(t);
        vm.recordLogs();
        vm.prank(caller);
        (bool ok,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.refund, (nonce)));
        Vm.Log[] memory logs = vm.getRecordedLogs();
        if (ok != expected) _violation(ok ? "refund succeeded where it must not" : "refund refused where it must not");
        // (g) A Locked lock's refund by an allowed caller never fails.
        if (!ok && expected) ++blockedRefunds;
        if (!ok) return;
        if (nonce >= _locks.length) return _violation("refunded a lock that does not exist");

        LockGhost storage ghost = _locks[nonce];
        ++ghost.refunds;
        refundedTotal[t] += record.amount;
        heldGhost[t] -= record.amount;
        if (freeBefore < record.amount) ++refundsOnlyTheHoldCovered;
        if (byReleaser) ++releaserRefunds;
        else ++lateRefunds;
        // Exactly the credited amount leaves the bridge, to the recorded depositor (less the token's own fee).
        if (record.amount != ghost.amount || record.depositor != ghost.depositor) ++refundViolations;
        if (bridgeBefore - IERC20(t).balanceOf(address(bridge)) != ghost.amount) ++refundViolations;
        if (IERC20(t).balanceOf(ghost.depositor) - depositorBefore != _received(t, ghost.amount)) ++refundViolations;
        if (!_refundedEvent(logs, nonce, ghost.depositor, t, ghost.amount)) ++refundViolations;
        if (bridge.locks(nonce).state != LockReleaseBridge.LockState.Refunded) _violation("refund did not stick");
    }

    /// @notice Someone (usually the releaser) releases one of a few messages, in either token.
    function release(uint256 seed, uint256 keySeed, uint256 amount) external {
        (uint256 chainId, address originBridge, uint256 nonce) = keyAt(keySeed);
        address caller = _pickReleaseCaller(seed);
        address t = (seed >> 8) % 2 == 0 ? address(token) : address(fot);
        address to = recipients[(seed >> 16) % 2];
        amount = bound(amount, 1, 3_000e18);
        // One time in two, exactly what the bucket lets out now (emptying it: the refill rate then shows).
        uint256 releasable = bridge.releasableNow(t);
        if ((seed >> 24) % 2 == 1 && releasable > 0) amount = releasable;
        // One time in eight, the bridge's whole balance of the token (what a drain of its locks would look like).
        uint256 balance = IERC20(t).balanceOf(address(bridge));
        if ((seed >> 20) % 8 == 7 && balance > 0) {
            amount = balance;
            if (heldGhost[t] > 0 && caller == bridge.releaser()) ++drainAttempts;
        }
        _release(caller, chainId, originBridge, nonce, t, amount, to);
    }

    /// @notice An old releaser (a leaked key after the rotation) tries to release and to accept: both must fail.
    function oldReleaserTries(uint256 seed, uint256 keySeed, uint256 amount) external {
        if (releasers.length < 2) return;
        address old = releasers[seed % (releasers.length - 1)];
        if (old == bridge.releaser()) return;
        (uint256 chainId, address originBridge, uint256 nonce) = keyAt(keySeed);
        _release(old, chainId, originBridge, nonce, address(token), bound(amount, 1, 3_000e18), old);
        if (_locks.length > 0) {
            uint256 lockNonce = keySeed % _locks.length;
            LockReleaseBridge.LockRecord memory record = bridge.locks(lockNonce);
            vm.prank(old);
            (bool ok,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.accept, (lockNonce)));
            if (ok) {
                ++nonReleaserSuccesses;
                _locks[lockNonce].accepted = true;
                if (record.state == LockReleaseBridge.LockState.Locked) heldGhost[record.token] -= record.amount;
            } else {
                ++refusedOldReleaserCalls;
            }
        }
    }

    /// @notice Anyone executes a queued release (maybe too early, maybe one that is no longer or never queued).
    function execute(uint256 seed, uint256 keySeed) external {
        (uint256 chainId, address originBridge, uint256 nonce) = keyAt(_pickKey(keySeed));
        bytes32 key = bridge.releaseKey(chainId, originBridge, nonce);
        PendingGhost memory pending = _pending[key];
        address caller = seed % 2 == 0 ? strangers[(seed >> 1) % 2] : depositors[seed % 3];
        // Half the time the caller waits for the delay to pass first.
        if (pending.executableAt > block.timestamp && (seed >> 12) % 2 == 0) {
            vm.warp(uint256(pending.executableAt) + (seed >> 16) % 1 hours);
        }
        bool due = pending.executableAt != 0 && block.timestamp >= pending.executableAt;
        // Paid only when no rotation came since it was queued, and only out of free liquidity.
        bool current = pending.rotation == rotations;
        bool liquid = pending.executableAt != 0 && _free(pending.token) >= pending.amount;
        bool expected = due && current && liquid;

        uint256 recipientBefore = pending.token == address(0) ? 0 : IERC20(pending.token).balanceOf(pending.recipient);
        vm.recordLogs();
        vm.prank(caller);
        (bool ok,) =
            address(bridge).call(abi.encodeCall(LockReleaseBridge.executeRelease, (chainId, originBridge, nonce)));
        Vm.Log[] memory logs = vm.getRecordedLogs();
        if (ok != expected) {
            _violation(ok ? "execute succeeded where it must not" : "execute refused where it must not");
        }
        if (!ok && due && !current) ++refusedRotatedExecutions;
        if (!ok && due && current && !liquid) ++refusedForLiquidity;
        if (!ok) return;
        // Counted whatever the ghost expected: invariant (a) sees every payment.
        uint256 paidHere = _countReleased(logs);
        ++executed;
        if (!expected) return;
        delete _pending[key];
        if (paidHere != pending.amount) _violation("execute paid other than the queued amount");
        if (
            IERC20(pending.token).balanceOf(pending.recipient) - recipientBefore
                != _received(pending.token, pending.amount)
        ) {
            _violation("execute paid the recipient wrong");
        }
    }

    /// @notice The owner (or someone else, who must fail) cancels a queued release.
    function cancel(uint256 seed, uint256 keySeed) external {
        (uint256 chainId, address originBridge, uint256 nonce) = keyAt(_pickKey(keySeed));
        bytes32 key = bridge.releaseKey(chainId, originBridge, nonce);
        address caller = seed % 4 == 0 ? (seed % 8 == 0 ? strangers[0] : bridge.releaser()) : owner;
        bool expected = caller == owner && _pending[key].executableAt != 0;
        vm.prank(caller);
        (bool ok,) =
            address(bridge).call(abi.encodeCall(LockReleaseBridge.cancelRelease, (chainId, originBridge, nonce)));
        if (ok != expected) _violation(ok ? "cancel succeeded where it must not" : "cancel refused where it must not");
        if (!ok) return;
        ++cancelled;
        delete _pending[key];
        if (bridge.released(chainId, originBridge, nonce)) _violation("a cancelled message stays released");
    }

    /// @notice The owner rotates the releaser.
    function rotate(uint256 seed) external {
        address next = address(uint160(0x5E0000 + releasers.length));
        // Now and then back to an earlier key (it is current again, so it may act again).
        if (seed % 5 == 0) next = releasers[seed % releasers.length];
        vm.prank(owner);
        bridge.setReleaser(next);
        releasers.push(next);
        ++rotations;
    }

    /// @notice The owner changes a token's hourly limit (0: every release waits).
    ///         Now and then it tries one above the bucket's uint192, which must be refused.
    function setLimit(uint256 seed, uint256 limit) external {
        address t = seed % 2 == 0 ? address(token) : address(fot);
        if ((seed >> 8) % 16 == 0) {
            uint256 before = bridge.releaseLimit(t);
            vm.prank(owner);
            (bool ok,) = address(bridge)
                .call(
                    abi.encodeCall(
                        LockReleaseBridge.setReleaseLimit,
                        (t, bound(limit, uint256(type(uint192).max) + 1, type(uint256).max))
                    )
                );
            if (ok || bridge.releaseLimit(t) != before) _violation("a limit above uint192 was taken");
            ++refusedLimitsAboveTheCap;
            return;
        }
        limit = seed % 7 == 0 ? 0 : bound(limit, 1, 4_000e18);
        vm.prank(owner);
        bridge.setReleaseLimit(t, limit);
        // The rate check starts afresh with the new limit (the bucket itself carries on).
        delete _atOnce[t];
    }

    function wait(uint256 seconds_) external {
        // Mostly within the window or the delay, sometimes past a lock's deadline.
        uint256 max = seconds_ % 4 == 0 ? 2 days : 2 hours;
        vm.warp(block.timestamp + bound(seconds_ >> 2, 1, max));
    }

    // ---- internals ----

    function _release(
        address caller,
        uint256 chainId,
        address originBridge,
        uint256 nonce,
        address t,
        uint256 amount,
        address to
    ) internal {
        _releaseCall(ReleaseCall(caller, chainId, originBridge, nonce, t, amount, to));
    }

    function _releaseCall(ReleaseCall memory c) internal {
        address current = bridge.releaser();
        // The token bucket, mirrored.
        uint256 available = _available(c.token);
        if (bridge.releasableNow(c.token) != available) _violation("releasableNow is not the bucket's");
        bool atOnce = c.amount <= available;
        // Paid at once only out of free liquidity: never what unaccepted locks hold.
        bool liquid = _free(c.token) >= c.amount;
        bool open = c.caller == current && !bridge.released(c.chainId, c.originBridge, c.nonce);
        bool expected = open && (!atOnce || liquid);

        uint256 recipientBefore = IERC20(c.token).balanceOf(c.recipient);
        vm.recordLogs();
        vm.prank(c.caller);
        (bool ok,) = address(bridge)
            .call(
                abi.encodeCall(
                    LockReleaseBridge.release, (c.chainId, c.originBridge, c.nonce, c.token, c.amount, c.recipient)
                )
            );
        Vm.Log[] memory logs = vm.getRecordedLogs();
        if (ok != expected) {
            _violation(ok ? "release succeeded where it must not" : "release refused where it must not");
        }
        if (ok && c.caller != current) ++nonReleaserSuccesses;
        if (!ok && c.caller != current) {
            if (_isOldReleaser(c.caller)) ++refusedOldReleaserCalls;
            else ++refusedStrangerReleases;
        }
        if (!ok && open && atOnce && !liquid) ++refusedForLiquidity;
        if (!ok) return;
        if (!bridge.released(c.chainId, c.originBridge, c.nonce)) _violation("a release did not mark its message");

        uint256 paidHere = _countReleased(logs);
        if (atOnce) {
            ++paidAtOnce;
            uint256 limit = bridge.releaseLimit(c.token);
            _bucket[c.token] = Bucket(block.timestamp, limit - available + c.amount);
            _checkRate(c.token, c.amount, limit);
            if (paidHere != c.amount) _violation("released within the limit but not paid");
            if (IERC20(c.token).balanceOf(c.recipient) - recipientBefore != _received(c.token, c.amount)) {
                _violation("recipient paid wrong");
            }
        } else {
            if (paidHere != 0) _violation("paid beyond the limit at once");
            _checkQueued(c);
        }
    }

    function _checkQueued(ReleaseCall memory c) internal {
        ++queued;
        LockReleaseBridge.PendingRelease memory pending = bridge.pendingRelease(c.chainId, c.originBridge, c.nonce);
        if (pending.executableAt != block.timestamp + bridge.releaseDelay()) _violation("queued time");
        if (pending.amount != c.amount || pending.token != c.token || pending.recipient != c.recipient) {
            _violation("queued what");
        }
        if (pending.queuedBy != c.caller) _violation("queued by");
        bytes32 key = bridge.releaseKey(c.chainId, c.originBridge, c.nonce);
        _pending[key] = PendingGhost(c.token, c.recipient, c.amount, pending.executableAt, c.caller, rotations);
        _queuedKeys.push(
            (c.chainId == originChains[1] ? 1 : 0) | (c.originBridge == originBridges[1] ? 2 : 0) | (c.nonce << 2)
        );
    }

    /// @dev What the bucket lets out at once now: the limit less what was spent and not yet refilled (refilled at
    ///      the limit per hour, full after an idle hour).
    function _available(address t) internal view returns (uint256) {
        uint256 limit = bridge.releaseLimit(t);
        Bucket memory b = _bucket[t];
        uint256 elapsed = block.timestamp - b.updatedAt;
        if (elapsed >= 1 hours) return limit;
        uint256 refilled = (elapsed * limit) / 1 hours;
        uint256 spent = b.spent > refilled ? b.spent - refilled : 0;
        return spent >= limit ? 0 : limit - spent;
    }

    /// @dev The balance less what unaccepted locks hold (by the ghost): what releases may pay out of.
    function _free(address t) internal view returns (uint256) {
        uint256 balance = IERC20(t).balanceOf(address(bridge));
        uint256 held = heldGhost[t];
        return balance > held ? balance - held : 0;
    }

    /// @dev The rate, independently of the bucket's arithmetic: since the limit was set, what was paid at once from
    ///      any earlier at-once release on is at most a limit plus the limit's share of the time since.
    function _checkRate(address t, uint256 amount, uint256 limit) internal {
        AtOnce[] storage log = _atOnce[t];
        log.push(AtOnce(block.timestamp, amount));
        uint256 sum;
        for (uint256 i = log.length; i > 0; --i) {
            sum += log[i - 1].amount;
            if (sum > limit + ((block.timestamp - log[i - 1].at) * limit) / 1 hours) {
                return _violation("paid at once faster than the limit per hour");
            }
        }
    }

    /// @dev Counts the bridge's Released events in `logs` per message key; returns the total amount they paid.
    function _countReleased(Vm.Log[] memory logs) internal returns (uint256 total) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Released.selector) {
                continue;
            }
            bytes32 key = keccak256(abi.encode(logs[i].topics[1], logs[i].topics[2], logs[i].topics[3]));
            ++paidCount[key];
            (address t, uint256 amount,) = abi.decode(logs[i].data, (address, uint256, address));
            paidTotal[t] += amount;
            total += amount;
        }
    }

    function _lockedEvent(Vm.Log[] memory logs) internal view returns (bool found, bool feesPaid, uint256 amount) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Locked.selector) continue;
            found = true;
            (, amount,,,,, feesPaid) =
                abi.decode(logs[i].data, (address, uint256, address, uint256, address, uint32, bool));
        }
    }

    function _refundedEvent(Vm.Log[] memory logs, uint256 nonce, address depositor, address t, uint256 amount)
        internal
        view
        returns (bool)
    {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Refunded.selector) {
                continue;
            }
            (address et, uint256 ea) = abi.decode(logs[i].data, (address, uint256));
            return logs[i].topics[1] == bytes32(nonce) && logs[i].topics[2] == bytes32(uint256(uint160(depositor)))
                && et == t && ea == amount;
        }
        return false;
    }

    /// @dev What a transfer of `amount` delivers (the fee-on-transfer token burns its fee on the way).
    function _received(address t, uint256 amount) internal view returns (uint256) {
        return t == address(fot) ? amount - (amount * fot.feeBps()) / 10_000 : amount;
    }

    /// @dev Three times in four a message that was queued at some point (still pending, executed or cancelled).
    function _pickKey(uint256 seed) internal view returns (uint256) {
        if (_queuedKeys.length == 0 || (seed >> 8) % 4 == 0) return seed % KEYS;
        return _queuedKeys[seed % _queuedKeys.length];
    }

    /// @dev A known lock mostly; now and then one that does not exist.
    function _pickNonce(uint256 seed) internal view returns (uint256) {
        if (_locks.length == 0 || (seed >> 8) % 16 == 1) return _locks.length + seed % 3;
        return seed % _locks.length;
    }

    /// @dev For accept and refund: the releaser half the time, else an old releaser, the lock's depositor, a
    ///      stranger or the owner.
    function _pickCaller(uint256 seed, uint256 nonce) internal view returns (address) {
        uint256 who = (seed >> 4) % 8;
        if (who < 4) return bridge.releaser();
        if (who == 4 && releasers.length > 1) return releasers[seed % releasers.length];
        if (who == 5 && nonce < _locks.length) return _locks[nonce].depositor;
        if (who == 6) return owner;
        return strangers[seed % 2];
    }

    function _pickReleaseCaller(uint256 seed) internal view returns (address) {
        uint256 who = (seed >> 4) % 8;
        if (who < 5) return bridge.releaser();
        if (who == 5 && releasers.length > 1) return releasers[seed % releasers.length];
        if (who == 6) return owner;
        return strangers[seed % 2];
    }

    function _isOldReleaser(address account) internal view returns (bool) {
        for (uint256 i; i + 1 < releasers.length; ++i) {
            if (releasers[i] == account) return true;
        }
        return false;
    }

    function _violation(string memory what) internal {
        ++violations;
        lastViolation = what;
    }
}

/// @notice Invariants of the LockReleaseBridge under the handler's random mix of locks, accepts, refunds, releases,
///         executions, cancels, rotations and waits: (a) a message is paid at most once; (b) only the releaser of
///         the moment ever releases or accepts; (c) the bridge's balance of each token moves only by credited locks,
///         refunds and paid releases; (d) a lock is refunded at most once and never both accepted and refunded;
///         (e) a refund pays exactly the credited amount to the recorded depositor; (f) the bridge's balance of each
///         token covers heldForRefunds, which is exactly the sum of the Locked locks; (g) a Locked lock's refund by
///         an allowed caller never fails (and all of them together would be paid at any moment); and every call did
///         exactly what the contract promises (releases paid at once within the token bucket, only out of free
///         liquidity, queued ones executed only while their releaser is current).
contract LockReleaseBridgeInvariantTest is TestBase {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    uint256 internal constant LIQUIDITY = 1_000_000e18;
    uint256 internal constant FOT_LIQUIDITY = 1_000e18;
    address internal constant OWNER = address(0x0A11);
    address internal constant RELEASER = address(0x5E1E);
    address internal constant FEE_TAKER = address(0xFEE0);

    LockReleaseBridge internal bridge;
    MintableToken internal token;
    FeeOnTransferToken internal fot;
    LockReleaseBridgeHandler internal handler;

    function setUp() public {
        vm.warp(1_700_000_000);
        token = new MintableToken("TKN", 18);
        fot = new FeeOnTransferToken("FOT", 100);
        // The wrapped native is not exercised here (the unit tests cover native payouts).
        bridge = new LockReleaseBridge(OWNER, RELEASER, address(new MintableToken("WETH", 18)), 1 days, 6 hours);
        token.mint(address(bridge), LIQUIDITY);
        // Little liquidity of the fee-on-transfer token: its releases soon run into what its locks hold.
        fot.mint(address(bridge), FOT_LIQUIDITY);
        vm.startPrank(OWNER);
        bridge.setFeeTaker(FEE_TAKER);
        bridge.setReleaseLimit(address(token), 1_000e18);
        bridge.setReleaseLimit(address(fot), 500e18);
        vm.stopPrank();
        handler = new LockReleaseBridgeHandler(bridge, token, fot, FEE_TAKER);
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory selectors) {
        bytes4[] memory fns = new bytes4[](14);
        fns[0] = LockReleaseBridgeHandler.lock.selector;
        fns[1] = LockReleaseBridgeHandler.lock.selector;
        fns[2] = LockReleaseBridgeHandler.accept.selector;
        fns[3] = LockReleaseBridgeHandler.refund.selector;
        fns[4] = LockReleaseBridgeHandler.refund.selector;
        fns[5] = LockReleaseBridgeHandler.release.selector;
        fns[6] = LockReleaseBridgeHandler.release.selector;
        fns[7] = LockReleaseBridgeHandler.oldReleaserTries.selector;
        fns[8] = LockReleaseBridgeHandler.execute.selector;
        fns[9] = LockReleaseBridgeHandler.cancel.selector;
        fns[10] = LockReleaseBridgeHandler.rotate.selector;
        fns[11] = LockReleaseBridgeHandler.setLimit.selector;
        fns[12] = LockReleaseBridgeHandler.wait.selector;
        fns[13] = LockReleaseBridgeHandler.wait.selector;
        selectors = new FuzzSelector[](1);
        selectors[0] = FuzzSelector(address(handler), fns);
    }

    // ---- invariants ----

    /// @dev (a) Released events per (origin chain, origin bridge, nonce): at most one, and only for a released key.
    function invariant_MessagePaidAtMostOnce() public view {
        for (uint256 i; i < handler.keyCount(); ++i) {
            (uint256 chainId, address originBridge, uint256 nonce) = handler.keyAt(i);
            uint256 count = handler.paidCount(bridge.releaseKey(chainId, originBridge, nonce));
            vm.assertLe(count, 1, "a message paid twice");
            if (count == 1) vm.assertTrue(bridge.released(chainId, originBridge, nonce), "paid but not released");
        }
    }

    /// @dev (b) No release or accept by anyone but the releaser of the moment (old releasers included).
    function invariant_OnlyTheCurrentReleaserReleasesOrAccepts() public view {
        vm.assertEq(handler.nonReleaserSuccesses(), 0, "a release or accept by a non-releaser succeeded");
        vm.assertEq(bridge.releaser(), handler.releasers(handler.releaserCount() - 1), "releaser tracked");
    }

    /// @dev (c) balance == liquidity + credited locks − refunds − paid releases, per token.
    function invariant_BalanceMovesOnlyByLocksRefundsAndReleases() public view {
        address[2] memory tokens = [address(token), address(fot)];
        for (uint256 i; i < 2; ++i) {
            address t = tokens[i];
            vm.assertEq(
                IERC20(t).balanceOf(address(bridge)),
                handler.initialLiquidity(t) + handler.creditedTotal(t) - handler.refundedTotal(t)
                    - handler.paidTotal(t),
                "bridge balance"
            );
        }
    }

    /// @dev (d) A lock is refunded at most once and never both accepted and refunded; the record agrees.
    function invariant_LockRefundedOnceNeverAcceptedAndRefunded() public view {
        uint256 count = handler.lockGhostCount();
        vm.assertEq(bridge.lockCount(), count, "lock count");
        for (uint256 nonce; nonce < count; ++nonce) {
            LockReleaseBridgeHandler.LockGhost memory ghost = handler.lockGhost(nonce);
            vm.assertLe(ghost.refunds, 1, "refunded twice");
            vm.assertFalse(ghost.accepted && ghost.refunds > 0, "accepted and refunded");
            LockReleaseBridge.LockState state = bridge.locks(nonce).state;
            LockReleaseBridge.LockState expected = ghost.refunds > 0
                ? LockReleaseBridge.LockState.Refunded
                : ghost.accepted ? LockReleaseBridge.LockState.Accepted : LockReleaseBridge.LockState.Locked;
            vm.assertEq(uint256(state), uint256(expected), "lock state");
        }
    }

    /// @dev (e) Every refund paid the credited amount, to the recorded depositor.
    function invariant_RefundPaysTheCreditedAmountToTheDepositor() public view {
        vm.assertEq(handler.refundViolations(), 0, "a refund paid the wrong amount or account");
    }

    /// @dev (f) Per token: the balance covers heldForRefunds, and heldForRefunds is exactly the sum of the amounts
    ///      of the locks still Locked (neither accepted nor refunded).
    function invariant_BalanceCoversExactlyTheLockedLocks() public view {
        uint256[2] memory sums;
        uint256 count = handler.lockGhostCount();
        for (uint256 nonce; nonce < count; ++nonce) {
            LockReleaseBridgeHandler.LockGhost memory ghost = handler.lockGhost(nonce);
            if (!ghost.accepted && ghost.refunds == 0) sums[ghost.token == address(token) ? 0 : 1] += ghost.amount;
        }
        address[2] memory tokens = [address(token), address(fot)];
        for (uint256 i; i < 2; ++i) {
            address t = tokens[i];
            vm.assertEq(bridge.heldForRefunds(t), sums[i], "heldForRefunds is not the sum of the Locked locks");
            vm.assertEq(handler.heldGhost(t), sums[i], "the handler's hold");
            vm.assertGe(IERC20(t).balanceOf(address(bridge)), bridge.heldForRefunds(t), "balance below the hold");
        }
    }

    /// @dev (g) No refund of a Locked lock by an allowed caller ever failed; and at this moment all the Locked locks,
    ///      refunded one after the other once past their deadlines, are all paid (tried, then undone).
    function invariant_EveryLockedLockIsRefundable() public {
        vm.assertEq(handler.blockedRefunds(), 0, "a Locked lock's refund by an allowed caller failed");
        uint256 count = handler.lockGhostCount();
        uint256 now_ = block.timestamp;
        uint256 snapshot = vm.snapshotState();
        uint256 latest = now_;
        for (uint256 nonce; nonce < count; ++nonce) {
            LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
            if (record.state == LockReleaseBridge.LockState.Locked && record.deadline >= latest) {
                latest = uint256(record.deadline) + 1;
            }
        }
        vm.warp(latest);
        for (uint256 nonce; nonce < count; ++nonce) {
            LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
            if (record.state != LockReleaseBridge.LockState.Locked) continue;
            uint256 before = IERC20(record.token).balanceOf(address(bridge));
            vm.prank(address(0xBAD9));
            (bool ok,) = address(bridge).call(abi.encodeCall(LockReleaseBridge.refund, (nonce)));
            vm.assertTrue(ok, "a Locked lock could not be refunded");
            vm.assertEq(before - IERC20(record.token).balanceOf(address(bridge)), record.amount, "refund amount");
        }
        vm.assertEq(bridge.heldForRefunds(address(token)), 0, "token hold left");
        vm.assertEq(bridge.heldForRefunds(address(fot)), 0, "fot hold left");
        vm.revertToState(snapshot);
        vm.warp(now_);
    }

    /// @dev Every call succeeded exactly when the contract says it should and moved what it should.
    function invariant_EveryCallAsPromised() public view {
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
    }

    /// @dev The handler is not vacuous: a fixed sequence reaches every path it checks.
    function test_HandlerReachesEveryPath() public {
        uint256 hour = (1 hours << 2) | 1; // wait(hour): exactly an hour
        uint256 fotSeed = 1 << 8; // release(fotSeed, ...): the releaser, the fee-on-transfer token
        for (uint256 i; i < 6; ++i) {
            // Depositor i % 3; the fee-on-transfer token for odd i; through the fee taker for i in {0, 1, 4, 5}.
            handler.lock(i | ((i % 2) << 8) | (((i >> 1) % 2) << 16), 100e18 + i);
        }
        handler.accept(0, 0); // releaser accepts lock 0
        handler.refund(0, 1); // releaser refunds lock 1
        handler.refund(0, 0); // refund of an accepted lock: refused
        handler.accept(0, 1); // accept of a refunded lock: refused
        handler.refund((7 << 4) | (1 << 12), 2); // a stranger before the deadline: refused
        handler.release(0, 0, 600e18); // paid at once
        handler.release(0, 0, 600e18); // again: refused
        handler.release(0, 1, 600e18); // another message beyond what is left in the bucket: queued
        handler.release(0, 2, 3_000e18); // queued
        handler.release(7 << 4, 3, 1e18); // a stranger: refused
        handler.setLimit(0, 0); // a limit above uint192: refused

        // The fee-on-transfer token's free liquidity (1,000) runs out; its locks 3 and 5 stay held.
        handler.release(fotSeed, 4, 500e18); // paid at once
        handler.wait(hour);
        handler.release(fotSeed, 5, 500e18); // paid at once: nothing free is left
        handler.wait(hour);
        handler.release(fotSeed, 6, 100e18); // fits the bucket, not the free liquidity: refused
        handler.release(fotSeed | (7 << 20), 7, 1); // the whole balance (only locks): refused
        handler.release(fotSeed, 8, 3_000e18); // queued by the first releaser

        handler.rotate(1);
        handler.oldReleaserTries(0, 4, 1e18); // the old releaser: refused
        handler.execute(1 << 12, 1); // too early: refused
        handler.cancel(1, 2); // the owner cancels message 2
        handler.execute(0, 1); // once due: refused, its releaser was rotated away
        handler.execute(0, 8); // likewise
        handler.release(0, 2, 1e18); // the cancelled message, again: paid by the new releaser
        handler.release(0, 9, 3_000e18); // queued by the new releaser
        handler.release(fotSeed, 10, 3_000e18); // queued by the new releaser, in the drained token
        handler.execute(0, 9); // paid
        handler.execute(0, 10); // due, current releaser, no free liquidity: refused
        handler.refund(0, 3); // the releaser refunds a fee-on-transfer lock that only the hold covers
        handler.wait(4 * 2 days);
        handler.refund(7 << 4, 5); // a stranger after the deadline, again only the hold covers it
        handler.accept(0, 2); // too late: refused

        vm.assertGt(handler.locksViaFeeTaker(), 0, "locks via the fee taker");
        vm.assertGt(handler.locksDirect(), 0, "direct locks");
        vm.assertGt(handler.accepts(), 0, "accepts");
        vm.assertGt(handler.releaserRefunds(), 0, "releaser refunds");
        vm.assertGt(handler.lateRefunds(), 0, "late refunds");
        vm.assertGt(handler.paidAtOnce(), 1, "paid at once");
        vm.assertGt(handler.queued(), 1, "queued");
        vm.assertGt(handler.executed(), 0, "executed");
        vm.assertGt(handler.cancelled(), 0, "cancelled");
        vm.assertGt(handler.rotations(), 0, "rotations");
        vm.assertGt(handler.refusedOldReleaserCalls(), 0, "old releaser refused");
        vm.assertGt(handler.refusedStrangerReleases(), 0, "stranger refused");
        vm.assertGt(handler.refusedForLiquidity(), 2, "refused for liquidity (at once and delayed)");
        vm.assertGt(handler.drainAttempts(), 0, "drain attempted");
        vm.assertEq(handler.refusedRotatedExecutions(), 2, "executions of a rotated releaser's queue refused");
        vm.assertEq(handler.refundsOnlyTheHoldCovered(), 2, "refunds only the hold covered");
        vm.assertGt(handler.refusedLimitsAboveTheCap(), 0, "limit above the cap refused");
        vm.assertEq(handler.blockedRefunds(), 0, "no refund blocked");
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
        invariant_MessagePaidAtMostOnce();
        invariant_OnlyTheCurrentReleaserReleasesOrAccepts();
        invariant_BalanceMovesOnlyByLocksRefundsAndReleases();
        invariant_LockRefundedOnceNeverAcceptedAndRefunded();
        invariant_RefundPaysTheCreditedAmountToTheDepositor();
        invariant_BalanceCoversExactlyTheLockedLocks();
        invariant_EveryLockedLockIsRefundable();
    }
}
