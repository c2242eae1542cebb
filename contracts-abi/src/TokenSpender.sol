// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Guarded} from "./Guarded.sol";

/// @notice Holds users' ERC-20 approvals (the api's `contractToApprove`) and moves tokens for allowed callers
///         only, so the router can be redeployed without users approving again.
/// @dev An allowed caller must only pull from accounts it has authenticated (SwapRouter: msg.sender).
contract TokenSpender is Guarded {
    using SafeERC20 for IERC20;

    mapping(address => bool) private _callers;

    event CallerSet(address indexed caller, bool allowed);

    error NotCaller(address caller);

    constructor(address owner_) Ownable(owner_) {}

    /// @notice Allowing a caller is the owner's (a timelocked change); disallowing one, the owner's or the guardian's.
    function setCaller(address caller, bool allowed) external {
        _checkOwnerOrGuardianFor(allowed);
        _callers[caller] = allowed;
        emit CallerSet(caller, allowed);
    }

    function isCaller(address caller) external view returns (bool) {
        return _callers[caller];
    }

    function pull(address token, address from, address to, uint256 amount) external {
        if (!_callers[msg.sender]) revert NotCaller(msg.sender);
        IERC20(token).safeTransferFrom(from, to, amount);
    }
}
