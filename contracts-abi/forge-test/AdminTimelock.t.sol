// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {OrderFixture} from "./utils/OrderFixture.sol";
import {Vm} from "./utils/Vm.sol";
import {Guarded} from "../src/Guarded.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";
import {PathExecutor} from "../src/PathExecutor.sol";
import {SwapRouter} from "../src/SwapRouter.sol";
import {TokenSpender} from "../src/TokenSpender.sol";
import {TestExternalSource} from "../src/test/TestExternalSource.sol";

/// @notice Admin powers a user can live with, through a real OpenZeppelin TimelockController as the owner of the
///         OrderExecutor, the TokenSpender and the SwapRouter (as `contracts:deploy --owner` leaves them): every
///         change that widens what a key can do to users' funds waits the timelock's delay; the guardian narrows at
///         once and can never widen; a raised maxFeeBps never reaches an authorization signed before it.
contract AdminTimelockTest is OrderFixture {
    /// @dev The deploy tool's default `--timelock-delay` (the README states it).
    uint256 internal constant DELAY = 2 days;

    TimelockController internal timelock;
    TokenSpender internal spender;
    SwapRouter internal router;
    TestExternalSource internal source;
    /// @dev The `--owner` multisig: the timelock's only proposer and executor.
    address internal multisig = address(0x5AFE);
    address internal guardianKey = address(0x6A4D);
    address internal stranger = address(0xBAD);
    uint256 internal salts;

    function setUp() public {
        _deployOrderWorld(false);
        spender = new TokenSpender(address(this));
        router = new SwapRouter(address(this), address(weth), venues, address(spender), address(0), 0);
        spender.setCaller(address(router), true);
        source = new TestExternalSource();

        address[] memory roles = new address[](1);
        roles[0] = multisig;
        // No admin: the timelock governs itself, so even its own settings wait the delay.
        timelock = new TimelockController(DELAY, roles, roles, address(0));
        Ownable[3] memory owned = [Ownable(address(oe)), Ownable(address(spender)), Ownable(address(router))];
        for (uint256 i; i < owned.length; ++i) {
            vm.assertEq(Guarded(address(owned[i])).guardian(), address(0), "no guardian by default");
            Guarded(address(owned[i])).setGuardian(guardianKey);
            owned[i].transferOwnership(address(timelock));
        }
        vm.label(address(timelock), "timelock");
        vm.label(multisig, "multisig");
        vm.label(guardianKey, "guardian");
    }

    // ---- the timelock ----

    /// @dev Schedules `data` on `target` as the multisig; returns the salt to execute it with.
    function _schedule(address target, bytes memory data) internal returns (bytes32 salt) {
        salt = bytes32(++salts);
        vm.prank(multisig);
        timelock.schedule(target, 0, data, bytes32(0), salt, DELAY);
    }

    function _execute(address target, bytes memory data, bytes32 salt) internal {
        vm.prank(multisig);
        timelock.execute(target, 0, data, bytes32(0), salt);
    }

    /// @dev The widening calls: each reverts when the multisig or the guardian calls it directly, cannot run before
    ///      the delay, and applies once scheduled, waited for and executed.
    function _widenings() internal view returns (address[5] memory targets, bytes[5] memory calls) {
        targets = [address(oe), address(spender), address(oe), address(oe), address(router)];
        calls[0] = abi.encodeCall(OrderExecutor.setExecutor, (stranger, true));
        calls[1] = abi.encodeCall(TokenSpender.setCaller, (stranger, true));
        calls[2] = abi.encodeCall(OrderExecutor.setMaxFeeBps, (MAX_FEE_BPS + 100));
        calls[3] = abi.encodeCall(PathExecutor.setSourceWhitelisted, (address(source), true));
        calls[4] = calls[3];
    }

    /// @dev The i-th widening called directly (typed, so a prank reaches it).
    function _widenDirectly(uint256 i) internal {
        if (i == 0) oe.setExecutor(stranger, true);
        else if (i == 1) spender.setCaller(stranger, true);
        else if (i == 2) oe.setMaxFeeBps(MAX_FEE_BPS + 100);
        else if (i == 3) oe.setSourceWhitelisted(address(source), true);
        else router.setSourceWhitelisted(address(source), true);
    }

    function _applied(uint256 i) internal view returns (bool) {
        if (i == 0) return oe.isExecutor(stranger);
        if (i == 1) return spender.isCaller(stranger);
        if (i == 2) return oe.maxFeeBps() == MAX_FEE_BPS + 100;
        if (i == 3) return oe.isWhitelistedSource(address(source));
        return router.isWhitelistedSource(address(source));
    }

    function test_WideningWaitsForTheTimelock() public {
        (address[5] memory targets, bytes[5] memory calls) = _widenings();
        for (uint256 i; i < targets.length; ++i) {
            address[2] memory direct = [multisig, guardianKey];
            for (uint256 k; k < direct.length; ++k) {
                vm.prank(direct[k]);
                vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, direct[k]));
                _widenDirectly(i);
            }
            // Nobody can ask for less than the delay.
            vm.prank(multisig);
            vm.expectRevert(abi.encodeWithSelector(TimelockController.TimelockInsufficientDelay.selector, DELAY - 1, DELAY));
            timelock.schedule(targets[i], 0, calls[i], bytes32(0), bytes32(0), DELAY - 1);

            bytes32 salt = _schedule(targets[i], calls[i]);
            bytes32 id = timelock.hashOperation(targets[i], 0, calls[i], bytes32(0), salt);
            vm.warp(block.timestamp + DELAY - 1);
            vm.prank(multisig);
            vm.expectRevert(
                abi.encodeWithSelector(
                    TimelockController.TimelockUnexpectedOperationState.selector,
                    id,
                    bytes32(1 << uint8(TimelockController.OperationState.Ready))
                )
            );
            timelock.execute(targets[i], 0, calls[i], bytes32(0), salt);
            vm.assertFalse(_applied(i), "not applied before the delay");

            vm.warp(block.timestamp + 1);
            // Only the timelock's executor runs it, even once ready.
            vm.prank(stranger);
            vm.expectRevert();
            timelock.execute(targets[i], 0, calls[i], bytes32(0), salt);
            _execute(targets[i], calls[i], salt);
            vm.assertTrue(_applied(i), "applied after schedule + delay + execute");
        }
    }

    /// @dev The multisig can cancel a widening it scheduled: it never applies.
    function test_ScheduledWideningCanBeCancelled() public {
        bytes memory data = abi.encodeCall(OrderExecutor.setExecutor, (stranger, true));
        bytes32 salt = _schedule(address(oe), data);
        bytes32 id = timelock.hashOperation(address(oe), 0, data, bytes32(0), salt);
        vm.prank(multisig);
        timelock.cancel(id);
        vm.warp(block.timestamp + DELAY);
        vm.prank(multisig);
        vm.expectRevert();
        timelock.execute(address(oe), 0, data, bytes32(0), salt);
        vm.assertFalse(oe.isExecutor(stranger), "cancelled");
    }

    // ---- the guardian ----

    function test_GuardianNarrowsAtOnce() public {
        // Widened first, through the timelock.
        (address[5] memory targets, bytes[5] memory calls) = _widenings();
        bytes32[5] memory salts_;
        for (uint256 i; i < targets.length; ++i) {
            salts_[i] = _schedule(targets[i], calls[i]);
        }
        vm.warp(block.timestamp + DELAY);
        for (uint256 i; i < targets.length; ++i) {
            _execute(targets[i], calls[i], salts_[i]);
        }
        vm.assertTrue(oe.isExecutor(executor) && oe.isExecutor(stranger), "executors registered");

        vm.startPrank(guardianKey);
        oe.setExecutor(stranger, false);
        oe.setExecutor(executor, false);
        spender.setCaller(stranger, false);
        spender.setCaller(address(router), false);
        oe.setMaxFeeBps(MAX_FEE_BPS + 100); // keeping the cap is not a raise
        oe.setMaxFeeBps(10);
        oe.setMaxFeeBps(0);
        oe.setSourceWhitelisted(address(source), false);
        router.setSourceWhitelisted(address(source), false);
        vm.stopPrank();

        vm.assertFalse(oe.isExecutor(stranger) || oe.isExecutor(executor), "executors removed");
        vm.assertFalse(spender.isCaller(stranger) || spender.isCaller(address(router)), "callers removed");
        vm.assertEq(oe.maxFeeBps(), 0, "cap lowered");
        vm.assertFalse(oe.isWhitelistedSource(address(source)), "source removed (executor)");
        vm.assertFalse(router.isWhitelistedSource(address(source)), "source removed (router)");

        // The removed executor key is cut off at once.
        OrderExecutor.Group[] memory groups = _one(_group0(_signedOrder(makers[0], 0, 1e18, 0, 0)));
        vm.prank(executor);
        vm.expectRevert(OrderExecutor.NotExecutor.selector);
        oe.executeBatch(groups, block.timestamp);
    }

    function _group0(OrderExecutor.Order memory o) internal view returns (OrderExecutor.Group memory g) {
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](1);
        orders[0] = o;
        g = OrderExecutor.Group(pairs[0].tokenIn, pairs[0].tokenOut, _honestPaths(pairs[0]), orders);
    }

    /// @dev The guardian cannot widen anything, nor touch the owner's other settings; a stranger cannot even
    ///      narrow.
    function testFuzz_GuardianCannotWiden(address grantee, uint16 raise) public {
        uint16 higher = uint16(bound(raise, MAX_FEE_BPS + 1, oe.MAX_FEE_BPS_LIMIT()));
        bytes memory unauthorized = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, guardianKey);
        vm.startPrank(guardianKey);
        vm.expectRevert(unauthorized);
        oe.setExecutor(grantee, true);
        vm.expectRevert(unauthorized);
        spender.setCaller(grantee, true);
        vm.expectRevert(unauthorized);
        oe.setMaxFeeBps(higher);
        vm.expectRevert(unauthorized);
        oe.setSourceWhitelisted(address(source), true);
        vm.expectRevert(unauthorized);
        router.setSourceWhitelisted(address(source), true);
        vm.expectRevert(unauthorized);
        oe.setGuardian(grantee);
        vm.expectRevert(unauthorized);
        oe.setFeeCollector(grantee);
        vm.expectRevert(unauthorized);
        router.setProtocolFee(10, grantee);
        vm.expectRevert(unauthorized);
        oe.transferOwnership(grantee);
        vm.stopPrank();

        vm.startPrank(stranger);
        bytes memory notGuardian = abi.encodeWithSelector(Guarded.NotOwnerOrGuardian.selector, stranger);
        vm.expectRevert(notGuardian);
        oe.setExecutor(executor, false);
        vm.expectRevert(notGuardian);
        spender.setCaller(address(router), false);
        vm.expectRevert(notGuardian);
        oe.setMaxFeeBps(0);
        vm.expectRevert(notGuardian);
        oe.setSourceWhitelisted(address(source), false);
        vm.stopPrank();
        vm.assertTrue(oe.isExecutor(executor) && spender.isCaller(address(router)), "nothing changed");
        vm.assertEq(oe.maxFeeBps(), MAX_FEE_BPS, "cap unchanged");
    }

    /// @dev Rotating the guardian is the owner's, through the timelock; the old guardian loses its power.
    function test_GuardianRotation() public {
        address next = address(0x6A4E);
        bytes memory data = abi.encodeCall(Guarded.setGuardian, (next));
        bytes32 salt = _schedule(address(oe), data);
        vm.warp(block.timestamp + DELAY);
        vm.recordLogs();
        _execute(address(oe), data, salt);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bool emitted;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == address(oe) && logs[i].topics[0] == keccak256("GuardianSet(address)")) {
                emitted = logs[i].topics[1] == bytes32(uint256(uint160(next)));
            }
        }
        vm.assertTrue(emitted, "GuardianSet(next)");
        vm.assertEq(oe.guardian(), next, "rotated");
        vm.prank(guardianKey);
        vm.expectRevert(abi.encodeWithSelector(Guarded.NotOwnerOrGuardian.selector, guardianKey));
        oe.setExecutor(executor, false);
        vm.prank(next);
        oe.setExecutor(executor, false);
        vm.assertFalse(oe.isExecutor(executor), "the new guardian narrows");
    }

    // ---- the signed fee cap ----

    /// @dev Feeds are refreshed after each wait, so only the fee can fail an order.
    function _waitDelay() internal {
        vm.warp(block.timestamp + DELAY);
        for (uint256 t; t < tokens.length; ++t) {
            feedOf[tokens[t]].set(feedOf[tokens[t]].answer(), block.timestamp);
        }
    }

    function _raiseCap(uint16 bps) internal {
        bytes memory data = abi.encodeCall(OrderExecutor.setMaxFeeBps, (bps));
        bytes32 salt = _schedule(address(oe), data);
        _waitDelay();
        _execute(address(oe), data, salt);
        vm.assertEq(oe.maxFeeBps(), bps, "raised");
    }

    function _capped(address maker, bytes32 ref, uint256 amountIn, uint256 fee, uint16 feeBps, bytes memory sig)
        internal
        view
        returns (OrderExecutor.Group memory)
    {
        OrderExecutor.Order memory o = _signedOrder(maker, 0, amountIn, fee, ref);
        o.maxFeeBps = feeBps;
        o.signature = sig;
        return _group0(o);
    }

    function test_RaisedCapNeverReachesEarlierAuthorizations() public {
        address maker = makers[1];
        uint16 dev = devOf[maker];
        // The cap is 30 bps when the maker signs (lowering is the guardian's, at once).
        vm.prank(guardianKey);
        oe.setMaxFeeBps(30);
        bytes memory signed30 = _signAs(maker, pairs[0].tokenIn, pairs[0].tokenOut, INTEGRATOR_A, dev, 30);

        _raiseCap(100);
        uint256 amountIn = 1_000e18;
        uint256 fee40 = (amountIn * 40) / 10_000;

        // The old authorization: 40 bps is above the 30 the maker accepted.
        OrderExecutor.Group memory old = _capped(maker, "old", amountIn, fee40, 30, signed30);
        executeChecked(_one(old), block.timestamp + 100);
        _assertNoViolation();
        vm.assertFalse(_executed(old, 0), "not executed");
        vm.assertEq(_failure(old, 0), "FEE_TOO_HIGH", "held to the signed cap");

        // Claiming the new cap with the old signature does not pass either.
        OrderExecutor.Group memory forged = _capped(maker, "forged", amountIn, fee40, 100, signed30);
        executeChecked(_one(forged), block.timestamp + 100);
        _assertNoViolation();
        vm.assertEq(_failure(forged, 0), "BAD_SIGNATURE", "the cap is part of the signature");

        // Within the old cap the old authorization still works.
        uint256 fee30 = (amountIn * 30) / 10_000;
        OrderExecutor.Group memory within = _capped(maker, "within", amountIn, fee30, 30, signed30);
        uint256 collected = dai.balanceOf(feeCollector);
        executeChecked(_one(within), block.timestamp + 100);
        _assertNoViolation();
        vm.assertTrue(_executed(within, 0), "30 bps under the 30 bps authorization");
        vm.assertEq(dai.balanceOf(feeCollector) - collected, fee30, "fee taken");

        // A new authorization for 100 bps takes the 40 bps fee.
        bytes memory signed100 = _signAs(maker, pairs[0].tokenIn, pairs[0].tokenOut, INTEGRATOR_A, dev, 100);
        OrderExecutor.Group memory renewed = _capped(maker, "new", amountIn, fee40, 100, signed100);
        collected = dai.balanceOf(feeCollector);
        executeChecked(_one(renewed), block.timestamp + 100);
        _assertNoViolation();
        vm.assertTrue(_executed(renewed, 0), "executed under the new authorization");
        vm.assertEq(dai.balanceOf(feeCollector) - collected, fee40, "fee taken");

        // And a cap lowered later binds the new authorization too: the lower of both applies.
        vm.prank(guardianKey);
        oe.setMaxFeeBps(20);
        OrderExecutor.Group memory lowered = _capped(maker, "lowered", amountIn, fee30, 100, signed100);
        executeChecked(_one(lowered), block.timestamp + 100);
        _assertNoViolation();
        vm.assertEq(_failure(lowered, 0), "FEE_TOO_HIGH", "held to the current cap");
    }
}
