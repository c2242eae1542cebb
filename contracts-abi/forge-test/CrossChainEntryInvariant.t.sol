// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {CrossChainEntryFixture} from "./utils/CrossChainEntryFixture.sol";
import {TestBase} from "./utils/TestBase.sol";
import {Vm} from "./utils/Vm.sol";
import {FeeOnTransferToken, MintableToken} from "./mocks/Tokens.sol";
import {MockDepositSpokePool} from "./mocks/MockSpokePool.sol";
import {CrossChainEntry} from "../src/CrossChainEntry.sol";
import {LockReleaseBridge} from "../src/LockReleaseBridge.sol";
import {WrappedNative} from "../src/test/WrappedNative.sol";

/// @notice What the invariant fuzzer calls: random callers send intents and locks through the entry with random
///         amounts and fees (mostly valid, else one rule broken), in a plain token, the wrapped native (as a token
///         or as msg.value) and a fee-on-transfer token. Each call's outcome is checked against the entry's rules,
///         re-implemented here, and a successful one against exactly what it must move.
contract CrossChainEntryHandler is TestBase {
    struct Call {
        bool viaLock;
        address caller;
        address token;
        bool native;
        uint256 value;
        uint256 amount;
        uint256 protocolFee;
        uint256 integratorFee;
        address integratorFeeRecipient;
        address recipient;
        uint256 deadline;
    }

    struct Balances {
        uint256 caller;
        uint256 destination;
        uint256 protocolFeeRecipient;
        uint256 integrator;
        uint256 depositCount;
        uint256 lockCount;
    }

    uint256 internal constant DESTINATION = 10;

    CrossChainEntry public immutable entry;
    LockReleaseBridge public immutable bridge;
    MockDepositSpokePool public immutable spokePool;
    WrappedNative public immutable weth;
    MintableToken public immutable usdc;
    FeeOnTransferToken public immutable fot;
    address public immutable protocolFeeRecipient;
    uint256 public immutable pips;

    address[3] internal callers = [address(0xCA11), address(0xCA12), address(0xCA13)];
    address[2] internal integrators = [address(0x1A71), address(0x1A72)];

    /// @notice What reached the SpokePool, the bridge and the fee recipients through successful calls, per token.
    mapping(address token => uint256) public toSpokePool;
    mapping(address token => uint256) public toBridge;
    mapping(address token => uint256) public protocolFees;
    mapping(address token => uint256) public integratorFees;
    /// @notice Locks made through the entry, and those among them whose Locked event lacked feesPaid (0 always).
    uint256 public entryLocks;
    uint256 public locksWithoutFeesPaid;
    /// @notice Fee-on-transfer inputs (that the token charged) that succeeded (0 always).
    uint256 public feeOnTransferSuccesses;
    /// @notice Broken promises seen call by call (0 always).
    uint256 public violations;
    string public lastViolation;

    uint256 public succeeded;
    uint256 public refused;
    uint256 public nativeSucceeded;
    uint256 public feeOnTransferRefused;

    constructor(CrossChainEntry entry_, MockDepositSpokePool spokePool_, MintableToken usdc_, FeeOnTransferToken fot_) {
        entry = entry_;
        bridge = entry_.lockReleaseBridge();
        spokePool = spokePool_;
        weth = WrappedNative(payable(entry_.wrappedNative()));
        usdc = usdc_;
        fot = fot_;
        protocolFeeRecipient = entry_.protocolFeeRecipient();
        pips = entry_.protocolFeePips();
        for (uint256 i; i < callers.length; ++i) {
            vm.startPrank(callers[i]);
            usdc.approve(address(entry_), type(uint256).max);
            fot.approve(address(entry_), type(uint256).max);
            weth.approve(address(entry_), type(uint256).max);
            vm.stopPrank();
        }
    }

    // ---- actions ----

    function depositIntent(uint256 seed, uint256 total, uint256 feeSeed, uint256 mode) external {
        _run(false, seed, total, feeSeed, mode);
    }

    function lock(uint256 seed, uint256 total, uint256 feeSeed, uint256 mode) external {
        _run(true, seed, total, feeSeed, mode);
    }

    function wait(uint256 seconds_) external {
        vm.warp(block.timestamp + bound(seconds_, 1, 1 days));
    }

    // ---- the call ----

    function _run(bool viaLock, uint256 seed, uint256 total, uint256 feeSeed, uint256 mode) internal {
        Call memory c = _build(viaLock, seed, total, feeSeed, mode % 16);
        _give(c);
        bool expected = _valid(c);
        Balances memory before = _balances(c);
        vm.recordLogs();
        vm.prank(c.caller);
        (bool ok, bytes memory reason) = address(entry).call{value: c.value}(_calldata(c));
        Vm.Log[] memory logs = vm.getRecordedLogs();

        _checkFeeOnTransfer(c, ok, reason);
        if (ok != expected) _violation(ok ? "a call succeeded that must fail" : "a valid call failed");
        if (!ok) {
            ++refused;
            Balances memory unchanged = _balances(c);
            if (unchanged.caller != before.caller) _violation("a failed call moved the caller's funds");
            return;
        }
        ++succeeded;
        if (c.native) ++nativeSucceeded;
        _checkSuccess(c, before, _balances(c), logs);
    }

    /// @dev Amounts and fees: a total, fees within the rules for it, then (modes 10-15) one rule broken.
    function _build(bool viaLock, uint256 seed, uint256 total, uint256 feeSeed, uint256 mode)
        internal
        view
        returns (Call memory c)
    {
        c.viaLock = viaLock;
        c.caller = callers[seed % 3];
        uint256 kind = (seed >> 8) % 5;
        c.token = kind <= 1 ? address(usdc) : kind == 2 ? address(weth) : kind == 3 ? address(weth) : address(fot);
        c.native = kind == 3;
        total = (seed >> 16) % 3 == 0 ? bound(total, 1, 1e6) : bound(total, 1, 1e27);
        uint256 cap = total / 100;
        uint256 floor = (total * pips) / 1_000_000;
        c.protocolFee = bound(feeSeed, floor, cap);
        c.integratorFee = (feeSeed >> 128) % 3 == 0 ? 0 : bound(feeSeed >> 128, 0, cap);
        c.amount = total - c.protocolFee - c.integratorFee;
        c.integratorFeeRecipient = c.integratorFee > 0 || (seed >> 24) % 2 == 0 ? integrators[seed % 2] : address(0);
        c.recipient = address(0x2EC1);
        c.deadline = block.timestamp + (seed >> 32) % 3;

        if (mode == 10 && c.protocolFee > 0) {
            c.protocolFee -= 1; // below the floor (for the smaller total, unless the floor moved too)
        } else if (mode == 11) {
            c.protocolFee = cap + 1 + (feeSeed % (cap + 1)); // above 1%
        } else if (mode == 12) {
            c.integratorFee = cap + 1 + (feeSeed % (cap + 1)); // above 1%
            c.integratorFeeRecipient = integrators[0];
        } else if (mode == 13) {
            c.integratorFee = 1 + feeSeed % (cap + 1); // a fee for nobody
            c.integratorFeeRecipient = address(0);
            if ((seed >> 56) % 2 == 0) {
                // Or for the entry itself (where nothing could take it out), with a fee or none.
                c.integratorFeeRecipient = address(entry);
                if ((seed >> 57) % 2 == 0) c.integratorFee = 0;
            }
        } else if (mode == 14) {
            c.deadline = block.timestamp - 1 - (seed >> 40) % 100; // expired
        } else if (mode == 15) {
            // A missing field: no amount, no recipient, or a wrong value.
            uint256 which = (seed >> 48) % 3;
            if (which == 0) c.amount = 0;
            else if (which == 1) c.recipient = address(0);
            else c.native = !c.native;
        }
        uint256 sum = c.amount + c.protocolFee + c.integratorFee;
        // Native: the value is the total; with mode 15 flipping `native`, a value for a token or the wrong value.
        if (c.native) c.value = mode == 15 && c.token == address(weth) ? sum + 1 : sum;
        else if (mode == 15 && (seed >> 48) % 3 == 2) c.value = sum;
    }

    /// @dev The caller holds what the call asks for (and some spare): tokens minted or wrapped, coins dealt.
    function _give(Call memory c) internal {
        uint256 sum = c.amount + c.protocolFee + c.integratorFee;
        vm.deal(c.caller, c.caller.balance + c.value);
        if (c.token == address(weth)) {
            if (c.value == 0) {
                vm.deal(c.caller, c.caller.balance + sum);
                vm.prank(c.caller);
                weth.deposit{value: sum}();
            }
        } else {
            MintableToken(c.token).mint(c.caller, sum);
        }
    }

    /// @dev A fee-on-transfer input that the token charges never goes through; when nothing else is wrong with the
    ///      call it is refused as such (not by some later shortfall that a donated balance could cover).
    function _checkFeeOnTransfer(Call memory c, bool ok, bytes memory reason) internal {
        if (c.token != address(fot) || !_charges(c.amount + c.protocolFee + c.integratorFee)) return;
        if (ok) {
            ++feeOnTransferSuccesses;
            return;
        }
        ++feeOnTransferRefused;
        // Valid but for the token? (`c` is a memory reference: the token is put back.)
        c.token = address(usdc);
        bool validOtherwise = _valid(c);
        c.token = address(fot);
        if (validOtherwise && bytes4(reason) != CrossChainEntry.FeeOnTransfer.selector) {
            _violation("a fee-on-transfer input refused for another reason than FeeOnTransfer");
        }
    }

    /// @dev The entry's rules, written out again.
    function _valid(Call memory c) internal view returns (bool) {
        uint256 total = c.amount + c.protocolFee + c.integratorFee;
        if (block.timestamp > c.deadline) return false;
        if (c.amount == 0 || c.recipient == address(0)) return false;
        if (c.integratorFee > 0 && c.integratorFeeRecipient == address(0)) return false;
        if (c.integratorFeeRecipient == address(entry)) return false;
        if (c.protocolFee * 100 > total || c.integratorFee * 100 > total) return false;
        if (c.protocolFee < (total * pips) / 1_000_000) return false;
        if (c.value > 0 && (c.token != address(weth) || c.value != total)) return false;
        if (c.token == address(fot) && _charges(total)) return false;
        return true;
    }

    function _calldata(Call memory c) internal view returns (bytes memory) {
        CrossChainEntry.Fees memory fees =
            CrossChainEntry.Fees(c.protocolFee, c.integratorFee, c.integratorFeeRecipient);
        if (c.viaLock) {
            return abi.encodeCall(
                CrossChainEntry.lock,
                (
                    CrossChainEntry.LockTransfer(c.token, c.amount, c.token, c.amount, DESTINATION, c.recipient),
                    fees,
                    c.deadline
                )
            );
        }
        return abi.encodeCall(
            CrossChainEntry.depositIntent,
            (
                CrossChainEntry.IntentDeposit(
                    c.token,
                    c.amount,
                    c.token,
                    c.amount,
                    DESTINATION,
                    c.recipient,
                    address(0),
                    uint32(block.timestamp),
                    uint32(block.timestamp + 1 hours),
                    0
                ),
                fees,
                c.deadline
            )
        );
    }

    function _balances(Call memory c) internal view returns (Balances memory b) {
        b.caller = c.native || c.value > 0 ? c.caller.balance : IERC20(c.token).balanceOf(c.caller);
        b.destination = IERC20(c.token).balanceOf(c.viaLock ? address(bridge) : address(spokePool));
        b.protocolFeeRecipient = IERC20(c.token).balanceOf(protocolFeeRecipient);
        b.integrator = c.integratorFeeRecipient == address(0) ? 0 : IERC20(c.token).balanceOf(c.integratorFeeRecipient);
        b.depositCount = spokePool.depositCount();
        b.lockCount = bridge.lockCount();
    }

    function _checkSuccess(Call memory c, Balances memory before, Balances memory afterwards, Vm.Log[] memory logs)
        internal
    {
        uint256 total = c.amount + c.protocolFee + c.integratorFee;
        if (before.caller - afterwards.caller != total) _violation("caller paid other than input + fees");
        if (afterwards.destination - before.destination != c.amount) _violation("destination got other than input");
        if (afterwards.protocolFeeRecipient - before.protocolFeeRecipient != c.protocolFee) {
            _violation("protocol fee recipient got other than the protocol fee");
        }
        if (c.protocolFee < (total * pips) / 1_000_000) _violation("protocol fee below the floor");
        if (c.protocolFee * 100 > total) _violation("protocol fee above 1%");
        if (c.integratorFee * 100 > total) _violation("integrator fee above 1%");
        if (c.integratorFeeRecipient != address(0) && afterwards.integrator - before.integrator != c.integratorFee) {
            _violation("integrator got other than its fee");
        }
        if (IERC20(c.token).balanceOf(address(entry)) != 0 || address(entry).balance != 0) {
            _violation("the entry kept something");
        }
        protocolFees[c.token] += c.protocolFee;
        integratorFees[c.token] += c.integratorFee;
        if (c.viaLock) {
            toBridge[c.token] += c.amount;
            ++entryLocks;
            if (afterwards.lockCount != before.lockCount + 1) _violation("no lock made");
            LockReleaseBridge.LockRecord memory record = bridge.locks(before.lockCount);
            if (record.depositor != c.caller || record.amount != c.amount) _violation("lock record");
            if (!_feesPaidFlag(logs)) ++locksWithoutFeesPaid;
        } else {
            toSpokePool[c.token] += c.amount;
            if (afterwards.depositCount != before.depositCount + 1) _violation("no deposit made");
            MockDepositSpokePool.DepositCall memory d = spokePool.lastDeposit();
            if (d.args.depositor != bytes32(uint256(uint160(c.caller))) || d.args.inputAmount != c.amount) {
                _violation("deposit record");
            }
            if (d.args.inputToken != bytes32(uint256(uint160(c.token))) || d.value != 0) {
                _violation("deposit token/value");
            }
        }
    }

    function _feesPaidFlag(Vm.Log[] memory logs) internal view returns (bool feesPaid) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(bridge) || logs[i].topics[0] != LockReleaseBridge.Locked.selector) continue;
            (,,,,,, feesPaid) = abi.decode(logs[i].data, (address, uint256, address, uint256, address, uint32, bool));
        }
    }

    /// @dev Whether the fee-on-transfer token takes a fee on a transfer of `amount` (it rounds down to 0 below 1%).
    function _charges(uint256 amount) internal view returns (bool) {
        return (amount * fot.feeBps()) / 10_000 > 0;
    }

    function _violation(string memory what) internal {
        ++violations;
        lastViolation = what;
    }
}

/// @notice Invariants of CrossChainEntry with a mock SpokePool and a real LockReleaseBridge (fee taker: the entry):
///         each successful call took exactly input + fees from the caller and delivered exactly the input to the
///         pool or the bridge and each fee to its recipient within its bounds; the entry holds nothing; fee-on-
///         transfer inputs always revert; locks through the entry carry feesPaid.
contract CrossChainEntryInvariantTest is CrossChainEntryFixture {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    CrossChainEntryHandler internal handler;

    function setUp() public {
        _deployEntryWorld();
        handler = new CrossChainEntryHandler(entry, spokePool, usdc, fot);
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory selectors) {
        bytes4[] memory fns = new bytes4[](5);
        fns[0] = CrossChainEntryHandler.depositIntent.selector;
        fns[1] = CrossChainEntryHandler.depositIntent.selector;
        fns[2] = CrossChainEntryHandler.lock.selector;
        fns[3] = CrossChainEntryHandler.lock.selector;
        fns[4] = CrossChainEntryHandler.wait.selector;
        selectors = new FuzzSelector[](1);
        selectors[0] = FuzzSelector(address(handler), fns);
    }

    function _tokens() internal view returns (address[3] memory) {
        return [address(usdc), address(weth), address(fot)];
    }

    // ---- invariants ----

    /// @dev Every call was accepted or refused exactly by the rules, and a successful one moved exactly input + fees.
    function invariant_EveryCallAsPromised() public view {
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
    }

    function invariant_EntryHoldsNothing() public view {
        address[3] memory tokens = _tokens();
        for (uint256 i; i < tokens.length; ++i) {
            vm.assertEq(IERC20(tokens[i]).balanceOf(address(entry)), 0, "entry holds a token");
        }
        vm.assertEq(address(entry).balance, 0, "entry holds native");
    }

    /// @dev The pool, the bridge and the protocol fee recipient hold exactly the inputs and fees of the successful
    ///      calls (nothing else pays them here).
    function invariant_DestinationsGotExactlyTheInputsAndFees() public view {
        address[3] memory tokens = _tokens();
        for (uint256 i; i < tokens.length; ++i) {
            address t = tokens[i];
            vm.assertEq(IERC20(t).balanceOf(address(spokePool)), handler.toSpokePool(t), "spoke pool");
            vm.assertEq(IERC20(t).balanceOf(address(bridge)), handler.toBridge(t), "bridge");
            vm.assertEq(IERC20(t).balanceOf(PROTOCOL_FEE_RECIPIENT), handler.protocolFees(t), "protocol fees");
        }
    }

    function invariant_FeeOnTransferInputsRevert() public view {
        vm.assertEq(handler.feeOnTransferSuccesses(), 0, "a fee-on-transfer input went through");
    }

    function invariant_LocksThroughTheEntryCarryFeesPaid() public view {
        vm.assertEq(handler.locksWithoutFeesPaid(), 0, "a lock through the entry without feesPaid");
        vm.assertEq(bridge.lockCount(), handler.entryLocks(), "every lock came through the entry");
    }

    /// @dev The handler is not vacuous: its calls both succeed (native ones too) and fail, fee-on-transfer included.
    function test_HandlerCallsSucceedAndFail() public {
        for (uint256 i; i < 60; ++i) {
            uint256 seed = uint256(keccak256(abi.encode("entry", i)));
            if (i % 2 == 0) handler.depositIntent(seed, seed >> 64, seed >> 32, i);
            else handler.lock(seed, seed >> 64, seed >> 32, i);
        }
        vm.assertGt(handler.succeeded(), 0, "some succeeded");
        vm.assertGt(handler.nativeSucceeded(), 0, "some native succeeded");
        vm.assertGt(handler.entryLocks(), 0, "some locks");
        vm.assertGt(handler.refused(), 0, "some refused");
        vm.assertGt(handler.feeOnTransferRefused(), 0, "fee-on-transfer refused");
        vm.assertEq(handler.violations(), 0, handler.lastViolation());
        invariant_EntryHoldsNothing();
        invariant_DestinationsGotExactlyTheInputsAndFees();
        invariant_FeeOnTransferInputsRevert();
        invariant_LocksThroughTheEntryCarryFeesPaid();
    }
}
