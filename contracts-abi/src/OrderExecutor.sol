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
///      as fee; execute an order index twice (and so an order id, which binds its index); pay a maker less than its
///      minimum or less than the price bound (a time-weighted price less a deviation).
///      Executed orders are bits of a bitmap indexed by each order's execution index, which the service assigns once
///      per order (unique among its orders, consecutive for orders claimed together, so that one batch's orders share
///      a few storage words). A bit says that some order of that index executed, not which: an executor key could
///      spend an index on an order of its own, and the real order then fails ALREADY_EXECUTED (nothing is paid
///      twice). The keeper completes an order only on the OrderExecuted event carrying its id, maker and amount.
///      Gas: ids and signed digests are hashed in scratch memory, the balance and allowance are read only to name
///      why a maker's transfer failed, a batch's bits are written once per storage word, and a group's passed orders
///      reach its settlement as fixed-size records.
contract OrderExecutor is PathExecutor, PriceBound, ReentrancyGuard, Eip712Domain {
    struct Order {
        address maker;
        /// @notice The order's execution index, assigned by the service once per order and never reused: the order's
        ///         bit in the executed bitmap, and part of its on-chain id.
        uint64 index;
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

    /// @dev What every group of a batch is checked against, read once per batch.
    struct Batch {
        uint256 maxFeeBps;
        bytes32 domain;
        bool expired;
        /// @dev The executed-bitmap word last read while checking a group's orders (`word`: its number), so
        ///      consecutive indices read storage once; reset for each group (a settled group sets bits).
        uint256 word;
        uint256 bits;
        /// @dev The running group's settlement gas (type(uint256).max: all there is) and the gas owed to the groups
        ///      after it (see executeBudgetedBatch).
        uint256 budget;
        uint256 later;
    }

    /// @dev A group's settlement totals over the orders whose funds were collected.
    struct Pull {
        uint256 totalIn;
        uint256 totalFee;
        /// @dev Position of the last collected order (it takes the rounding remainder).
        uint256 last;
        /// @dev How many orders failed at collection, and each record's failure there (0: collected).
        uint256 dropped;
        uint256[] failures;
    }

    bytes32 public constant PAIR_AUTHORIZATION_TYPEHASH =
        keccak256(
            "PairAuthorization(address maker,address tokenIn,address tokenOut,bytes32 integrator,uint16 maxDeviationBps,uint16 maxFeeBps)"
        );
    uint16 public constant MAX_FEE_BPS_LIMIT = 1000;
    /// @notice Gas a maker's wallet gets to receive the native coin; past it the maker is paid in WETH.
    uint256 public constant NATIVE_PAYOUT_GAS = 30_000;
    /// @notice How many times a group is settled again after shedding an order that failed alone after the swap (so
    ///         at most MAX_GROUP_RETRIES + 1 orders are shed that way) before its remaining orders wait for the next
    ///         batch: bounds the gas makers that fail on purpose can make a group spend. An order whose funds cannot
    ///         be collected fails in place, without a retry.
    uint256 public constant MAX_GROUP_RETRIES = 4;
    /// @notice Gas kept, beyond a group's budget and the 1/64 a call leaves its caller, for the settlement call
    ///         itself (see executeBudgetedBatch).
    uint256 public constant SETTLE_CALL_GAS = 5_000;

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

    /// @dev An order that passed the checks, as settleGroup reads it: five words (id; maker | index << 160 |
    ///      maxDeviationBps << 224; amountIn; fee; minAmountOut), one record after another.
    uint256 private constant RECORD = 0xa0;
    /// @dev An address's 160 bits (the maker's in a record; any address inside assembly).
    uint256 private constant MAKER_MASK = (1 << 160) - 1;
    uint256 private constant INDEX_MASK = (1 << 64) - 1;

    // How settleGroup ended, as _settleError reads its revert data.
    uint256 private constant UNKNOWN_ERROR = 0;
    uint256 private constant REJECTED = 1;
    uint256 private constant GROUP_FAILED = 2;

    // One slot: both are read once per batch.
    address public feeCollector;
    uint16 public maxFeeBps;

    mapping(address => bool) public isExecutor;
    /// @dev Executed orders: bit (index % 256) of word (index / 256), set when the order's funds are collected.
    mapping(uint256 => uint256) private _executedWords;

    /// @notice The group's pair is the group's: tokens are not repeated per order.
    event OrderExecuted(bytes32 indexed id, address indexed maker, uint256 amountIn, uint256 fee, uint256 amountOut);
    event OrderFailed(bytes32 indexed id, address indexed maker, string reason);
    event ExecutorSet(address indexed executor, bool allowed);
    event FeeCollectorSet(address feeCollector);
    event MaxFeeBpsSet(uint16 maxFeeBps);

    error NotExecutor();
    error NotSelf();
    error BadConfig();
    /// @dev executeBudgetedBatch: not one budget per group.
    error BadBudgets();
    /// @dev executeBudgetedBatch: the transaction's gas cannot give a group its budget (its gas limit was set too
    ///      low). The whole batch reverts, so no group is failed for gas its sender withheld.
    error InsufficientGas();
    /// @dev settleGroup's way of failing one order alone after the swap (its share below its minimum or the bound,
    ///      or unpayable): the group is settled again without it. `dropped`: the orders that failed at collection
    ///      (position << 8 | failure, ascending), which fail alone without a retry.
    error OrderRejected(uint256 index, uint256 failure, uint256[] dropped);
    /// @dev settleGroup's way of failing the whole group (its swap or fee transfer failed: SWAP_FAILED; its token
    ///      arrived short, fee-on-transfer or rebasing: TRANSFER_IN_FAILED), with the orders that failed at
    ///      collection. Whatever a swap's pools, tokens or sources revert with is never passed on, so nothing outside
    ///      this contract can forge one of these errors and make the group fail the wrong orders.
    error GroupFailed(uint256 failure, uint256[] dropped);

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

    /// @notice An order's on-chain id: bound to its maker, pair, integrator, reference, amount and execution index,
    ///         so an id names one order of one maker and nobody can spend another order's id.
    function orderId(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        bytes32 ref,
        uint256 amountIn,
        uint64 index
    ) public pure returns (bytes32 id) {
        // keccak256(abi.encode(maker, tokenIn, tokenOut, integrator, ref, amountIn, index)), as _admit computes it.
        assembly ("memory-safe") {
            // Types narrower than a word may carry dirty high bits inside assembly: cleaned here.
            let ptr := mload(0x40)
            mstore(ptr, and(maker, MAKER_MASK))
            mstore(add(ptr, 0x20), and(tokenIn, MAKER_MASK))
            mstore(add(ptr, 0x40), and(tokenOut, MAKER_MASK))
            mstore(add(ptr, 0x60), integrator)
            mstore(add(ptr, 0x80), ref)
            mstore(add(ptr, 0xa0), amountIn)
            mstore(add(ptr, 0xc0), and(index, INDEX_MASK))
            id := keccak256(ptr, 0xe0)
        }
    }

    /// @notice Whether an order of this execution index executed (its funds collected in a group that settled).
    function isExecuted(uint256 index) external view returns (bool) {
        return (_executedWords[index >> 8] >> (index & 0xff)) & 1 == 1;
    }

    // ---- execution ----

    /// @notice Reverts only for a caller that is not a registered executor (or for calldata the ABI decoder would
    ///         refuse). Each group's settlement gets all the gas left (less the 1/64 a call keeps): run as a
    ///         simulation, it returns the gas the call used and the gas each group's settlement used (0: nothing
    ///         reached settlement), from which the keeper sets the budgets of executeBudgetedBatch.
    function executeBatch(
        Group[] calldata groups,
        uint256 deadline
    ) external nonReentrant returns (uint256 gasUsed, uint256[] memory groupGas) {
        return _executeBatch(groups, deadline, 0, false);
    }

    /// @notice executeBatch with a gas budget per group: group g's settlement, all its attempts together, gets
    ///         exactly gasBudgets[g]. A group that needs more fails SWAP_FAILED alone (a retry the rest of its budget
    ///         cannot cover fails RETRY_LIMIT), whatever the transaction's gas limit; a transaction whose gas cannot
    ///         give a group its budget, with the budgets of the groups after it kept, reverts InsufficientGas
    ///         whole. So the gas limit can sit close to what the batch uses without starving a group into failure.
    function executeBudgetedBatch(
        Group[] calldata groups,
        uint256 deadline,
        uint256[] calldata gasBudgets
    ) external nonReentrant returns (uint256 gasUsed, uint256[] memory groupGas) {
        if (gasBudgets.length != groups.length) revert BadBudgets();
        uint256 budgets;
        assembly ("memory-safe") {
            budgets := gasBudgets.offset
        }
        return _executeBatch(groups, deadline, budgets, true);
    }

    /// @dev `budgets`: calldata offset of one budget per group when `budgeted`.
    function _executeBatch(
        Group[] calldata groups,
        uint256 deadline,
        uint256 budgets,
        bool budgeted
    ) private returns (uint256 gasUsed, uint256[] memory groupGas) {
        uint256 start = gasleft();
        if (!isExecutor[msg.sender]) revert NotExecutor();
        Batch memory batch = Batch(
            maxFeeBps,
            _domainSeparator(),
            block.timestamp > deadline,
            0,
            0,
            type(uint256).max,
            0
        );
        uint256 count = groups.length;
        groupGas = new uint256[](count);
        // The gas owed to the groups after the one running (checked arithmetic: absurd budgets revert).
        uint256 later;
        if (budgeted) {
            for (uint256 g; g < count; ++g) later += _callGas(_budgetAt(budgets, g));
            if (gasleft() < later) revert InsufficientGas();
        }
        for (uint256 g; g < count; ++g) {
            if (budgeted) {
                batch.budget = _budgetAt(budgets, g);
                later -= _callGas(batch.budget);
                batch.later = later;
            }
            groupGas[g] = _runGroup(groups[g], batch);
        }
        gasUsed = start - gasleft();
    }

    function _budgetAt(uint256 budgets, uint256 g) private pure returns (uint256 budget) {
        assembly ("memory-safe") {
            budget := calldataload(add(budgets, shl(5, g)))
        }
    }

    /// @dev The gas left that lets a call pass on `budget` whole: the 1/64 it keeps and the call's own cost.
    function _callGas(uint256 budget) private pure returns (uint256) {
        return budget + budget / 63 + 1 + SETTLE_CALL_GAS;
    }

    // Offsets of an Order's head words in calldata (its ABI encoding; the signature's is relative to the head).
    uint256 private constant O_INDEX = 0x20;
    uint256 private constant O_REF = 0x40;
    uint256 private constant O_INTEGRATOR = 0x60;
    uint256 private constant O_DEVIATION = 0x80;
    uint256 private constant O_FEE_BPS = 0xa0;
    uint256 private constant O_AMOUNT_IN = 0xc0;
    uint256 private constant O_FEE = 0xe0;
    uint256 private constant O_MIN_OUT = 0x100;
    uint256 private constant O_SIGNATURE = 0x120;
    uint256 private constant ORDER_HEAD = 0x140;

    /// @dev Returns the gas its settlement used (batch.budget and batch.later: see _settle).
    function _runGroup(Group calldata group, Batch memory batch) private returns (uint256) {
        Order[] calldata orders = group.orders;
        uint256 count = orders.length;
        (uint256 callData, uint256 records) = _settleCall(group, count);
        address tokenIn = group.tokenIn;
        address tokenOut = group.tokenOut;
        uint256 passed;
        batch.word = type(uint256).max;
        for (uint256 i; i < count; ) {
            uint256 order;
            assembly ("memory-safe") {
                let relative := calldataload(add(orders.offset, shl(5, i)))
                order := add(orders.offset, relative)
                // The head must lie inside the calldata, as the ABI decoder requires.
                if or(gt(relative, calldatasize()), gt(add(order, ORDER_HEAD), calldatasize())) {
                    revert(0, 0)
                }
            }
            passed = _admit(order, tokenIn, tokenOut, batch, records, passed);
            unchecked {
                ++i;
            }
        }
        if (passed == 0) return 0;
        uint256 boundX128 = _boundOf(tokenIn, tokenOut);
        if (boundX128 == 0) {
            _failAll(records, passed, NO_PRICE_BOUND);
            return 0;
        }
        assembly ("memory-safe") {
            mstore(add(callData, 0x44), boundX128)
        }
        return _settle(callData, records, passed, batch);
    }

    /// @dev settleGroup's calldata for one group, built in memory once: its selector; tokenIn, tokenOut, boundX128
    ///      (written once known), the offsets of paths and records; the paths' encoding; the records' length (per
    ///      attempt) and room for `count` records, which _admit writes in place (`records` points at the first).
    function _settleCall(Group calldata group, uint256 count) private pure returns (uint256 callData, uint256 records) {
        bytes memory paths = abi.encode(group.paths);
        bytes memory buffer = new bytes(4 + 0xa0 + paths.length + count * RECORD);
        bytes4 selector = this.settleGroup.selector;
        address tokenIn = group.tokenIn;
        address tokenOut = group.tokenOut;
        assembly ("memory-safe") {
            // abi.encode(paths) is the offset 0x20, then the array's encoding, copied as is.
            let pathsLength := sub(mload(paths), 0x20)
            callData := add(buffer, 0x20)
            mstore(callData, selector)
            let head := add(callData, 4)
            mstore(head, and(tokenIn, MAKER_MASK))
            mstore(add(head, 0x20), and(tokenOut, MAKER_MASK))
            mstore(add(head, 0x60), 0xa0)
            mstore(add(head, 0x80), add(0xa0, pathsLength))
            let from := add(paths, 0x40)
            let to := add(head, 0xa0)
            for {
                let w := 0
            } lt(w, pathsLength) {
                w := add(w, 0x20)
            } {
                mstore(add(to, w), mload(add(from, w)))
            }
            records := add(add(to, pathsLength), 0x20)
        }
    }

    /// @dev Checks one order (its head at calldata offset `order`): its failure is emitted, or it becomes record
    ///      `passed`. Returns the new count. Every check that can be made without moving funds; the maker's balance
    ///      and allowance are not read here: its transfer is attempted at collection, and only a failed one reads
    ///      them to name the failure. Each head word is read once and checked as the ABI decoder would (a malformed
    ///      batch reverts).
    function _admit(
        uint256 order,
        address tokenIn,
        address tokenOut,
        Batch memory batch,
        uint256 records,
        uint256 passed
    ) private returns (uint256) {
        uint256 maker;
        uint256 index;
        uint256 amountIn;
        uint256 fee;
        bytes32 id;
        assembly ("memory-safe") {
            maker := calldataload(order)
            index := calldataload(add(order, O_INDEX))
            amountIn := calldataload(add(order, O_AMOUNT_IN))
            fee := calldataload(add(order, O_FEE))
            if or(
                or(gt(maker, MAKER_MASK), gt(index, INDEX_MASK)),
                or(gt(calldataload(add(order, O_DEVIATION)), 0xffff), gt(calldataload(add(order, O_FEE_BPS)), 0xffff))
            ) {
                revert(0, 0)
            }
            // orderId(maker, tokenIn, tokenOut, integrator, ref, amountIn, index), in free memory unallocated.
            let ptr := mload(0x40)
            mstore(ptr, maker)
            mstore(add(ptr, 0x20), and(tokenIn, MAKER_MASK))
            mstore(add(ptr, 0x40), and(tokenOut, MAKER_MASK))
            mstore(add(ptr, 0x60), calldataload(add(order, O_INTEGRATOR)))
            mstore(add(ptr, 0x80), calldataload(add(order, O_REF)))
            mstore(add(ptr, 0xa0), amountIn)
            mstore(add(ptr, 0xc0), index)
            id := keccak256(ptr, 0xe0)
        }
        uint256 failure = _check(order, tokenIn, tokenOut, batch, index, amountIn, fee);
        if (failure != 0) {
            emit OrderFailed(id, address(uint160(maker)), _reason(failure));
            return passed;
        }
        assembly ("memory-safe") {
            let p := add(records, mul(passed, RECORD))
            mstore(p, id)
            mstore(add(p, 0x20), or(maker, or(shl(160, index), shl(224, calldataload(add(order, O_DEVIATION))))))
            mstore(add(p, 0x40), amountIn)
            mstore(add(p, 0x60), fee)
            mstore(add(p, 0x80), calldataload(add(order, O_MIN_OUT)))
        }
        unchecked {
            return passed + 1;
        }
    }

    /// @dev 0 or the failure code of an order (see _admit).
    function _check(
        uint256 order,
        address tokenIn,
        address tokenOut,
        Batch memory batch,
        uint256 index,
        uint256 amountIn,
        uint256 fee
    ) private view returns (uint256) {
        if (batch.expired) return DEADLINE;
        if (index >> 8 != batch.word) {
            batch.word = index >> 8;
            batch.bits = _executedWords[index >> 8];
        }
        if ((batch.bits >> (index & 0xff)) & 1 == 1) return ALREADY_EXECUTED;
        if (amountIn == 0) return ZERO_AMOUNT;
        unchecked {
            // The lower of the current cap and the one the maker signed (checked below with the signature), at most
            // MAX_FEE_BPS_LIMIT: floor(amountIn * feeBps / 10_000) computed without overflow (a panic here would
            // revert the whole batch).
            uint256 feeBps;
            assembly ("memory-safe") {
                feeBps := calldataload(add(order, O_FEE_BPS))
            }
            if (batch.maxFeeBps < feeBps) feeBps = batch.maxFeeBps;
            if (fee > (amountIn / 10_000) * feeBps + ((amountIn % 10_000) * feeBps) / 10_000) return FEE_TOO_HIGH;
        }
        bytes32 digest = _hashTypedData(batch.domain, _pairAuthorizationHash(order, tokenIn, tokenOut));
        if (!MakerSignatures.isValidNow(_makerOf(order), digest, _signatureOf(order))) return BAD_SIGNATURE;
        // fee <= amountIn / 10 here, so the sum overflows only for amounts no balance can hold.
        if (amountIn > type(uint256).max - fee) return INSUFFICIENT_BALANCE;
        return 0;
    }

    function _makerOf(uint256 order) private pure returns (address maker) {
        assembly ("memory-safe") {
            maker := calldataload(order)
        }
    }

    /// @dev The order's signature as a calldata slice, its tail checked to lie inside the calldata.
    function _signatureOf(uint256 order) private pure returns (bytes calldata signature) {
        assembly ("memory-safe") {
            let relative := calldataload(add(order, O_SIGNATURE))
            let at := add(order, relative)
            let length := calldataload(at)
            if or(or(gt(relative, calldatasize()), gt(length, calldatasize())), gt(add(add(at, 0x20), length), calldatasize())) {
                revert(0, 0)
            }
            signature.offset := add(at, 0x20)
            signature.length := length
        }
    }

    /// @dev The EIP-712 struct hash of the pair authorization the order claims its maker signed, in free memory
    ///      unallocated (the head words were checked by _admit).
    function _pairAuthorizationHash(
        uint256 order,
        address tokenIn,
        address tokenOut
    ) private pure returns (bytes32 hash) {
        bytes32 typeHash = PAIR_AUTHORIZATION_TYPEHASH;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, typeHash)
            mstore(add(ptr, 0x20), calldataload(order))
            mstore(add(ptr, 0x40), and(tokenIn, MAKER_MASK))
            mstore(add(ptr, 0x60), and(tokenOut, MAKER_MASK))
            mstore(add(ptr, 0x80), calldataload(add(order, O_INTEGRATOR)))
            mstore(add(ptr, 0xa0), calldataload(add(order, O_DEVIATION)))
            mstore(add(ptr, 0xc0), calldataload(add(order, O_FEE_BPS)))
            hash := keccak256(ptr, 0xe0)
        }
    }

    /// @dev Settles the group's `passed` records in a self-call (built by _settleCall), so a failure undoes this
    ///      group's transfers and nothing else; an order that fails after the swap is shed and the rest settled again.
    ///      Returns the gas the calls used. With a budget (batch.budget not type(uint256).max), the calls get exactly
    ///      what is left of it: the first only if the transaction can also keep batch.later for the groups after
    ///      (else the whole batch reverts), a retry only if that rest covers what the first attempt used (else
    ///      RETRY_LIMIT).
    function _settle(
        uint256 callData,
        uint256 records,
        uint256 passed,
        Batch memory batch
    ) private returns (uint256 used) {
        uint256 budget = batch.budget;
        uint256 firstUsed;
        for (uint256 retries; ; ++retries) {
            uint256 callGas = budget;
            if (budget != type(uint256).max) {
                unchecked {
                    // A call's own cost may take `used` a little past the budget.
                    callGas = used < budget ? budget - used : 0;
                }
                bool covered = gasleft() >= _callGas(callGas) + batch.later;
                if (retries == 0 && !covered) revert InsufficientGas();
                if (retries > 0 && (!covered || callGas < firstUsed)) {
                    _failAll(records, passed, RETRY_LIMIT);
                    return used;
                }
            }
            bool ok;
            bytes memory answer;
            assembly ("memory-safe") {
                mstore(sub(records, 0x20), mul(passed, RECORD))
                let before := gas()
                // type(uint256).max: the call gets what the 63/64 rule passes on.
                if iszero(add(callGas, 1)) {
                    callGas := gas()
                }
                ok := call(callGas, address(), 0, callData, sub(add(records, mul(passed, RECORD)), callData), 0, 0)
                used := add(used, sub(before, gas()))
                answer := mload(0x40)
                mstore(answer, returndatasize())
                returndatacopy(add(answer, 0x20), 0, returndatasize())
                mstore(0x40, add(add(answer, 0x20), and(add(returndatasize(), 0x1f), not(0x1f))))
            }
            if (retries == 0) firstUsed = used;
            if (ok) {
                // settleGroup's own return value, abi.encode(dropped): its offset word, then the list.
                uint256[] memory list;
                uint256 offset;
                assembly ("memory-safe") {
                    offset := mload(add(answer, 0x20))
                    list := add(answer, 0x40)
                }
                if (answer.length >= 0x40 && offset == 0x20 && _validList(list, passed, passed, answer.length - 0x20)) {
                    _failDropped(records, list);
                }
                return used;
            }
            (uint256 kind, uint256 index, uint256 failure, uint256[] memory dropped) = _settleError(answer, passed);
            if (kind == UNKNOWN_ERROR) {
                _failAll(records, passed, SWAP_FAILED);
                return used;
            }
            // The orders that failed alone (at collection, or the one rejected after the swap) are out.
            _failDropped(records, dropped);
            if (kind == REJECTED) _failRecord(records, index, failure);
            passed = _compact(records, passed);
            if (passed == 0) return used;
            if (kind == GROUP_FAILED) {
                _failAll(records, passed, failure);
                return used;
            }
            if (retries == MAX_GROUP_RETRIES) {
                _failAll(records, passed, RETRY_LIMIT);
                return used;
            }
        }
    }

    // ---- the records of a group's passed orders (outer frame, memory at `records`) ----

    /// @dev The id and maker of record k; a failed record's id is set to 0 (keccak256 never gives 0 in practice).
    function _recordOf(uint256 records, uint256 k) private pure returns (bytes32 id, address maker) {
        assembly ("memory-safe") {
            let p := add(records, mul(k, RECORD))
            id := mload(p)
            maker := and(mload(add(p, 0x20)), MAKER_MASK)
        }
    }

    /// @dev Emits the failure of record k and marks it out (id 0).
    function _failRecord(uint256 records, uint256 k, uint256 failure) private {
        (bytes32 id, address maker) = _recordOf(records, k);
        emit OrderFailed(id, maker, _reason(failure));
        assembly ("memory-safe") {
            mstore(add(records, mul(k, RECORD)), 0)
        }
    }

    function _failDropped(uint256 records, uint256[] memory dropped) private {
        for (uint256 i; i < dropped.length; ++i) _failRecord(records, dropped[i] >> 8, dropped[i] & 0xff);
    }

    function _failAll(uint256 records, uint256 count, uint256 failure) private {
        string memory reason = _reason(failure);
        for (uint256 k; k < count; ++k) {
            (bytes32 id, address maker) = _recordOf(records, k);
            emit OrderFailed(id, maker, reason);
        }
    }

    /// @dev Moves the records still in (id not 0) to the front, in order; returns how many there are.
    function _compact(uint256 records, uint256 count) private pure returns (uint256 kept) {
        assembly ("memory-safe") {
            for {
                let k := 0
            } lt(k, count) {
                k := add(k, 1)
            } {
                let from := add(records, mul(k, RECORD))
                if mload(from) {
                    if iszero(eq(k, kept)) {
                        let to := add(records, mul(kept, RECORD))
                        for {
                            let w := 0
                        } lt(w, RECORD) {
                            w := add(w, 0x20)
                        } {
                            mstore(add(to, w), mload(add(from, w)))
                        }
                    }
                    kept := add(kept, 1)
                }
            }
        }
    }

    /// @dev Whether `list` (its length word, then `bytes_` bytes of items, as settleGroup encodes it) is a list of
    ///      failures of records below `count`: position << 8 | failure, positions ascending and not `excluded`,
    ///      failures known codes.
    function _validList(
        uint256[] memory list,
        uint256 count,
        uint256 excluded,
        uint256 bytes_
    ) private pure returns (bool) {
        uint256 n = list.length;
        if (n > count || bytes_ != 0x20 + n * 0x20) return false;
        uint256 next;
        for (uint256 i; i < n; ++i) {
            uint256 position = list[i] >> 8;
            uint256 code = list[i] & 0xff;
            if (position < next || position >= count || position == excluded || code == 0 || code > RETRY_LIMIT) {
                return false;
            }
            next = position + 1;
        }
        return true;
    }

    /// @dev What settleGroup's revert data says: OrderRejected(index, failure, dropped) or GroupFailed(failure,
    ///      dropped), checked to the word (see _validList; the rejected index in range), or UNKNOWN_ERROR (a panic,
    ///      running out of gas, anything else). `dropped` points into `err`.
    function _settleError(
        bytes memory err,
        uint256 count
    ) private pure returns (uint256 kind, uint256 index, uint256 failure, uint256[] memory dropped) {
        if (err.length < 4) return (UNKNOWN_ERROR, 0, 0, dropped);
        bytes4 selector = bytes4(err);
        // Words after the selector before the list's length: index, failure, offset / failure, offset.
        uint256 head;
        if (selector == OrderRejected.selector) head = 3;
        else if (selector == GroupFailed.selector) head = 2;
        else return (UNKNOWN_ERROR, 0, 0, dropped);
        if (err.length < 4 + (head + 1) * 0x20) return (UNKNOWN_ERROR, 0, 0, dropped);
        uint256 offset;
        assembly ("memory-safe") {
            let words := add(err, 0x24)
            switch head
            case 3 {
                index := mload(words)
                failure := mload(add(words, 0x20))
            }
            default {
                index := count
                failure := mload(words)
            }
            offset := mload(add(words, mul(sub(head, 1), 0x20)))
            dropped := add(words, mul(head, 0x20))
        }
        // The list's offset, from the first argument: right after the head words.
        if (offset != head * 0x20 || failure == 0 || failure > RETRY_LIMIT || index > count) {
            return (UNKNOWN_ERROR, 0, 0, dropped);
        }
        if (head == 3 && index == count) return (UNKNOWN_ERROR, 0, 0, dropped);
        if (!_validList(dropped, count, index, err.length - 4 - head * 0x20)) return (UNKNOWN_ERROR, 0, 0, dropped);
        kind = head == 3 ? REJECTED : GROUP_FAILED;
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

    // ---- settlement (self-call) ----

    /// @notice Settles the orders of one group that passed the checks (`records`, see RECORD); callable only by
    ///         this contract. Returns the orders that failed at collection (position << 8 | failure).
    function settleGroup(
        address tokenIn,
        address tokenOut,
        uint256 boundX128,
        Path[] calldata paths,
        bytes calldata records
    ) external returns (uint256[] memory) {
        if (msg.sender != address(this)) revert NotSelf();
        Pull memory pull = _collect(tokenIn, records);
        // Every order failed at collection: nothing moved, nothing to swap.
        if (pull.dropped == pull.failures.length) return _droppedList(pull);
        uint256 gross = _swap(tokenIn, tokenOut, paths, pull);
        _distribute(tokenOut, gross, pull, records, boundX128);
        return _droppedList(pull);
    }

    /// @dev Pays the group's fees and runs its swap (unwrapping a native output); any failure fails the group.
    function _swap(address tokenIn, address tokenOut, Path[] calldata paths, Pull memory pull) private returns (uint256) {
        if (pull.totalFee > 0 && !_tryTransfer(tokenIn, feeCollector, pull.totalFee)) {
            revert GroupFailed(SWAP_FAILED, _droppedList(pull));
        }
        bool nativeOut = tokenOut == NATIVE;
        uint256 gross;
        try this.swapPaths(tokenIn, nativeOut ? weth : tokenOut, pull.totalIn, paths) returns (uint256 out) {
            gross = out;
        } catch {
            revert GroupFailed(SWAP_FAILED, _droppedList(pull));
        }
        if (nativeOut && !_unwrap(gross)) revert GroupFailed(SWAP_FAILED, _droppedList(pull));
        return gross;
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

    /// @dev Pulls amountIn + fee from each maker and marks its order executed. An order already executed (by an
    ///      earlier batch, an earlier group or an earlier copy in this group) or whose transfer fails fails alone,
    ///      in place: nothing of it moved. The bits are written once per storage word. The group's token must arrive
    ///      in full: fee-on-transfer tokens are refused.
    function _collect(address tokenIn, bytes calldata records) private returns (Pull memory pull) {
        uint256 count = records.length / RECORD;
        pull.failures = new uint256[](count);
        uint256 before = _readUint(tokenIn, IERC20.balanceOf.selector, address(this), address(0), 0x24);
        uint256 word = type(uint256).max;
        uint256 bits;
        for (uint256 k; k < count; ++k) {
            uint256 packed;
            uint256 amountIn;
            uint256 fee;
            assembly ("memory-safe") {
                let p := add(records.offset, mul(k, RECORD))
                packed := calldataload(add(p, 0x20))
                amountIn := calldataload(add(p, 0x40))
                fee := calldataload(add(p, 0x60))
            }
            uint256 index = (packed >> 160) & INDEX_MASK;
            if (index >> 8 != word) {
                if (word != type(uint256).max) _executedWords[word] = bits;
                word = index >> 8;
                bits = _executedWords[word];
            }
            uint256 bit = 1 << (index & 0xff);
            uint256 failure;
            if (bits & bit != 0) failure = ALREADY_EXECUTED;
            else failure = _pull(tokenIn, address(uint160(packed & MAKER_MASK)), amountIn + fee);
            if (failure != 0) {
                pull.failures[k] = failure;
                ++pull.dropped;
                continue;
            }
            bits |= bit;
            pull.totalIn += amountIn;
            pull.totalFee += fee;
            pull.last = k;
        }
        if (word != type(uint256).max) _executedWords[word] = bits;
        uint256 received = _readUint(tokenIn, IERC20.balanceOf.selector, address(this), address(0), 0x24) - before;
        if (received != pull.totalIn + pull.totalFee) revert GroupFailed(TRANSFER_IN_FAILED, _droppedList(pull));
    }

    /// @dev Pulls `total` from the maker: 0, or why its transfer failed, as precisely as the token tells (its
    ///      balance, else its allowance, short of the total, else the token refused: a frozen maker, a paused token).
    function _pull(address token, address maker, uint256 total) private returns (uint256) {
        if (_tryTransferFrom(token, maker, total)) return 0;
        if (_readUint(token, IERC20.balanceOf.selector, maker, address(0), 0x24) < total) return INSUFFICIENT_BALANCE;
        if (_readUint(token, IERC20.allowance.selector, maker, address(this), 0x44) < total) {
            return INSUFFICIENT_ALLOWANCE;
        }
        return TRANSFER_IN_FAILED;
    }

    /// @dev The orders that failed at collection, as (position << 8 | failure), ascending.
    function _droppedList(Pull memory pull) private pure returns (uint256[] memory list) {
        list = new uint256[](pull.dropped);
        if (pull.dropped == 0) return list;
        uint256[] memory failures = pull.failures;
        uint256 n;
        for (uint256 k; k < failures.length; ++k) {
            if (failures[k] != 0) list[n++] = (k << 8) | failures[k];
        }
    }

    /// @dev Splits the output pro rata to amountIn over the collected orders (the last one takes the rounding
    ///      remainder) and pays it. An order whose share is below its minimum or the price bound, or that cannot be
    ///      paid, is rejected alone.
    function _distribute(
        address tokenOut,
        uint256 gross,
        Pull memory pull,
        bytes calldata records,
        uint256 boundX128
    ) private {
        uint256 remaining = gross;
        uint256 last = pull.last;
        uint256 totalIn = pull.totalIn;
        uint256[] memory failures = pull.failures;
        for (uint256 k; k <= last; ++k) {
            uint256 p;
            uint256 skip;
            assembly ("memory-safe") {
                p := add(records.offset, mul(k, RECORD))
                skip := mload(add(add(failures, 0x20), shl(5, k)))
            }
            if (skip != 0) continue;
            uint256 share = k == last ? remaining : (gross * _calldataWord(p + 0x40)) / totalIn;
            remaining -= share;
            uint256 failure = _payShare(tokenOut, p, share, boundX128);
            if (failure != 0) revert OrderRejected(k, failure, _droppedList(pull));
        }
    }

    function _calldataWord(uint256 at) private pure returns (uint256 value) {
        assembly ("memory-safe") {
            value := calldataload(at)
        }
    }

    /// @dev Pays the record at calldata offset `p` its share and emits its execution, or returns why it cannot be.
    function _payShare(address tokenOut, uint256 p, uint256 share, uint256 boundX128) private returns (uint256) {
        uint256 packed = _calldataWord(p + 0x20);
        address maker = address(uint160(packed & MAKER_MASK));
        uint256 amountIn = _calldataWord(p + 0x40);
        if (share < _calldataWord(p + 0x80)) return INSUFFICIENT_OUTPUT;
        if (share < minimumAtBound(amountIn, boundX128, uint16(packed >> 224))) return BELOW_PRICE_BOUND;
        if (!_pay(tokenOut, maker, share)) return PAYOUT_FAILED;
        emit OrderExecuted(bytes32(_calldataWord(p)), maker, amountIn, _calldataWord(p + 0x60), share);
        return 0;
    }

    /// @dev `token.balanceOf(a)` (size 0x24) or `token.allowance(a, b)` (size 0x44); reads as 0 when the token
    ///      misbehaves (no code, revert, short return), so a bad token fails its orders instead of reverting the
    ///      batch. Encoded in free memory without allocating.
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
            mstore(add(ptr, 0x04), and(a, MAKER_MASK))
            mstore(add(ptr, 0x24), and(b, MAKER_MASK))
            let ok := staticcall(gas(), token, ptr, size, 0x00, 0x20)
            if and(ok, gt(returndatasize(), 0x1f)) { value := mload(0x00) }
        }
    }

    /// @dev transferFrom(from, this, amount) that answers instead of reverting (no-bool tokens accepted).
    function _tryTransferFrom(address token, address from, uint256 amount) private returns (bool ok) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0x23b872dd00000000000000000000000000000000000000000000000000000000)
            mstore(add(ptr, 0x04), and(from, MAKER_MASK))
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
            mstore(add(ptr, 0x04), and(to, MAKER_MASK))
            mstore(add(ptr, 0x24), amount)
            mstore(0x00, 0)
            ok := call(gas(), token, 0, ptr, 0x44, 0x00, 0x20)
            switch returndatasize()
            case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
            default { ok := and(ok, and(gt(returndatasize(), 0x1f), eq(mload(0x00), 1))) }
        }
    }

    /// @dev WETH.withdraw(amount) that answers instead of passing on what it reverts with.
    function _unwrap(uint256 amount) private returns (bool ok) {
        address weth_ = weth;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0x2e1a7d4d00000000000000000000000000000000000000000000000000000000)
            mstore(add(ptr, 0x04), amount)
            ok := call(gas(), weth_, 0, ptr, 0x24, 0, 0)
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
