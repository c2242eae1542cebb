// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IWETH} from "./interfaces/IUniswap.sol";
import {LockReleaseBridge} from "./LockReleaseBridge.sol";

/// @dev The Across V3 SpokePool's deposit (addresses as bytes32).
interface IAcrossSpokePool {
    function deposit(
        bytes32 depositor,
        bytes32 recipient,
        bytes32 inputToken,
        bytes32 outputToken,
        uint256 inputAmount,
        uint256 outputAmount,
        uint256 destinationChainId,
        bytes32 exclusiveRelayer,
        uint32 quoteTimestamp,
        uint32 fillDeadline,
        uint32 exclusivityParameter,
        bytes calldata message
    ) external payable;
}

/// @notice The source-chain side of every cross-chain swap the service builds on its chains: takes the input from
///         the caller (wrapping a native input), pays the protocol and integrator fees in the source token, and
///         deposits the rest for the caller into the intent bridge (Across SpokePool) or locks it in the
///         lock-and-release bridge. It never holds funds between transactions.
contract CrossChainEntry is ReentrancyGuard {
    using SafeERC20 for IERC20;

    struct Fees {
        uint256 protocolFee;
        uint256 integratorFee;
        address integratorFeeRecipient;
    }

    struct IntentDeposit {
        address inputToken;
        uint256 inputAmount;
        address outputToken;
        uint256 outputAmount;
        uint256 destinationChainId;
        address recipient;
        address exclusiveRelayer;
        uint32 quoteTimestamp;
        uint32 fillDeadline;
        uint32 exclusivityParameter;
    }

    struct LockTransfer {
        address inputToken;
        uint256 inputAmount;
        address outputToken;
        uint256 outputAmount;
        uint256 destinationChainId;
        address recipient;
    }

    /// @notice Each fee is at most 1% of what the caller spends (the service's own caps: 1% protocol, 100 bps
    ///         integrator), so calldata with an inflated fee reverts instead of paying it.
    uint256 public constant MAX_FEE_BPS = 100;
    uint256 private constant PIPS = 1_000_000;

    /// @notice The service's protocol fee in pips of what the caller spends, rounded down as the quote rounds it:
    ///         calldata paying less reverts, so no transfer leaves through this entry without our fee.
    uint256 public immutable protocolFeePips;

    IAcrossSpokePool public immutable spokePool;
    LockReleaseBridge public immutable lockReleaseBridge;
    address public immutable wrappedNative;
    address public immutable protocolFeeRecipient;

    event CrossChainFees(
        address indexed account,
        address indexed token,
        uint256 protocolFee,
        uint256 integratorFee,
        address integratorFeeRecipient
    );

    error Expired();
    error BadValue();
    error BadFee();
    error ZeroAmount();
    error ZeroAddress();
    error FeeOnTransfer();

    constructor(
        address spokePool_,
        address lockReleaseBridge_,
        address wrappedNative_,
        address protocolFeeRecipient_,
        uint256 protocolFeePips_
    ) {
        if (
            spokePool_ == address(0) ||
            lockReleaseBridge_ == address(0) ||
            wrappedNative_ == address(0) ||
            protocolFeeRecipient_ == address(0)
        ) revert ZeroAddress();
        spokePool = IAcrossSpokePool(spokePool_);
        lockReleaseBridge = LockReleaseBridge(payable(lockReleaseBridge_));
        wrappedNative = wrappedNative_;
        protocolFeeRecipient = protocolFeeRecipient_;
        if (protocolFeePips_ > MAX_FEE_BPS * 100) revert BadFee();
        protocolFeePips = protocolFeePips_;
    }

    /// @notice Deposits `d.inputAmount` into the SpokePool with the caller as depositor (refunds of an unfilled
    ///         deposit go to the caller). Native input: `d.inputToken` is the wrapped native and msg.value is the
    ///         input plus both fees.
    function depositIntent(IntentDeposit calldata d, Fees calldata fees, uint256 deadline) external payable nonReentrant {
        if (block.timestamp > deadline) revert Expired();
        if (d.recipient == address(0) || d.outputToken == address(0)) revert ZeroAddress();
        _collect(d.inputToken, d.inputAmount, fees);
        IERC20(d.inputToken).forceApprove(address(spokePool), d.inputAmount);
        spokePool.deposit(
            _toBytes32(msg.sender),
            _toBytes32(d.recipient),
            _toBytes32(d.inputToken),
            _toBytes32(d.outputToken),
            d.inputAmount,
            d.outputAmount,
            d.destinationChainId,
            _toBytes32(d.exclusiveRelayer),
            d.quoteTimestamp,
            d.fillDeadline,
            d.exclusivityParameter,
            ""
        );
    }

    /// @notice Locks `t.inputAmount` in the LockReleaseBridge for the caller; native input as in depositIntent.
    function lock(LockTransfer calldata t, Fees calldata fees, uint256 deadline) external payable nonReentrant {
        if (block.timestamp > deadline) revert Expired();
        _collect(t.inputToken, t.inputAmount, fees);
        IERC20(t.inputToken).forceApprove(address(lockReleaseBridge), t.inputAmount);
        lockReleaseBridge.lock(
            msg.sender,
            t.inputToken,
            t.inputAmount,
            t.outputToken,
            t.outputAmount,
            t.destinationChainId,
            t.recipient
        );
    }

    /// @dev Takes amount + fees from the caller into this contract (wrapping msg.value for a native input) and pays
    ///      both fees out in that token (the wrapped native for a native input); `amount` stays here for the bridge.
    function _collect(address token, uint256 amount, Fees calldata fees) private {
        if (amount == 0) revert ZeroAmount();
        if (token == address(0)) revert ZeroAddress();
        if (fees.integratorFee > 0 && fees.integratorFeeRecipient == address(0)) revert BadFee();
        // Paid to the entry itself the fee would stay here, where nothing can take it out.
        if (fees.integratorFeeRecipient == address(this)) revert BadFee();
        uint256 total = amount + fees.protocolFee + fees.integratorFee;
        if (fees.protocolFee * 10_000 > total * MAX_FEE_BPS || fees.integratorFee * 10_000 > total * MAX_FEE_BPS)
            revert BadFee();
        if (fees.protocolFee < (total * protocolFeePips) / PIPS) revert BadFee();
        if (msg.value > 0) {
            if (token != wrappedNative || msg.value != total) revert BadValue();
            IWETH(wrappedNative).deposit{value: msg.value}();
        } else {
            // A token that arrives short (fee on transfer, rebasing) would leave the bridge short: refused.
            uint256 before = IERC20(token).balanceOf(address(this));
            IERC20(token).safeTransferFrom(msg.sender, address(this), total);
            if (IERC20(token).balanceOf(address(this)) - before != total) revert FeeOnTransfer();
        }
        if (fees.protocolFee > 0) IERC20(token).safeTransfer(protocolFeeRecipient, fees.protocolFee);
        if (fees.integratorFee > 0) IERC20(token).safeTransfer(fees.integratorFeeRecipient, fees.integratorFee);
        emit CrossChainFees(msg.sender, token, fees.protocolFee, fees.integratorFee, fees.integratorFeeRecipient);
    }

    function _toBytes32(address account) private pure returns (bytes32) {
        return bytes32(uint256(uint160(account)));
    }
}
