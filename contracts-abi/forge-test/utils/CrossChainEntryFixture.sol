// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {FeeOnTransferToken, MintableToken} from "../mocks/Tokens.sol";
import {MockDepositSpokePool} from "../mocks/MockSpokePool.sol";
import {CrossChainEntry} from "../../src/CrossChainEntry.sol";
import {LockReleaseBridge} from "../../src/LockReleaseBridge.sol";
import {WrappedNative} from "../../src/test/WrappedNative.sol";

/// @notice What CrossChainEntry shares between its tests: a mock SpokePool, a real LockReleaseBridge whose fee
///         taker is the entry, the wrapped native, a plain and a fee-on-transfer token.
abstract contract CrossChainEntryFixture is TestBase {
    uint256 internal constant PROTOCOL_FEE_PIPS = 2_500;
    uint256 internal constant DESTINATION = 10;
    uint256 internal constant START = 1_700_000_000;
    uint32 internal constant LOCK_TIMEOUT = 1 days;

    address internal constant OWNER = address(0x0A11);
    address internal constant RELEASER = address(0x5E1E);
    address internal constant PROTOCOL_FEE_RECIPIENT = address(0xFEE1);
    address internal constant INTEGRATOR = address(0x1A7E);
    address internal constant RECIPIENT = address(0x2EC1);

    WrappedNative internal weth;
    MintableToken internal usdc;
    FeeOnTransferToken internal fot;
    MockDepositSpokePool internal spokePool;
    LockReleaseBridge internal bridge;
    CrossChainEntry internal entry;

    function _deployEntryWorld() internal {
        vm.warp(START);
        weth = new WrappedNative("Wrapped Ether", "WETH");
        usdc = new MintableToken("USDC", 6);
        fot = new FeeOnTransferToken("FOT", 100);
        spokePool = new MockDepositSpokePool();
        bridge = new LockReleaseBridge(OWNER, RELEASER, address(weth), LOCK_TIMEOUT, 6 hours);
        entry = new CrossChainEntry(
            address(spokePool), address(bridge), address(weth), PROTOCOL_FEE_RECIPIENT, PROTOCOL_FEE_PIPS
        );
        vm.prank(OWNER);
        bridge.setFeeTaker(address(entry));
    }

    /// @dev The least protocol fee the entry takes with `amount` and `integratorFee` (the fee is part of the total
    ///      it is a share of): the least fixpoint of pf = floor((amount + pf + integratorFee) * pips / 1e6).
    function _minProtocolFee(uint256 amount, uint256 integratorFee) internal view returns (uint256 fee) {
        uint256 pips = entry.protocolFeePips();
        for (uint256 i; i < 64; ++i) {
            uint256 next = ((amount + fee + integratorFee) * pips) / 1_000_000;
            if (next == fee) return fee;
            fee = next;
        }
        revert("no fixpoint");
    }

    function _intent(address token, uint256 amount) internal view returns (CrossChainEntry.IntentDeposit memory) {
        return CrossChainEntry.IntentDeposit({
            inputToken: token,
            inputAmount: amount,
            outputToken: address(0x0117),
            outputAmount: amount - amount / 1000,
            destinationChainId: DESTINATION,
            recipient: RECIPIENT,
            exclusiveRelayer: address(0xE1),
            quoteTimestamp: uint32(block.timestamp),
            fillDeadline: uint32(block.timestamp + 1 hours),
            exclusivityParameter: 30
        });
    }

    function _transfer(address token, uint256 amount) internal pure returns (CrossChainEntry.LockTransfer memory) {
        return CrossChainEntry.LockTransfer({
            inputToken: token,
            inputAmount: amount,
            outputToken: address(0x0117),
            outputAmount: amount,
            destinationChainId: DESTINATION,
            recipient: RECIPIENT
        });
    }

    function _fund(address token, address account, uint256 amount) internal {
        if (token == address(weth)) {
            vm.deal(account, account.balance + amount);
            vm.prank(account);
            weth.deposit{value: amount}();
        } else {
            MintableToken(token).mint(account, amount);
        }
        vm.prank(account);
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", address(entry), type(uint256).max));
        require(ok, "approve");
    }
}
