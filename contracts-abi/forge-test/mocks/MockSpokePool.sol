// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice The Across SpokePool's deposit as far as CrossChainEntry uses it: pulls `inputAmount` of the input token
///         from the caller (transferFrom, as the real pool does for an ERC-20 input) and records the call.
contract MockDepositSpokePool {
    /// @dev deposit's static arguments, in their order (a static struct is encoded as its fields are).
    struct DepositArgs {
        bytes32 depositor;
        bytes32 recipient;
        bytes32 inputToken;
        bytes32 outputToken;
        uint256 inputAmount;
        uint256 outputAmount;
        uint256 destinationChainId;
        bytes32 exclusiveRelayer;
        uint32 quoteTimestamp;
        uint32 fillDeadline;
        uint32 exclusivityParameter;
    }

    struct DepositCall {
        DepositArgs args;
        uint256 value;
        address caller;
    }

    bytes4 internal constant DEPOSIT_SELECTOR = bytes4(
        keccak256("deposit(bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,bytes32,uint32,uint32,uint32,bytes)")
    );

    uint256 public depositCount;
    DepositCall internal _last;

    /// @dev deposit(bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,bytes32,uint32,uint32,uint32,bytes),
    ///      taken in the fallback: a declared function with its 12 parameters is too deep for the legacy code
    ///      generator these tests compile with.
    fallback() external payable {
        require(msg.sig == DEPOSIT_SELECTOR, "unknown function");
        DepositArgs memory args = abi.decode(msg.data[4:4 + 11 * 32], (DepositArgs));
        require(
            IERC20(address(uint160(uint256(args.inputToken))))
                .transferFrom(msg.sender, address(this), args.inputAmount),
            "pull"
        );
        ++depositCount;
        _last = DepositCall(args, msg.value, msg.sender);
    }

    receive() external payable {
        revert("no plain transfers");
    }

    function lastDeposit() external view returns (DepositCall memory) {
        return _last;
    }
}

/// @notice The admin half of an Across SpokePool as far as RootBundleAdmin uses it: relayRootBundle (recorded) and
///         the owner-only functions reached through adminCall (pausing, ownership). Only its owner may call them.
contract MockRootBundleSpokePool {
    struct RootBundle {
        bytes32 relayerRefundRoot;
        bytes32 slowRelayRoot;
    }

    address public owner;
    bool public depositsPaused;
    RootBundle[] internal _bundles;

    error NotOwner(address caller);

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    function relayRootBundle(bytes32 relayerRefundRoot, bytes32 slowRelayRoot) external onlyOwner {
        _bundles.push(RootBundle(relayerRefundRoot, slowRelayRoot));
    }

    function pauseDeposits(bool pause) external onlyOwner {
        depositsPaused = pause;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        owner = newOwner;
    }

    function rootBundleCount() external view returns (uint256) {
        return _bundles.length;
    }

    function rootBundle(uint256 index) external view returns (RootBundle memory) {
        return _bundles[index];
    }
}
