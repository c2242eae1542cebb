// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IWETH} from "./interfaces/IUniswap.sol";

/// @notice The slower, cheaper bridge: a lock on the origin chain emits a message (the Locked event) that the
///         releaser relays after enough confirmations; the destination's bridge releases the output from its own
///         liquidity, once per (originChainId, nonce).
/// @dev The releaser is trusted to relay only locks it has seen confirmed; the contract guarantees that a message
///      is released at most once and that only the releaser releases.
contract LockReleaseBridge is ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice The only account that releases (the service's bridge admin key).
    address public immutable releaser;
    address public immutable wrappedNative;

    /// @notice Locks so far on this bridge; the next lock's nonce.
    uint256 public lockCount;

    mapping(uint256 originChainId => mapping(uint256 nonce => bool)) private _released;

    event Locked(
        uint256 indexed nonce,
        address indexed depositor,
        uint256 indexed destinationChainId,
        address inputToken,
        uint256 inputAmount,
        address outputToken,
        uint256 outputAmount,
        address recipient
    );
    event Released(
        uint256 indexed originChainId,
        uint256 indexed nonce,
        address outputToken,
        uint256 amount,
        address recipient
    );

    error NotReleaser();
    error AlreadyReleased(uint256 originChainId, uint256 nonce);
    error ZeroAmount();
    error ZeroAddress();
    error SameChain();
    error NotWrappedNative();
    error NativeTransferFailed();

    constructor(address releaser_, address wrappedNative_) {
        if (releaser_ == address(0) || wrappedNative_ == address(0)) revert ZeroAddress();
        releaser = releaser_;
        wrappedNative = wrappedNative_;
    }

    /// @dev Only the wrapped native sends coins here (when a release unwraps).
    receive() external payable {
        if (msg.sender != wrappedNative) revert NotWrappedNative();
    }

    /// @notice Pulls `inputAmount` of `inputToken` from the caller and emits the message for the destination.
    ///         `depositor` is who the lock is for (CrossChainEntry passes its caller); the funds are the caller's.
    function lock(
        address depositor,
        address inputToken,
        uint256 inputAmount,
        address outputToken,
        uint256 outputAmount,
        uint256 destinationChainId,
        address recipient
    ) external nonReentrant {
        if (inputAmount == 0 || outputAmount == 0) revert ZeroAmount();
        if (
            depositor == address(0) ||
            inputToken == address(0) ||
            outputToken == address(0) ||
            recipient == address(0)
        ) revert ZeroAddress();
        if (destinationChainId == block.chainid) revert SameChain();
        IERC20(inputToken).safeTransferFrom(msg.sender, address(this), inputAmount);
        uint256 nonce = lockCount++;
        emit Locked(nonce, depositor, destinationChainId, inputToken, inputAmount, outputToken, outputAmount, recipient);
    }

    /// @notice Pays a lock made on `originChainId` out of this bridge's liquidity. The wrapped native goes out as
    ///         the native coin to an account without code (or with an EIP-7702 delegation), as WETH to a contract.
    function release(
        uint256 originChainId,
        uint256 nonce,
        address outputToken,
        uint256 amount,
        address recipient
    ) external nonReentrant {
        if (msg.sender != releaser) revert NotReleaser();
        if (_released[originChainId][nonce]) revert AlreadyReleased(originChainId, nonce);
        if (amount == 0) revert ZeroAmount();
        if (outputToken == address(0) || recipient == address(0)) revert ZeroAddress();
        _released[originChainId][nonce] = true;
        if (outputToken == wrappedNative && _takesNative(recipient)) {
            IWETH(wrappedNative).withdraw(amount);
            (bool ok, ) = recipient.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            IERC20(outputToken).safeTransfer(recipient, amount);
        }
        emit Released(originChainId, nonce, outputToken, amount, recipient);
    }

    function released(uint256 originChainId, uint256 nonce) external view returns (bool) {
        return _released[originChainId][nonce];
    }

    /// @dev As the Across SpokePool decides it: no code, or an EIP-7702 delegation designator (0xef0100 ‖ address).
    function _takesNative(address account) private view returns (bool) {
        uint256 size = account.code.length;
        return size == 0 || (size == 23 && bytes3(account.code) == 0xef0100);
    }
}
