// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Test-only contract account: sends calls (e.g. SwapRouter.swap with itself as account) and reacts to
///         incoming native coins by accepting, reverting, or trying to reenter another contract.
contract TestSwapCaller {
    uint8 public constant ACCEPT = 0;
    uint8 public constant REJECT = 1;
    uint8 public constant REENTER = 2;

    uint8 public receiveMode;
    address public reentryTarget;
    bytes public reentryData;
    /// @notice Revert data of the last reentry attempt (empty if it succeeded or none was made).
    bytes public lastReentryError;
    uint256 public reentryAttempts;

    error Rejected();

    function setReceiveMode(uint8 mode, address target, bytes calldata data) external {
        receiveMode = mode;
        reentryTarget = target;
        reentryData = data;
    }

    function approve(address token, address spender, uint256 amount) external {
        IERC20(token).approve(spender, amount);
    }

    function execute(address target, bytes calldata data) external payable returns (bytes memory result) {
        bool ok;
        (ok, result) = target.call{value: msg.value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
    }

    receive() external payable {
        if (receiveMode == REJECT) revert Rejected();
        if (receiveMode == REENTER) {
            ++reentryAttempts;
            (bool ok, bytes memory reason) = reentryTarget.call(reentryData);
            lastReentryError = ok ? bytes("") : reason;
        }
    }
}
