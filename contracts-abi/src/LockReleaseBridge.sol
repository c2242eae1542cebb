// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IWETH} from "./interfaces/IUniswap.sol";

/// @notice The slower, cheaper bridge. On the origin a lock holds the depositor's tokens until the releaser accepts
///         it (the tokens become the bridge's liquidity) or it is refunded: by the releaser at any time, by anyone
///         once its deadline has passed unaccepted. On the destination the releaser pays accepted locks out of the
///         bridge's liquidity, once per (origin chain, origin bridge, nonce).
/// @dev What each key can do, bounded here rather than trusted:
///      - the releaser (a hot key, rotatable by the owner) accepts and refunds locks, and releases at once up to
///        each token's `releaseLimit` per hour (a bucket refilled at that rate); a release past it waits
///        `releaseDelay`, during which the owner can cancel it, and is never paid once its releaser was rotated away.
///        Releases are paid from the bridge's free liquidity only, never from unaccepted locks (their refunds stay
///        payable). A leaked releaser key moves at most the limit per hour per token before the owner rotates it.
///      - the owner (a cold key or a timelock) sets the releaser, the limits, the fee taker, and cancels delayed
///        releases; it cannot release or take locked funds itself.
///      - a depositor can take its lock back after the deadline when the releaser never accepted it, so a refused
///        lock never stays locked.
contract LockReleaseBridge is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    enum LockState {
        None,
        Locked,
        Accepted,
        Refunded
    }

    struct LockRecord {
        address depositor;
        uint32 deadline;
        LockState state;
        address token;
        uint256 amount;
    }

    struct PendingRelease {
        address token;
        uint64 executableAt;
        address recipient;
        uint256 amount;
        /// @dev The releaser that queued it, and the rotation it was queued in: a release queued before any rotation
        ///      since (even one back to the same key) is never paid.
        address queuedBy;
        uint64 epoch;
    }

    /// @dev A token bucket: `available` at `updatedAt`, refilled at releaseLimit per RELEASE_WINDOW up to the limit.
    struct ReleaseBucket {
        uint64 updatedAt;
        uint192 spent;
    }

    uint256 public constant RELEASE_WINDOW = 1 hours;
    /// @notice Gas a native payout may use in its recipient (an account with code is paid in the wrapped native).
    uint256 public constant NATIVE_PAYOUT_GAS = 30_000;

    address public immutable wrappedNative;
    /// @notice Seconds a lock waits for acceptance; after that its depositor may take it back.
    uint32 public immutable lockTimeout;
    /// @notice Seconds a release beyond the hourly limit waits before anyone may execute it.
    uint32 public immutable releaseDelay;

    /// @notice The account that accepts, refunds and releases; set (and rotated) by the owner.
    address public releaser;
    /// @notice How many times the releaser was set: a release queued under an earlier one is never paid.
    uint64 public releaserEpoch;
    /// @notice The contract whose locks paid the service's fees (our CrossChainEntry); its locks carry feesPaid.
    address public feeTaker;
    /// @notice Locks so far on this bridge; the next lock's nonce.
    uint256 public lockCount;
    /// @notice Per token, what the releaser may release at once per RELEASE_WINDOW (0: every release waits).
    mapping(address token => uint256) public releaseLimit;

    mapping(uint256 nonce => LockRecord) private _locks;
    mapping(bytes32 key => bool) private _released;
    mapping(bytes32 key => PendingRelease) private _pending;
    mapping(address token => ReleaseBucket) private _buckets;
    /// @notice Per token, what unaccepted locks hold: never released, so every refund can be paid.
    mapping(address token => uint256) public heldForRefunds;

    event Locked(
        uint256 indexed nonce,
        address indexed depositor,
        uint256 indexed destinationChainId,
        address inputToken,
        uint256 inputAmount,
        address outputToken,
        uint256 outputAmount,
        address recipient,
        uint32 deadline,
        bool feesPaid
    );
    event Accepted(uint256 indexed nonce);
    event Refunded(uint256 indexed nonce, address indexed depositor, address token, uint256 amount);
    event Released(
        uint256 indexed originChainId,
        address indexed originBridge,
        uint256 indexed nonce,
        address outputToken,
        uint256 amount,
        address recipient
    );
    event ReleaseQueued(
        uint256 indexed originChainId,
        address indexed originBridge,
        uint256 indexed nonce,
        address outputToken,
        uint256 amount,
        address recipient,
        uint64 executableAt
    );
    event ReleaseCancelled(uint256 indexed originChainId, address indexed originBridge, uint256 indexed nonce);
    event ReleaserSet(address indexed releaser);
    event FeeTakerSet(address indexed feeTaker);
    event ReleaseLimitSet(address indexed token, uint256 limit);

    error NotReleaser();
    error AlreadyReleased(uint256 originChainId, address originBridge, uint256 nonce);
    error NotLocked(uint256 nonce);
    error LockExpired(uint256 nonce);
    error NotRefundable(uint256 nonce);
    error NotPending();
    error ReleaserRotated();
    error InsufficientLiquidity(address token, uint256 free, uint256 amount);
    error TooEarly(uint64 executableAt);
    error ZeroAmount();
    error ZeroAddress();
    error SameChain();
    error NotWrappedNative();

    constructor(
        address owner_,
        address releaser_,
        address wrappedNative_,
        uint32 lockTimeout_,
        uint32 releaseDelay_
    ) Ownable(owner_) {
        if (releaser_ == address(0) || wrappedNative_ == address(0)) revert ZeroAddress();
        // A zero delay would make the hourly limit no bound at all.
        if (lockTimeout_ == 0 || releaseDelay_ == 0) revert ZeroAmount();
        releaser = releaser_;
        wrappedNative = wrappedNative_;
        lockTimeout = lockTimeout_;
        releaseDelay = releaseDelay_;
        emit ReleaserSet(releaser_);
    }

    modifier onlyReleaser() {
        if (msg.sender != releaser) revert NotReleaser();
        _;
    }

    /// @dev Only the wrapped native sends coins here (when a release unwraps).
    receive() external payable {
        if (msg.sender != wrappedNative) revert NotWrappedNative();
    }

    // ---- owner ----

    function setReleaser(address releaser_) external onlyOwner {
        if (releaser_ == address(0)) revert ZeroAddress();
        releaser = releaser_;
        ++releaserEpoch;
        emit ReleaserSet(releaser_);
    }

    function setFeeTaker(address feeTaker_) external onlyOwner {
        feeTaker = feeTaker_;
        emit FeeTakerSet(feeTaker_);
    }

    function setReleaseLimit(address token, uint256 limit) external onlyOwner {
        if (limit > type(uint192).max) revert ZeroAmount();
        releaseLimit[token] = limit;
        emit ReleaseLimitSet(token, limit);
    }

    /// @notice Stops a delayed release (a leaked releaser's, or a mistaken one); the message may be released again.
    function cancelRelease(uint256 originChainId, address originBridge, uint256 nonce) external onlyOwner {
        bytes32 key = releaseKey(originChainId, originBridge, nonce);
        if (_pending[key].executableAt == 0) revert NotPending();
        delete _pending[key];
        _released[key] = false;
        emit ReleaseCancelled(originChainId, originBridge, nonce);
    }

    // ---- origin ----

    /// @notice Pulls `inputAmount` of `inputToken` from the caller and emits the message for the destination, with
    ///         what actually arrived (a fee-on-transfer token is credited by the balance change). `depositor` is who
    ///         the lock is for and whom a refund pays (CrossChainEntry passes its caller).
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
        uint256 before = IERC20(inputToken).balanceOf(address(this));
        IERC20(inputToken).safeTransferFrom(msg.sender, address(this), inputAmount);
        uint256 credited = IERC20(inputToken).balanceOf(address(this)) - before;
        if (credited == 0) revert ZeroAmount();
        uint256 nonce = lockCount++;
        uint32 deadline = uint32(block.timestamp) + lockTimeout;
        _locks[nonce] = LockRecord(depositor, deadline, LockState.Locked, inputToken, credited);
        heldForRefunds[inputToken] += credited;
        emit Locked(
            nonce,
            depositor,
            destinationChainId,
            inputToken,
            credited,
            outputToken,
            outputAmount,
            recipient,
            deadline,
            msg.sender == feeTaker && feeTaker != address(0)
        );
    }

    /// @notice The releaser takes the lock for release on its destination: it can no longer be refunded. Accepting
    ///         an accepted lock does nothing, so a re-sent acceptance never reverts.
    function accept(uint256 nonce) external onlyReleaser {
        LockRecord storage record = _locks[nonce];
        if (record.state == LockState.Accepted) return;
        if (record.state != LockState.Locked) revert NotLocked(nonce);
        if (block.timestamp > record.deadline) revert LockExpired(nonce);
        record.state = LockState.Accepted;
        // Accepted, the lock's tokens become the bridge's liquidity.
        heldForRefunds[record.token] -= record.amount;
        emit Accepted(nonce);
    }

    /// @notice Pays an unaccepted lock back to its depositor (in the token it locked): the releaser may at any time,
    ///         anyone once the deadline has passed.
    function refund(uint256 nonce) external nonReentrant {
        LockRecord storage record = _locks[nonce];
        if (record.state != LockState.Locked) revert NotLocked(nonce);
        if (msg.sender != releaser && block.timestamp <= record.deadline) revert NotRefundable(nonce);
        record.state = LockState.Refunded;
        heldForRefunds[record.token] -= record.amount;
        IERC20(record.token).safeTransfer(record.depositor, record.amount);
        emit Refunded(nonce, record.depositor, record.token, record.amount);
    }

    function locks(uint256 nonce) external view returns (LockRecord memory) {
        return _locks[nonce];
    }

    // ---- destination ----

    /// @notice Pays an accepted lock of `originBridge` on `originChainId` out of this bridge's liquidity, at once
    ///         within the token's hourly limit, else after `releaseDelay`. The wrapped native goes out as the native
    ///         coin to an account without code (or with an EIP-7702 delegation), as WETH to a contract.
    function release(
        uint256 originChainId,
        address originBridge,
        uint256 nonce,
        address outputToken,
        uint256 amount,
        address recipient
    ) external nonReentrant onlyReleaser {
        if (amount == 0) revert ZeroAmount();
        if (outputToken == address(0) || recipient == address(0) || originBridge == address(0)) revert ZeroAddress();
        bytes32 key = releaseKey(originChainId, originBridge, nonce);
        if (_released[key]) revert AlreadyReleased(originChainId, originBridge, nonce);
        _released[key] = true;
        if (_withinLimit(outputToken, amount)) {
            _pay(outputToken, amount, recipient);
            emit Released(originChainId, originBridge, nonce, outputToken, amount, recipient);
            return;
        }
        uint64 executableAt = uint64(block.timestamp) + releaseDelay;
        _pending[key] = PendingRelease(
            outputToken,
            executableAt,
            recipient,
            amount,
            msg.sender,
            releaserEpoch
        );
        emit ReleaseQueued(originChainId, originBridge, nonce, outputToken, amount, recipient, executableAt);
    }

    /// @notice Pays a delayed release once its delay has passed; anyone may call it.
    function executeRelease(uint256 originChainId, address originBridge, uint256 nonce) external nonReentrant {
        bytes32 key = releaseKey(originChainId, originBridge, nonce);
        PendingRelease memory pending = _pending[key];
        if (pending.executableAt == 0) revert NotPending();
        if (block.timestamp < pending.executableAt) revert TooEarly(pending.executableAt);
        if (pending.epoch != releaserEpoch) revert ReleaserRotated();
        delete _pending[key];
        _pay(pending.token, pending.amount, pending.recipient);
        emit Released(originChainId, originBridge, nonce, pending.token, pending.amount, pending.recipient);
    }

    function released(uint256 originChainId, address originBridge, uint256 nonce) external view returns (bool) {
        return _released[releaseKey(originChainId, originBridge, nonce)];
    }

    function pendingRelease(
        uint256 originChainId,
        address originBridge,
        uint256 nonce
    ) external view returns (PendingRelease memory) {
        return _pending[releaseKey(originChainId, originBridge, nonce)];
    }

    /// @notice What the releaser may release of `token` at once now: the hourly limit, less what was released at
    ///         once in the last hour (refilled at the limit per hour).
    function releasableNow(address token) public view returns (uint256) {
        uint256 limit = releaseLimit[token];
        ReleaseBucket memory bucket = _buckets[token];
        uint256 elapsed = block.timestamp - bucket.updatedAt;
        // limit < 2^192 and elapsed < 2^12 here: the product cannot overflow.
        uint256 refilled = elapsed >= RELEASE_WINDOW ? type(uint256).max : (elapsed * limit) / RELEASE_WINDOW;
        uint256 spent = refilled >= bucket.spent ? 0 : bucket.spent - refilled;
        return spent >= limit ? 0 : limit - spent;
    }

    function releaseKey(uint256 originChainId, address originBridge, uint256 nonce) public pure returns (bytes32) {
        return keccak256(abi.encode(originChainId, originBridge, nonce));
    }

    /// @dev Counts `amount` against the token's hourly limit; false (nothing counted) when it does not fit.
    function _withinLimit(address token, uint256 amount) private returns (bool) {
        uint256 available = releasableNow(token);
        if (amount > available) return false;
        _buckets[token] = ReleaseBucket(uint64(block.timestamp), uint192(releaseLimit[token] - available + amount));
        return true;
    }

    /// @dev Pays out of the bridge's free liquidity only: what unaccepted locks hold stays for their refunds.
    function _pay(address token, uint256 amount, address recipient) private {
        uint256 balance = IERC20(token).balanceOf(address(this));
        uint256 held = heldForRefunds[token];
        uint256 free = balance > held ? balance - held : 0;
        if (free < amount) revert InsufficientLiquidity(token, free, amount);
        if (token == wrappedNative && _takesNative(recipient)) {
            IWETH(wrappedNative).withdraw(amount);
            // Bounded gas: a recipient (an EIP-7702 account) cannot make the releaser pay for its code, nor refuse
            // the release: one that does not take the coin gets the wrapped native instead.
            (bool ok, ) = recipient.call{value: amount, gas: NATIVE_PAYOUT_GAS}("");
            if (!ok) {
                IWETH(wrappedNative).deposit{value: amount}();
                IERC20(token).safeTransfer(recipient, amount);
            }
        } else {
            IERC20(token).safeTransfer(recipient, amount);
        }
    }

    /// @dev As the Across SpokePool decides it: no code, or an EIP-7702 delegation designator (0xef0100 ‖ address).
    function _takesNative(address account) private view returns (bool) {
        uint256 size = account.code.length;
        return size == 0 || (size == 23 && bytes3(account.code) == 0xef0100);
    }
}
