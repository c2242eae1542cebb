// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {CrossChainEntryFixture} from "./utils/CrossChainEntryFixture.sol";
import {Vm} from "./utils/Vm.sol";
import {MockDepositSpokePool} from "./mocks/MockSpokePool.sol";
import {CrossChainEntry} from "../src/CrossChainEntry.sol";
import {LockReleaseBridge} from "../src/LockReleaseBridge.sol";

/// @notice CrossChainEntry call by call: input plus fees taken from the caller and paid out exactly, the fee floor
///         and caps, native input, fee-on-transfer tokens refused, nothing kept, and locks through it marked as
///         having paid the fees.
contract CrossChainEntryTest is CrossChainEntryFixture {
    address internal constant ALICE = address(0xA11CE);

    function setUp() public {
        _deployEntryWorld();
    }

    function _fees(uint256 protocolFee, uint256 integratorFee) internal pure returns (CrossChainEntry.Fees memory) {
        return CrossChainEntry.Fees(protocolFee, integratorFee, integratorFee > 0 ? INTEGRATOR : address(0));
    }

    function _assertEntryEmpty() internal view {
        vm.assertEq(usdc.balanceOf(address(entry)), 0, "entry usdc");
        vm.assertEq(weth.balanceOf(address(entry)), 0, "entry weth");
        vm.assertEq(fot.balanceOf(address(entry)), 0, "entry fot");
        vm.assertEq(address(entry).balance, 0, "entry native");
    }

    // ---- construction ----

    function test_ConstructorChecks() public {
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        new CrossChainEntry(address(0), address(bridge), address(weth), PROTOCOL_FEE_RECIPIENT, 0);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        new CrossChainEntry(address(spokePool), address(0), address(weth), PROTOCOL_FEE_RECIPIENT, 0);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        new CrossChainEntry(address(spokePool), address(bridge), address(0), PROTOCOL_FEE_RECIPIENT, 0);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        new CrossChainEntry(address(spokePool), address(bridge), address(weth), address(0), 0);
        // The protocol fee rate is itself capped at 1%.
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        new CrossChainEntry(address(spokePool), address(bridge), address(weth), PROTOCOL_FEE_RECIPIENT, 10_001);
        CrossChainEntry capped =
            new CrossChainEntry(address(spokePool), address(bridge), address(weth), PROTOCOL_FEE_RECIPIENT, 10_000);
        vm.assertEq(capped.protocolFeePips(), 10_000, "1% allowed");
    }

    // ---- intents ----

    function test_DepositIntentTakesInputPlusFeesAndPaysThemOut() public {
        uint256 amount = 1_000e6;
        (uint256 pf, uint256 inf) = (5e6, 3e6);
        _fund(address(usdc), ALICE, 2_000e6);
        CrossChainEntry.IntentDeposit memory d = _intent(address(usdc), amount);
        vm.recordLogs();
        vm.prank(ALICE);
        entry.depositIntent(d, _fees(pf, inf), block.timestamp);
        Vm.Log[] memory logs = vm.getRecordedLogs();

        vm.assertEq(usdc.balanceOf(ALICE), 2_000e6 - amount - pf - inf, "caller paid input + fees");
        vm.assertEq(usdc.balanceOf(address(spokePool)), amount, "pool got the input");
        vm.assertEq(usdc.balanceOf(PROTOCOL_FEE_RECIPIENT), pf, "protocol fee");
        vm.assertEq(usdc.balanceOf(INTEGRATOR), inf, "integrator fee");
        vm.assertEq(usdc.allowance(address(entry), address(spokePool)), 0, "no allowance left");
        _assertEntryEmpty();

        MockDepositSpokePool.DepositCall memory call = spokePool.lastDeposit();
        vm.assertEq(spokePool.depositCount(), 1, "one deposit");
        vm.assertEq(call.caller, address(entry), "deposited by the entry");
        vm.assertEq(call.args.depositor, bytes32(uint256(uint160(ALICE))), "caller is the depositor");
        vm.assertEq(call.args.recipient, bytes32(uint256(uint160(RECIPIENT))), "recipient");
        vm.assertEq(call.args.inputToken, bytes32(uint256(uint160(address(usdc)))), "input token");
        vm.assertEq(call.args.outputToken, bytes32(uint256(uint160(d.outputToken))), "output token");
        vm.assertEq(call.args.inputAmount, amount, "input amount");
        vm.assertEq(call.args.outputAmount, d.outputAmount, "output amount");
        vm.assertEq(call.args.destinationChainId, DESTINATION, "destination");
        vm.assertEq(call.args.exclusiveRelayer, bytes32(uint256(uint160(d.exclusiveRelayer))), "exclusive relayer");
        vm.assertEq(uint256(call.args.quoteTimestamp), d.quoteTimestamp, "quote timestamp");
        vm.assertEq(uint256(call.args.fillDeadline), d.fillDeadline, "fill deadline");
        vm.assertEq(uint256(call.args.exclusivityParameter), d.exclusivityParameter, "exclusivity");
        vm.assertEq(call.value, 0, "no value");

        bytes32 feesTopic = keccak256("CrossChainFees(address,address,uint256,uint256,address)");
        bool found;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(entry) || logs[i].topics[0] != feesTopic) continue;
            found = true;
            vm.assertEq(logs[i].topics[1], bytes32(uint256(uint160(ALICE))), "fees account");
            vm.assertEq(logs[i].topics[2], bytes32(uint256(uint160(address(usdc)))), "fees token");
            (uint256 epf, uint256 einf, address erec) = abi.decode(logs[i].data, (uint256, uint256, address));
            vm.assertEq(epf, pf, "event protocol fee");
            vm.assertEq(einf, inf, "event integrator fee");
            vm.assertEq(erec, INTEGRATOR, "event integrator");
        }
        vm.assertTrue(found, "CrossChainFees emitted");
    }

    function test_NativeInputWrapsTheValue() public {
        uint256 amount = 1 ether;
        uint256 inf = 0.002 ether;
        uint256 pf = _minProtocolFee(amount, inf);
        uint256 total = amount + pf + inf;
        vm.deal(ALICE, 5 ether);
        vm.prank(ALICE);
        entry.depositIntent{value: total}(_intent(address(weth), amount), _fees(pf, inf), block.timestamp);
        vm.assertEq(ALICE.balance, 5 ether - total, "caller paid input + fees in native");
        vm.assertEq(weth.balanceOf(address(spokePool)), amount, "pool got weth");
        vm.assertEq(weth.balanceOf(PROTOCOL_FEE_RECIPIENT), pf, "protocol fee in weth");
        vm.assertEq(weth.balanceOf(INTEGRATOR), inf, "integrator fee in weth");
        _assertEntryEmpty();
    }

    function test_NativeValueMustBeTheTotalOfTheWrappedNative() public {
        uint256 amount = 1 ether;
        uint256 pf = _minProtocolFee(amount, 0);
        uint256 total = amount + pf;
        vm.deal(ALICE, 10 ether);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.BadValue.selector);
        entry.depositIntent{value: total - 1}(_intent(address(weth), amount), _fees(pf, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadValue.selector);
        entry.depositIntent{value: total + 1}(_intent(address(weth), amount), _fees(pf, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadValue.selector);
        entry.lock{value: total + 1}(_transfer(address(weth), amount), _fees(pf, 0), block.timestamp);
        // Value with another input token.
        vm.expectRevert(CrossChainEntry.BadValue.selector);
        entry.depositIntent{value: total}(_intent(address(usdc), amount), _fees(pf, 0), block.timestamp);
        vm.stopPrank();
        vm.assertEq(ALICE.balance, 10 ether, "nothing taken");
    }

    function test_WrappedNativeWithoutValueIsPulledAsAToken() public {
        uint256 amount = 1 ether;
        uint256 pf = _minProtocolFee(amount, 0);
        _fund(address(weth), ALICE, amount + pf);
        vm.prank(ALICE);
        entry.depositIntent(_intent(address(weth), amount), _fees(pf, 0), block.timestamp);
        vm.assertEq(weth.balanceOf(ALICE), 0, "weth pulled");
        vm.assertEq(weth.balanceOf(address(spokePool)), amount, "pool got weth");
        _assertEntryEmpty();
    }

    function test_FeeOnTransferInputReverts() public {
        uint256 amount = 1_000e18;
        uint256 pf = _minProtocolFee(amount, 0);
        _fund(address(fot), ALICE, 10_000e18);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.FeeOnTransfer.selector);
        entry.depositIntent(_intent(address(fot), amount), _fees(pf, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.FeeOnTransfer.selector);
        entry.lock(_transfer(address(fot), amount), _fees(pf, 0), block.timestamp);
        vm.stopPrank();
        vm.assertEq(fot.balanceOf(ALICE), 10_000e18, "nothing taken");
        _assertEntryEmpty();
    }

    /// @dev The balance check is what refuses the token: with a balance donated to the entry, the short arrival
    ///      would otherwise be covered (and the donation spent for the caller).
    function test_FeeOnTransferInputRevertsEvenWithADonatedBalance() public {
        fot.mint(address(entry), 100e18);
        uint256 amount = 1_000e18;
        uint256 pf = _minProtocolFee(amount, 0);
        _fund(address(fot), ALICE, 10_000e18);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.FeeOnTransfer.selector);
        entry.depositIntent(_intent(address(fot), amount), _fees(pf, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.FeeOnTransfer.selector);
        entry.lock(_transfer(address(fot), amount), _fees(pf, 0), block.timestamp);
        vm.stopPrank();
        vm.assertEq(fot.balanceOf(address(entry)), 100e18, "the donation untouched");
    }

    // ---- fees ----

    function test_ProtocolFeeFloor() public {
        uint256 amount = 123_456_789;
        uint256 inf = 1_000_000;
        uint256 pf = _minProtocolFee(amount, inf);
        vm.assertGt(pf, 0, "a floor to test");
        _fund(address(usdc), ALICE, 10 * amount);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(_intent(address(usdc), amount), _fees(pf - 1, inf), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.lock(_transfer(address(usdc), amount), _fees(pf - 1, inf), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(_intent(address(usdc), amount), _fees(0, 0), block.timestamp);
        entry.depositIntent(_intent(address(usdc), amount), _fees(pf, inf), block.timestamp);
        vm.stopPrank();
        vm.assertEq(usdc.balanceOf(PROTOCOL_FEE_RECIPIENT), pf, "the floor paid");
        vm.assertEq(pf, ((amount + pf + inf) * PROTOCOL_FEE_PIPS) / 1_000_000, "the floor is the rounded-down share");
    }

    function test_EachFeeAtMostOnePercentOfTheTotal() public {
        // total 10,000: each fee at most 100.
        _fund(address(usdc), ALICE, 1e12);
        vm.startPrank(ALICE);
        entry.depositIntent(_intent(address(usdc), 9_800), _fees(100, 100), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(_intent(address(usdc), 9_799), _fees(101, 100), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(_intent(address(usdc), 9_799), _fees(100, 101), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.lock(_transfer(address(usdc), 9_799), _fees(100, 101), block.timestamp);
        // A huge fee overflows the checks: it reverts too.
        vm.expectRevert();
        entry.depositIntent(_intent(address(usdc), 1), _fees(type(uint256).max / 2, 0), block.timestamp);
        vm.stopPrank();
        vm.assertEq(usdc.balanceOf(INTEGRATOR), 100, "only the valid call paid");
    }

    function test_IntegratorFeeNeedsARecipient() public {
        uint256 amount = 1_000e6;
        uint256 pf = _minProtocolFee(amount, 1e6);
        _fund(address(usdc), ALICE, 10_000e6);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(_intent(address(usdc), amount), CrossChainEntry.Fees(pf, 1e6, address(0)), block.timestamp);
        // No integrator fee: no recipient needed.
        entry.depositIntent(
            _intent(address(usdc), amount),
            CrossChainEntry.Fees(_minProtocolFee(amount, 0), 0, address(0)),
            block.timestamp
        );
        vm.stopPrank();
        _assertEntryEmpty();
    }

    /// @dev Paid to the entry itself, an integrator fee would stay there for good: refused, with a fee or without.
    function test_IntegratorFeeRecipientCannotBeTheEntry() public {
        uint256 amount = 1_000e6;
        uint256 pf = _minProtocolFee(amount, 1e6);
        uint256 pf0 = _minProtocolFee(amount, 0);
        _fund(address(usdc), ALICE, 10_000e6);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(
            _intent(address(usdc), amount), CrossChainEntry.Fees(pf, 1e6, address(entry)), block.timestamp
        );
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.lock(_transfer(address(usdc), amount), CrossChainEntry.Fees(pf, 1e6, address(entry)), block.timestamp);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.depositIntent(
            _intent(address(usdc), amount), CrossChainEntry.Fees(pf0, 0, address(entry)), block.timestamp
        );
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.lock(_transfer(address(usdc), amount), CrossChainEntry.Fees(pf0, 0, address(entry)), block.timestamp);
        vm.stopPrank();
        // Native input too.
        uint256 wethPf = _minProtocolFee(1 ether, 0);
        vm.deal(ALICE, 2 ether);
        vm.prank(ALICE);
        vm.expectRevert(CrossChainEntry.BadFee.selector);
        entry.lock{value: 1 ether + wethPf}(
            _transfer(address(weth), 1 ether), CrossChainEntry.Fees(wethPf, 0, address(entry)), block.timestamp
        );
        vm.assertEq(usdc.balanceOf(ALICE), 10_000e6, "nothing taken");
        vm.assertEq(ALICE.balance, 2 ether, "no native taken");
        vm.assertEq(spokePool.depositCount(), 0, "no deposit");
        vm.assertEq(bridge.lockCount(), 0, "no lock");
        _assertEntryEmpty();

        // Any other recipient is fine.
        vm.prank(ALICE);
        entry.depositIntent(_intent(address(usdc), amount), CrossChainEntry.Fees(pf, 1e6, INTEGRATOR), block.timestamp);
        vm.assertEq(usdc.balanceOf(INTEGRATOR), 1e6, "paid to a real recipient");
        _assertEntryEmpty();
    }

    // ---- other checks ----

    function test_ExpiredZeroAndMissingArgumentsRevert() public {
        uint256 amount = 1_000e6;
        uint256 pf = _minProtocolFee(amount, 0);
        _fund(address(usdc), ALICE, 10_000e6);
        vm.startPrank(ALICE);
        vm.expectRevert(CrossChainEntry.Expired.selector);
        entry.depositIntent(_intent(address(usdc), amount), _fees(pf, 0), block.timestamp - 1);
        vm.expectRevert(CrossChainEntry.Expired.selector);
        entry.lock(_transfer(address(usdc), amount), _fees(pf, 0), block.timestamp - 1);
        vm.expectRevert(CrossChainEntry.ZeroAmount.selector);
        entry.depositIntent(_intent(address(usdc), 0), _fees(0, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.ZeroAmount.selector);
        entry.lock(_transfer(address(usdc), 0), _fees(0, 0), block.timestamp);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        entry.lock(_transfer(address(0), amount), _fees(pf, 0), block.timestamp);
        CrossChainEntry.IntentDeposit memory d = _intent(address(usdc), amount);
        d.recipient = address(0);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        entry.depositIntent(d, _fees(pf, 0), block.timestamp);
        d = _intent(address(usdc), amount);
        d.outputToken = address(0);
        vm.expectRevert(CrossChainEntry.ZeroAddress.selector);
        entry.depositIntent(d, _fees(pf, 0), block.timestamp);
        // The bridge's own checks revert the whole call.
        CrossChainEntry.LockTransfer memory t = _transfer(address(usdc), amount);
        t.destinationChainId = block.chainid;
        vm.expectRevert(LockReleaseBridge.SameChain.selector);
        entry.lock(t, _fees(pf, 0), block.timestamp);
        // The deadline itself is still in time.
        entry.depositIntent(_intent(address(usdc), amount), _fees(pf, 0), block.timestamp);
        vm.stopPrank();
        vm.assertEq(usdc.balanceOf(ALICE), 10_000e6 - amount - pf, "only the last call took anything");
        _assertEntryEmpty();
    }

    // ---- locks through the entry ----

    function test_LockThroughTheEntryCarriesFeesPaidAndTheCallerAsDepositor() public {
        uint256 amount = 500e6;
        uint256 inf = 2e6;
        uint256 pf = _minProtocolFee(amount, inf);
        _fund(address(usdc), ALICE, amount + pf + inf);
        uint256 nonce = bridge.lockCount();
        vm.recordLogs();
        vm.prank(ALICE);
        entry.lock(_transfer(address(usdc), amount), _fees(pf, inf), block.timestamp);
        Vm.Log[] memory logs = vm.getRecordedLogs();

        vm.assertEq(usdc.balanceOf(ALICE), 0, "caller paid input + fees");
        vm.assertEq(usdc.balanceOf(address(bridge)), amount, "bridge holds the input");
        vm.assertEq(usdc.balanceOf(PROTOCOL_FEE_RECIPIENT), pf, "protocol fee");
        vm.assertEq(usdc.balanceOf(INTEGRATOR), inf, "integrator fee");
        _assertEntryEmpty();

        LockReleaseBridge.LockRecord memory record = bridge.locks(nonce);
        vm.assertEq(record.depositor, ALICE, "the caller is the depositor");
        vm.assertEq(record.amount, amount, "credited in full");
        bool found;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Locked.selector) continue;
            found = true;
            (,,,,,, bool feesPaid) =
                abi.decode(logs[i].data, (address, uint256, address, uint256, address, uint32, bool));
            vm.assertTrue(feesPaid, "feesPaid through the entry");
            vm.assertEq(logs[i].topics[2], bytes32(uint256(uint160(ALICE))), "event depositor");
        }
        vm.assertTrue(found, "Locked emitted");

        // Unaccepted: after the deadline the caller takes the input back (the fees stay paid).
        vm.warp(START + LOCK_TIMEOUT + 1);
        vm.prank(ALICE);
        bridge.refund(nonce);
        vm.assertEq(usdc.balanceOf(ALICE), amount, "the input back to the caller");
    }

    function test_NativeLockThroughTheEntry() public {
        uint256 amount = 2 ether;
        uint256 pf = _minProtocolFee(amount, 0);
        vm.deal(ALICE, amount + pf);
        vm.prank(ALICE);
        entry.lock{value: amount + pf}(_transfer(address(weth), amount), _fees(pf, 0), block.timestamp);
        vm.assertEq(ALICE.balance, 0, "caller paid in native");
        vm.assertEq(weth.balanceOf(address(bridge)), amount, "bridge holds weth");
        vm.assertEq(weth.balanceOf(PROTOCOL_FEE_RECIPIENT), pf, "protocol fee in weth");
        _assertEntryEmpty();
    }

    /// @dev The fee floor for any amount and integrator fee: the least fee passes, one less fails.
    function testFuzz_ProtocolFeeFloorIsExact(uint256 amount, uint256 inf) public {
        amount = bound(amount, 1, 1e30);
        inf = bound(inf, 0, amount / 100);
        uint256 pf = _minProtocolFee(amount, inf);
        uint256 total = amount + pf + inf;
        _fund(address(usdc), ALICE, 2 * total);
        address integrator = inf > 0 ? INTEGRATOR : address(0);
        if (pf > 0) {
            vm.prank(ALICE);
            vm.expectRevert(CrossChainEntry.BadFee.selector);
            entry.depositIntent(
                _intent(address(usdc), amount), CrossChainEntry.Fees(pf - 1, inf, integrator), block.timestamp
            );
        }
        vm.prank(ALICE);
        entry.depositIntent(_intent(address(usdc), amount), CrossChainEntry.Fees(pf, inf, integrator), block.timestamp);
        vm.assertEq(usdc.balanceOf(ALICE), total, "input + fees taken once");
        vm.assertEq(usdc.balanceOf(address(spokePool)), amount, "pool got the input");
        _assertEntryEmpty();
    }
}
