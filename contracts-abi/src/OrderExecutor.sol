// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {Path, Venues} from "./RouteTypes.sol";
import {PathExecutor} from "./PathExecutor.sol";
import {Eip712Domain} from "./Eip712Domain.sol";
import {IWETH} from "./interfaces/IUniswap.sol";

/// @notice Executes limit orders and DCA iterations in batches for registered executor wallets. Orders of one
///         pair form a group that shares one swap; its output is split pro rata to the orders' inputs. A failing
///         order, or a failing group, never reverts the batch: every outcome is an event.
contract OrderExecutor is PathExecutor, ReentrancyGuard, Eip712Domain {
    using SafeERC20 for IERC20;

    struct Order {
        bytes32 id;
        address maker;
        uint256 amountIn;
        uint256 fee;
        uint256 minAmountOut;
        bytes signature;
    }

    struct Group {
        address tokenIn;
        address tokenOut;
        Path[] paths;
        Order[] orders;
    }

    /// @notice An order that passed every check, as handed to settleGroup.
    struct Settlement {
        bytes32 id;
        address maker;
        uint256 amountIn;
        uint256 fee;
        uint256 minAmountOut;
    }

    bytes32 public constant PAIR_AUTHORIZATION_TYPEHASH =
        keccak256("PairAuthorization(address maker,address tokenIn,address tokenOut)");
    uint16 public constant MAX_FEE_BPS_LIMIT = 1000;

    // Check outcomes; 0 = passed. Strings only when an event needs one.
    uint256 private constant DEADLINE = 1;
    uint256 private constant ALREADY_EXECUTED = 2;
    uint256 private constant ZERO_AMOUNT = 3;
    uint256 private constant FEE_TOO_HIGH = 4;
    uint256 private constant BAD_SIGNATURE = 5;
    uint256 private constant INSUFFICIENT_BALANCE = 6;
    uint256 private constant INSUFFICIENT_ALLOWANCE = 7;

    // One slot: both are read once per batch.
    address public feeCollector;
    uint16 public maxFeeBps;

    mapping(address => bool) public isExecutor;
    mapping(bytes32 => bool) public executed;

    event OrderExecuted(
        bytes32 indexed id,
        address indexed maker,
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 fee,
        uint256 amountOut
    );
    event OrderFailed(bytes32 indexed id, address indexed maker, string reason);
    event ExecutorSet(address indexed executor, bool allowed);
    event FeeCollectorSet(address feeCollector);
    event MaxFeeBpsSet(uint16 maxFeeBps);

    error NotExecutor();
    error NotSelf();
    error BadConfig();
    error DuplicateOrder(bytes32 id);
    /// @dev Selector recognised by executeBatch to report INSUFFICIENT_OUTPUT instead of SWAP_FAILED.
    error ShareBelowMinimum(bytes32 id, uint256 amountOut, uint256 minAmountOut);

    constructor(
        address owner_,
        address weth_,
        Venues memory venues_,
        address feeCollector_,
        uint16 maxFeeBps_
    ) PathExecutor(owner_, weth_, venues_) Eip712Domain("TradeAggregationService", "1") {
        _setFeeCollector(feeCollector_);
        _setMaxFeeBps(maxFeeBps_);
    }

    // ---- owner ----

    function setExecutor(address executor, bool allowed) external onlyOwner {
        isExecutor[executor] = allowed;
        emit ExecutorSet(executor, allowed);
    }

    function setFeeCollector(address feeCollector_) external onlyOwner {
        _setFeeCollector(feeCollector_);
    }

    function setMaxFeeBps(uint16 maxFeeBps_) external onlyOwner {
        _setMaxFeeBps(maxFeeBps_);
    }

    function _setFeeCollector(address feeCollector_) private {
        if (feeCollector_ == address(0)) revert BadConfig();
        feeCollector = feeCollector_;
        emit FeeCollectorSet(feeCollector_);
    }

    function _setMaxFeeBps(uint16 maxFeeBps_) private {
        if (maxFeeBps_ > MAX_FEE_BPS_LIMIT) revert BadConfig();
        maxFeeBps = maxFeeBps_;
        emit MaxFeeBpsSet(maxFeeBps_);
    }

    function domainSeparator() external view returns (bytes32) {
        return _domainSeparator();
    }

    // ---- execution ----

    /// @notice Reverts only for a caller that is not a registered executor.
    function executeBatch(Group[] calldata groups, uint256 deadline) external nonReentrant {
        if (!isExecutor[msg.sender]) revert NotExecutor();
        uint256 maxFeeBps_ = maxFeeBps;
        bool expired = block.timestamp > deadline;
        bytes32 domain = _domainSeparator();
        for (uint256 g; g < groups.length; ++g) _runGroup(groups[g], expired, maxFeeBps_, domain);
    }

    function _runGroup(Group calldata group, bool expired, uint256 maxFeeBps_, bytes32 domain) private {
        uint256 count = group.orders.length;
        Settlement[] memory passed = new Settlement[](count);
        uint256 passedCount;
        for (uint256 i; i < count; ++i) {
            Order calldata order = group.orders[i];
            uint256 failure = expired ? DEADLINE : _check(order, group.tokenIn, group.tokenOut, maxFeeBps_, domain);
            if (failure != 0) {
                emit OrderFailed(order.id, order.maker, _reason(failure));
            } else {
                passed[passedCount++] = Settlement(
                    order.id,
                    order.maker,
                    order.amountIn,
                    order.fee,
                    order.minAmountOut
                );
            }
        }
        if (passedCount == 0) return;
        assembly ("memory-safe") {
            mstore(passed, passedCount)
        }
        // A self-call so a failed swap or an unmet minimum undoes this group's transfers and nothing else.
        try this.settleGroup(group.tokenIn, group.tokenOut, group.paths, passed) {} catch (bytes memory err) {
            string memory reason = err.length >= 4 && bytes4(err) == ShareBelowMinimum.selector
                ? "INSUFFICIENT_OUTPUT"
                : "SWAP_FAILED";
            for (uint256 i; i < passedCount; ++i) emit OrderFailed(passed[i].id, passed[i].maker, reason);
        }
    }

    /// @dev Every check that can be made without moving funds; returns 0 or the failure code.
    function _check(
        Order calldata order,
        address tokenIn,
        address tokenOut,
        uint256 maxFeeBps_,
        bytes32 domain
    ) private view returns (uint256) {
        if (executed[order.id]) return ALREADY_EXECUTED;
        uint256 amountIn = order.amountIn;
        if (amountIn == 0) return ZERO_AMOUNT;
        // floor(amountIn * maxFeeBps / 10_000) without the overflow an absurd amountIn would cause (a panic here
        // would revert the whole batch).
        uint256 fee = order.fee;
        if (fee > (amountIn / 10_000) * maxFeeBps_ + ((amountIn % 10_000) * maxFeeBps_) / 10_000) return FEE_TOO_HIGH;
        address maker = order.maker;
        bytes32 structHash = keccak256(abi.encode(PAIR_AUTHORIZATION_TYPEHASH, maker, tokenIn, tokenOut));
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(
            _hashTypedData(domain, structHash),
            order.signature
        );
        if (err != ECDSA.RecoverError.NoError || signer != maker) return BAD_SIGNATURE;
        // fee <= amountIn / 10 here, so the sum overflows only for amounts no balance can hold.
        if (amountIn > type(uint256).max - fee) return INSUFFICIENT_BALANCE;
        uint256 total = amountIn + fee;
        if (_readUint(tokenIn, IERC20.balanceOf.selector, maker, address(0), 0x24) < total) return INSUFFICIENT_BALANCE;
        if (_readUint(tokenIn, IERC20.allowance.selector, maker, address(this), 0x44) < total) {
            return INSUFFICIENT_ALLOWANCE;
        }
        return 0;
    }

    /// @dev `token.balanceOf(a)` (size 0x24) or `token.allowance(a, b)` (size 0x44); reads as 0 when the token
    ///      misbehaves (no code, revert, short return), so a bad token fails its orders instead of reverting the
    ///      batch. Encoded in free memory without allocating: this runs twice per order.
    function _readUint(
        address token,
        bytes4 selector,
        address a,
        address b,
        uint256 size
    ) private view returns (uint256 value) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), a)
            mstore(add(ptr, 0x24), b)
            let ok := staticcall(gas(), token, ptr, size, 0x00, 0x20)
            if and(ok, gt(returndatasize(), 0x1f)) { value := mload(0x00) }
        }
    }

    function _reason(uint256 failure) private pure returns (string memory) {
        if (failure == DEADLINE) return "DEADLINE";
        if (failure == ALREADY_EXECUTED) return "ALREADY_EXECUTED";
        if (failure == ZERO_AMOUNT) return "ZERO_AMOUNT";
        if (failure == FEE_TOO_HIGH) return "FEE_TOO_HIGH";
        if (failure == BAD_SIGNATURE) return "BAD_SIGNATURE";
        if (failure == INSUFFICIENT_BALANCE) return "INSUFFICIENT_BALANCE";
        return "INSUFFICIENT_ALLOWANCE";
    }

    /// @notice Settles the orders of one group that passed the checks; callable only by this contract.
    function settleGroup(
        address tokenIn,
        address tokenOut,
        Path[] calldata paths,
        Settlement[] calldata orders
    ) external {
        if (msg.sender != address(this)) revert NotSelf();
        (uint256 totalIn, uint256 totalFee) = _collect(tokenIn, orders);
        if (totalFee > 0) IERC20(tokenIn).safeTransfer(feeCollector, totalFee);
        bool nativeOut = tokenOut == NATIVE;
        uint256 gross = _executePaths(tokenIn, nativeOut ? weth : tokenOut, totalIn, paths);
        if (nativeOut) IWETH(weth).withdraw(gross);
        _distribute(tokenIn, tokenOut, gross, totalIn, orders);
    }

    /// @dev Marks the orders executed and pulls amountIn + fee from each maker.
    function _collect(
        address tokenIn,
        Settlement[] calldata orders
    ) private returns (uint256 totalIn, uint256 totalFee) {
        for (uint256 i; i < orders.length; ++i) {
            Settlement calldata order = orders[i];
            bytes32 id = order.id;
            // Twice in one group: the first settlement would leave the second nothing to check against.
            if (executed[id]) revert DuplicateOrder(id);
            executed[id] = true;
            uint256 amountIn = order.amountIn;
            uint256 fee = order.fee;
            IERC20(tokenIn).safeTransferFrom(order.maker, address(this), amountIn + fee);
            totalIn += amountIn;
            totalFee += fee;
        }
    }

    /// @dev Splits the output pro rata to amountIn (the last order takes the rounding remainder) and pays it.
    function _distribute(
        address tokenIn,
        address tokenOut,
        uint256 gross,
        uint256 totalIn,
        Settlement[] calldata orders
    ) private {
        uint256 remaining = gross;
        uint256 last = orders.length - 1;
        for (uint256 i; i <= last; ++i) {
            Settlement calldata order = orders[i];
            uint256 share = i == last ? remaining : (gross * order.amountIn) / totalIn;
            remaining -= share;
            if (share < order.minAmountOut) revert ShareBelowMinimum(order.id, share, order.minAmountOut);
            _payOut(tokenOut, order.maker, share);
            emit OrderExecuted(order.id, order.maker, tokenIn, tokenOut, order.amountIn, order.fee, share);
        }
    }
}
