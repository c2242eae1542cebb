// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Two admin keys of different speed. The owner (in production a TimelockController: each of its calls
///         waits the timelock's delay) alone may widen what a key can do to users' funds, so users see such a change
///         coming and can revoke their approvals before it applies. The guardian (a hot key, or none) may only
///         narrow, and at once: a leaked executor key or a bad source is cut off without waiting the delay.
/// @dev The guardian can never grant a power, so a leaked guardian key costs liveness at worst, never funds.
abstract contract Guarded is Ownable {
    /// @notice May narrow powers at once (see each contract's setters); address(0) = no guardian.
    address public guardian;

    event GuardianSet(address indexed guardian);

    error NotOwnerOrGuardian(address account);

    function setGuardian(address guardian_) external onlyOwner {
        guardian = guardian_;
        emit GuardianSet(guardian_);
    }

    /// @dev A change that widens a power is the owner's alone; one that narrows it, the owner's or the guardian's.
    function _checkOwnerOrGuardianFor(bool widens) internal view {
        if (widens) return _checkOwner();
        address sender = _msgSender();
        if (sender != owner() && sender != guardian) revert NotOwnerOrGuardian(sender);
    }
}
