// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Path, Venues} from "./RouteTypes.sol";
import {PathExecutor} from "./PathExecutor.sol";
import {IWETH} from "./interfaces/IUniswap.sol";
import {TokenSpender} from "./TokenSpender.sol";

/// @notice Executes a quoted route for the account it was built for, takes the protocol and integrator fees
///         from the output and sends the rest to the account.
contract SwapRouter is PathExecutor, ReentrancyGuard {
    using SafeERC20 for IERC20;

    struct SwapParams {
        address account;
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint256 minAmountOut;
        uint256 deadline;
        uint16 integratorFeeBps;
        address integratorFeeRecipient;
        Path[] paths;
    }

    /// @notice 1 pip = 1/1,000,000 of the output (1/100 bps).
    uint32 public constant MAX_PROTOCOL_FEE_PIPS = 10_000;
    uint16 public constant MAX_INTEGRATOR_FEE_BPS = 100;

    TokenSpender public immutable spender;

    // One slot: both are read on every swap.
    address public protocolFeeRecipient;
    uint32 public protocolFeePips;

    event Swapped(
        address indexed account,
        address indexed tokenIn,
        address indexed tokenOut,
        uint256 amountIn,
        uint256 grossAmountOut,
        uint256 protocolFee,
        uint256 integratorFee,
        uint256 amountOut,
        address integratorFeeRecipient
    );
    event ProtocolFeeSet(uint32 pips, address recipient);

    error NotAccount();
    error Expired();
    error InsufficientOutput(uint256 amountOut, uint256 minAmountOut);
    error BadValue();
    error BadFee();
    error ZeroAmount();

    constructor(
        address owner_,
        address weth_,
        Venues memory venues_,
        address spender_,
        address protocolFeeRecipient_,
        uint32 protocolFeePips_
    ) PathExecutor(owner_, weth_, venues_) {
        spender = TokenSpender(spender_);
        _setProtocolFee(protocolFeePips_, protocolFeeRecipient_);
    }

    function setProtocolFee(uint32 pips, address recipient) external onlyOwner {
        _setProtocolFee(pips, recipient);
    }

    function _setProtocolFee(uint32 pips, address recipient) private {
        if (pips > MAX_PROTOCOL_FEE_PIPS || (pips > 0 && recipient == address(0))) revert BadFee();
        protocolFeePips = pips;
        protocolFeeRecipient = recipient;
        emit ProtocolFeeSet(pips, recipient);
    }

    /// @dev The spender moves every user's approved tokens for this contract: calling it with route data
    ///      would let anyone drain those approvals.
    function _checkSourceAllowed(address target) internal view override {
        super._checkSourceAllowed(target);
        if (target == address(spender)) revert ForbiddenSource(target);
    }

    /// @notice Fees go out in the output token (WETH when the output is native); only the account's part is
    ///         unwrapped.
    function swap(SwapParams calldata p) external payable nonReentrant returns (uint256 amountOut) {
        if (msg.sender != p.account) revert NotAccount();
        if (block.timestamp > p.deadline) revert Expired();
        if (p.amountIn == 0) revert ZeroAmount();
        if (p.integratorFeeBps > MAX_INTEGRATOR_FEE_BPS) revert BadFee();
        if (p.integratorFeeBps > 0 && p.integratorFeeRecipient == address(0)) revert BadFee();

        address tokenIn = _takeInput(p);
        address tokenOut = p.tokenOut == NATIVE ? weth : p.tokenOut;
        uint256 gross = _executePaths(tokenIn, tokenOut, p.amountIn, p.paths);
        (uint256 protocolFee, uint256 integratorFee) = _takeFees(tokenOut, gross, p);
        amountOut = gross - protocolFee - integratorFee;
        if (amountOut < p.minAmountOut) revert InsufficientOutput(amountOut, p.minAmountOut);

        if (tokenOut != p.tokenOut) {
            IWETH(weth).withdraw(amountOut);
            _payOut(NATIVE, msg.sender, amountOut);
        } else {
            // What the account receives, not what was sent: a token that takes a cut in transfer must not pay less
            // than the minimum the account asked for.
            uint256 before = IERC20(tokenOut).balanceOf(msg.sender);
            _payOut(tokenOut, msg.sender, amountOut);
            uint256 received = IERC20(tokenOut).balanceOf(msg.sender) - before;
            if (received < p.minAmountOut) revert InsufficientOutput(received, p.minAmountOut);
        }
        _emitSwapped(p, gross, protocolFee, integratorFee, amountOut);
    }

    /// @dev Wraps the native input or pulls the ERC-20 input from the account; returns the token now held.
    function _takeInput(SwapParams calldata p) private returns (address) {
        if (p.tokenIn == NATIVE) {
            if (msg.value != p.amountIn) revert BadValue();
            IWETH(weth).deposit{value: msg.value}();
            return weth;
        }
        if (msg.value != 0) revert BadValue();
        spender.pull(p.tokenIn, msg.sender, address(this), p.amountIn);
        return p.tokenIn;
    }

    function _takeFees(
        address token,
        uint256 gross,
        SwapParams calldata p
    ) private returns (uint256 protocolFee, uint256 integratorFee) {
        (address recipient, uint32 pips) = (protocolFeeRecipient, protocolFeePips);
        protocolFee = (gross * pips) / 1_000_000;
        integratorFee = (gross * p.integratorFeeBps) / 10_000;
        if (protocolFee > 0) IERC20(token).safeTransfer(recipient, protocolFee);
        if (integratorFee > 0) IERC20(token).safeTransfer(p.integratorFeeRecipient, integratorFee);
    }

    function _emitSwapped(
        SwapParams calldata p,
        uint256 gross,
        uint256 protocolFee,
        uint256 integratorFee,
        uint256 amountOut
    ) private {
        emit Swapped(
            p.account,
            p.tokenIn,
            p.tokenOut,
            p.amountIn,
            gross,
            protocolFee,
            integratorFee,
            amountOut,
            p.integratorFeeRecipient
        );
    }
}
