// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice Test-only external liquidity source (hop kind 2): fills at a price the caller names, from tokens
///         minted to it beforehand. Can be armed to call back into a contract first, for reentrancy tests.
contract TestExternalSource {
    using SafeERC20 for IERC20;

    address public reentryTarget;
    bytes public reentryData;

    function setReentry(address target, bytes calldata data) external {
        reentryTarget = target;
        reentryData = data;
    }

    /// @dev Pulls `amountIn` of tokenIn from the caller and pays `amountOut` of tokenOut to it. A failed
    ///      reentry attempt is bubbled up so the test sees the guard's own error.
    function fill(address tokenIn, address tokenOut, uint256 amountIn, uint256 amountOut) external {
        if (reentryTarget != address(0)) {
            (bool ok, bytes memory reason) = reentryTarget.call(reentryData);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        IERC20(tokenOut).safeTransfer(msg.sender, amountOut);
    }
}
