// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Path, Venues} from "./RouteTypes.sol";
import {PathExecutor} from "./PathExecutor.sol";
import {PriceBound} from "./PriceBound.sol";
import {PriceOracle} from "./PriceOracle.sol";
import {Eip712Domain} from "./Eip712Domain.sol";
import {MakerSignatures} from "./MakerSignatures.sol";
import {IWETH} from "./interfaces/IUniswap.sol";

/// @notice Executes limit orders and DCA iterations in batches for registered executor wallets. Orders of one
///         pair form a group that shares one swap; its output is split pro rata to the orders' inputs. A failing
///         order never reverts the batch, nor fails the other orders of its group: every outcome is an event.
/// @dev What an executor key cannot do, whatever it passes: spend a maker's tokens for an integrator (API key) or a
///      pair the maker did not sign; take more than maxFeeBps, or more than the fee cap the maker signed, of an order
///      as fee; execute an order id twice; pay a maker less than its minimum or less than the price bound (a
///      time-weighted price less a deviation).
contract OrderExecutor is PathExecutor, PriceBound, ReentrancyGuard, Eip712Domain {
    struct Order {
        address maker;
        /// @notice The service's reference of the order (keccak256 of its id); part of the on-chain id.
        bytes32 ref;
        /// @notice The API key the maker granted the pair to (keccak256 of its key id), as signed.
        bytes32 integrator;
        /// @notice The deviation the maker signed; 0 = the contract's maxDeviationBps.
        uint16 maxDeviationBps;
        /// @notice The fee cap the maker signed (the contract's maxFeeBps when it signed): the fee is held to the
        ///         lower of it and the current maxFeeBps, so a raise never reaches an authorization signed before.
        uint16 maxFeeBps;
        uint256 amountIn;
        uint256 fee;
        uint256 minAmountOut;
        /// @notice ECDSA for EOAs; anything the maker's ERC-1271 isValidSignature accepts for contract wallets.
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
        uint16 maxDeviationBps;
    }

    bytes32 public constant PAIR_AUTHORIZATION_TYPEHASH =
        keccak256(
            "PairAuthorization(address maker,address tokenIn,address tokenOut,bytes32 integrator,uint16 maxDeviationBps,uint16 maxFeeBps)"
        );
    uint16 public constant MAX_FEE_BPS_LIMIT = 1000;
    /// @notice Gas a maker's wallet gets to receive the native coin; past it the maker is paid in WETH.
    uint256 public constant NATIVE_PAYOUT_GAS = 30_000;
    /// @notice How many times a group is settled again after shedding an order that failed alone (so at most
    ///         MAX_GROUP_RETRIES + 1 orders are shed) before its remaining orders wait for the next batch: bounds the
    ///         gas makers that fail on purpose can make a group spend.
    uint256 public constant MAX_GROUP_RETRIES = 4;

    // Failure codes; 0 = passed. Named in events by _reason.
    uint256 private constant DEADLINE = 1;
    uint256 private constant ALREADY_EXECUTED = 2;
    uint256 private constant ZERO_AMOUNT = 3;
    uint256 private constant FEE_TOO_HIGH = 4;
    uint256 private constant BAD_SIGNATURE = 5;
    uint256 private constant INSUFFICIENT_BALANCE = 6;
    uint256 private constant INSUFFICIENT_ALLOWANCE = 7;
    uint256 private constant INSUFFICIENT_OUTPUT = 8;
    uint256 private constant BELOW_PRICE_BOUND = 9;
    uint256 private constant NO_PRICE_BOUND = 10;
    uint256 private constant TRANSFER_IN_FAILED = 11;
    uint256 private constant PAYOUT_FAILED = 12;
    uint256 private constant SWAP_FAILED = 13;
    uint256 private constant RETRY_LIMIT = 14;

    // One slot: both are read once per batch.
    address public feeCollector;
    uint16 public maxFeeBps;

    mapping(address => bool) public isExecutor;
    /// @notice maker => on-chain order id => executed.
    mapping(address => mapping(bytes32 => bool)) public executed;

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
    /// @dev settleGroup's way of failing one order alone: the group is settled again without it.
    error OrderRejected(uint256 index, uint256 failure);
    /// @dev The group's token arrived short (fee-on-transfer or rebasing): the whole group fails.
    error ShortTransferIn();
    /// @dev Whatever a swap's pools, tokens or sources reverted with: never passed on, so nothing outside this
    ///      contract can forge an OrderRejected or ShortTransferIn and make the group fail the wrong orders.
    error SwapFailed();

    constructor(
        address owner_,
        address weth_,
        Venues memory venues_,
        address feeCollector_,
        uint16 maxFeeBps_,
        PriceOracle priceOracle_,
        uint16 maxDeviationBps_
    )
        PathExecutor(owner_, weth_, venues_)
        PriceBound(priceOracle_, maxDeviationBps_)
        Eip712Domain("TradeAggregationService", "1")
    {
        _setFeeCollector(feeCollector_);
        _setMaxFeeBps(maxFeeBps_);
    }

    // ---- owner (timelocked) and guardian ----

    /// @notice Registering an executor is the owner's; removing one, the owner's or the guardian's (a leaked
    ///         executor key is cut off without waiting the timelock).
    function setExecutor(address executor, bool allowed) external {
        _checkOwnerOrGuardianFor(allowed);
        isExecutor[executor] = allowed;
        emit ExecutorSet(executor, allowed);
    }

    function setFeeCollector(address feeCollector_) external onlyOwner {
        _setFeeCollector(feeCollector_);
    }

    /// @notice Raising the cap is the owner's; keeping or lowering it, the owner's or the guardian's. A raise never
    ///         applies to authorizations signed before it: they carry the cap the maker accepted.
    function setMaxFeeBps(uint16 maxFeeBps_) external {
        _checkOwnerOrGuardianFor(maxFeeBps_ > maxFeeBps);
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

    /// @notice An order's on-chain id: bound to its maker, pair, integrator, reference and amount, so an id names
    ///         one order of one maker and nobody can spend another order's id.
    function orderId(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        bytes32 ref,
        uint256 amountIn
    ) public pure returns (bytes32) {
        return keccak256(abi.encode(maker, tokenIn, tokenOut, integrator, ref, amountIn));
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
            bytes32 id = orderId(order.maker, group.tokenIn, group.tokenOut, order.integrator, order.ref, order.amountIn);
            uint256 failure = expired ? DEADLINE : _check(order, id, group.tokenIn, group.tokenOut, maxFeeBps_, domain);
            if (failure != 0) {
                emit OrderFailed(id, order.maker, _reason(failure));
            } else {
                passed[passedCount++] = Settlement(
                    id,
                    order.maker,
                    order.amountIn,
                    order.fee,
                    order.minAmountOut,
                    order.maxDeviationBps
                );
            }
        }
        if (passedCount == 0) return;
        uint256 boundX128 = _boundOf(group.tokenIn, group.tokenOut);
        if (boundX128 == 0) return _failAll(passed, passedCount, NO_PRICE_BOUND);
        for (uint256 retries; ; ++retries) {
            assembly ("memory-safe") {
                mstore(passed, passedCount)
            }
            // A self-call, so a failure undoes this group's transfers and nothing else.
            try this.settleGroup(group.tokenIn, group.tokenOut, group.paths, passed, boundX128) {
                return;
            } catch (bytes memory err) {
                (bool rejected, uint256 index, uint256 failure) = _rejection(err, passedCount);
                if (!rejected) {
                    bool short = err.length == 4 && bytes4(err) == ShortTransferIn.selector;
                    return _failAll(passed, passedCount, short ? TRANSFER_IN_FAILED : SWAP_FAILED);
                }
                // The one order that cannot settle fails alone; the others are settled again without it.
                emit OrderFailed(passed[index].id, passed[index].maker, _reason(failure));
                passed[index] = passed[--passedCount];
                if (passedCount == 0) return;
                if (retries == MAX_GROUP_RETRIES) return _failAll(passed, passedCount, RETRY_LIMIT);
            }
        }
    }

    function _failAll(Settlement[] memory orders, uint256 count, uint256 failure) private {
        string memory reason = _reason(failure);
        for (uint256 i; i < count; ++i) emit OrderFailed(orders[i].id, orders[i].maker, reason);
    }

    /// @dev An OrderRejected(index, failure) revert of settleGroup with an index in range, or not one.
    function _rejection(
        bytes memory err,
        uint256 count
    ) private pure returns (bool rejected, uint256 index, uint256 failure) {
        if (err.length != 68 || bytes4(err) != OrderRejected.selector) return (false, 0, 0);
        assembly ("memory-safe") {
            index := mload(add(err, 0x24))
            failure := mload(add(err, 0x44))
        }
        rejected = index < count;
    }

    /// @dev Every check that can be made without moving funds; returns 0 or the failure code.
    function _check(
        Order calldata order,
        bytes32 id,
        address tokenIn,
        address tokenOut,
        uint256 maxFeeBps_,
        bytes32 domain
    ) private view returns (uint256) {
        address maker = order.maker;
        if (executed[maker][id]) return ALREADY_EXECUTED;
        uint256 amountIn = order.amountIn;
        if (amountIn == 0) return ZERO_AMOUNT;
        // The lower of the current cap and the one the maker signed (checked below with the signature).
        if (order.maxFeeBps < maxFeeBps_) maxFeeBps_ = order.maxFeeBps;
        // floor(amountIn * maxFeeBps / 10_000) without the overflow an absurd amountIn would cause (a panic here
        // would revert the whole batch).
        uint256 fee = order.fee;
        if (fee > (amountIn / 10_000) * maxFeeBps_ + ((amountIn % 10_000) * maxFeeBps_) / 10_000) return FEE_TOO_HIGH;
        bytes32 digest = _hashTypedData(domain, _pairAuthorizationHash(order, tokenIn, tokenOut));
        if (!MakerSignatures.isValidNow(maker, digest, order.signature)) return BAD_SIGNATURE;
        // fee <= amountIn / 10 here, so the sum overflows only for amounts no balance can hold.
        if (amountIn > type(uint256).max - fee) return INSUFFICIENT_BALANCE;
        uint256 total = amountIn + fee;
        if (_readUint(tokenIn, IERC20.balanceOf.selector, maker, address(0), 0x24) < total) return INSUFFICIENT_BALANCE;
        if (_readUint(tokenIn, IERC20.allowance.selector, maker, address(this), 0x44) < total) {
            return INSUFFICIENT_ALLOWANCE;
        }
        return 0;
    }

    /// @dev The EIP-712 struct hash of the pair authorization the order claims its maker signed.
    function _pairAuthorizationHash(
        Order calldata order,
        address tokenIn,
        address tokenOut
    ) private pure returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    PAIR_AUTHORIZATION_TYPEHASH,
                    order.maker,
                    tokenIn,
                    tokenOut,
                    order.integrator,
                    order.maxDeviationBps,
                    order.maxFeeBps
                )
            );
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
        if (failure == INSUFFICIENT_ALLOWANCE) return "INSUFFICIENT_ALLOWANCE";
        if (failure == INSUFFICIENT_OUTPUT) return "INSUFFICIENT_OUTPUT";
        if (failure == BELOW_PRICE_BOUND) return "BELOW_PRICE_BOUND";
        if (failure == NO_PRICE_BOUND) return "NO_PRICE_BOUND";
        if (failure == TRANSFER_IN_FAILED) return "TRANSFER_IN_FAILED";
        if (failure == PAYOUT_FAILED) return "PAYOUT_FAILED";
        if (failure == RETRY_LIMIT) return "RETRY_LIMIT";
        return "SWAP_FAILED";
    }

    /// @notice Settles the orders of one group that passed the checks; callable only by this contract.
    function settleGroup(
        address tokenIn,
        address tokenOut,
        Path[] calldata paths,
        Settlement[] calldata orders,
        uint256 boundX128
    ) external {
        if (msg.sender != address(this)) revert NotSelf();
        (uint256 totalIn, uint256 totalFee) = _collect(tokenIn, orders);
        if (totalFee > 0 && !_tryTransfer(tokenIn, feeCollector, totalFee)) revert SwapFailed();
        bool nativeOut = tokenOut == NATIVE;
        uint256 gross;
        try this.swapPaths(tokenIn, nativeOut ? weth : tokenOut, totalIn, paths) returns (uint256 out) {
            gross = out;
        } catch {
            revert SwapFailed();
        }
        if (nativeOut) IWETH(weth).withdraw(gross);
        _distribute(tokenIn, tokenOut, gross, totalIn, orders, boundX128);
    }

    /// @notice Runs a settling group's swap with the tokens this contract holds; callable only by this contract.
    function swapPaths(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        Path[] calldata paths
    ) external returns (uint256) {
        if (msg.sender != address(this)) revert NotSelf();
        return _executePaths(tokenIn, tokenOut, amountIn, paths);
    }

    /// @dev Marks the orders executed and pulls amountIn + fee from each maker; a maker whose transfer fails is
    ///      rejected alone. The group's token must arrive in full: fee-on-transfer tokens are refused.
    function _collect(
        address tokenIn,
        Settlement[] calldata orders
    ) private returns (uint256 totalIn, uint256 totalFee) {
        uint256 before = _readUint(tokenIn, IERC20.balanceOf.selector, address(this), address(0), 0x24);
        for (uint256 i; i < orders.length; ++i) {
            Settlement calldata order = orders[i];
            bytes32 id = order.id;
            address maker = order.maker;
            // Twice in one group: the copy fails alone.
            if (executed[maker][id]) revert OrderRejected(i, ALREADY_EXECUTED);
            executed[maker][id] = true;
            uint256 amountIn = order.amountIn;
            uint256 fee = order.fee;
            if (!_tryTransferFrom(tokenIn, maker, amountIn + fee)) revert OrderRejected(i, TRANSFER_IN_FAILED);
            totalIn += amountIn;
            totalFee += fee;
        }
        uint256 received = _readUint(tokenIn, IERC20.balanceOf.selector, address(this), address(0), 0x24) - before;
        if (received != totalIn + totalFee) revert ShortTransferIn();
    }

    /// @dev transferFrom(from, this, amount) that answers instead of reverting (no-bool tokens accepted).
    function _tryTransferFrom(address token, address from, uint256 amount) private returns (bool ok) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0x23b872dd00000000000000000000000000000000000000000000000000000000)
            mstore(add(ptr, 0x04), from)
            mstore(add(ptr, 0x24), address())
            mstore(add(ptr, 0x44), amount)
            mstore(0x00, 0)
            ok := call(gas(), token, 0, ptr, 0x64, 0x00, 0x20)
            // No return data: a token without a bool (then it must have code); else the bool must be true.
            switch returndatasize()
            case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
            default { ok := and(ok, and(gt(returndatasize(), 0x1f), eq(mload(0x00), 1))) }
        }
    }

    /// @dev transfer(to, amount) that answers instead of reverting.
    function _tryTransfer(address token, address to, uint256 amount) private returns (bool ok) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0xa9059cbb00000000000000000000000000000000000000000000000000000000)
            mstore(add(ptr, 0x04), to)
            mstore(add(ptr, 0x24), amount)
            mstore(0x00, 0)
            ok := call(gas(), token, 0, ptr, 0x44, 0x00, 0x20)
            switch returndatasize()
            case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
            default { ok := and(ok, and(gt(returndatasize(), 0x1f), eq(mload(0x00), 1))) }
        }
    }

    /// @dev Splits the output pro rata to amountIn (the last order takes the rounding remainder) and pays it. An
    ///      order whose share is below its minimum or the price bound, or that cannot be paid, is rejected alone.
    function _distribute(
        address tokenIn,
        address tokenOut,
        uint256 gross,
        uint256 totalIn,
        Settlement[] calldata orders,
        uint256 boundX128
    ) private {
        uint256 remaining = gross;
        uint256 last = orders.length - 1;
        for (uint256 i; i <= last; ++i) {
            Settlement calldata order = orders[i];
            uint256 share = i == last ? remaining : (gross * order.amountIn) / totalIn;
            remaining -= share;
            if (share < order.minAmountOut) revert OrderRejected(i, INSUFFICIENT_OUTPUT);
            if (share < minimumAtBound(order.amountIn, boundX128, order.maxDeviationBps)) {
                revert OrderRejected(i, BELOW_PRICE_BOUND);
            }
            if (!_pay(tokenOut, order.maker, share)) revert OrderRejected(i, PAYOUT_FAILED);
            emit OrderExecuted(order.id, order.maker, tokenIn, tokenOut, order.amountIn, order.fee, share);
        }
    }

    /// @dev The native coin with a gas stipend, falling back to WETH for a wallet that refuses it or needs more gas.
    function _pay(address token, address to, uint256 amount) private returns (bool) {
        if (token != NATIVE) return _tryTransfer(token, to, amount);
        bool sent;
        // No return data copied: the wallet's answer is not ours to pay memory for.
        assembly ("memory-safe") {
            sent := call(NATIVE_PAYOUT_GAS, to, amount, 0, 0, 0, 0)
        }
        if (sent) return true;
        IWETH(weth).deposit{value: amount}();
        return _tryTransfer(weth, to, amount);
    }
}
