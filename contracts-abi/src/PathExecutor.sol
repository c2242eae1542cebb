// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Guarded} from "./Guarded.sol";
import {Hop, Path, Venues} from "./RouteTypes.sol";
import {IBalancerVaultLike, IBasePoolFactoryLike} from "./interfaces/IBalancerV2.sol";
import {IStableSwapFactoryLike, IStableSwapPoolLike} from "./interfaces/IStableSwap.sol";
import {IPoolManagerLike, V4PoolKey, V4SwapParams} from "./interfaces/IUniswapV4.sol";
import {
    IUniswapV2FactoryLike,
    IUniswapV2PairLike,
    IUniswapV3FactoryLike,
    IUniswapV3PoolLike,
    IWETH
} from "./interfaces/IUniswap.sol";

/// @notice Runs paths of hops over Uniswap V2/V3/V4, SushiSwap V2, Balancer V2 weighted and our StableSwap pools
///         and whitelisted external sources with tokens this contract holds. Shared by SwapRouter and OrderExecutor.
/// @dev Pools are always looked up in (or checked against) the configured venues, never trusted from calldata, so
///      a caller cannot route funds through a contract of its own; external targets must be whitelisted by the owner.
abstract contract PathExecutor is Guarded {
    using SafeERC20 for IERC20;

    /// @notice Pseudo-address of the chain's native coin; wrapped through WETH inside.
    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    uint8 internal constant KIND_V2 = 0;
    uint8 internal constant KIND_V3 = 1;
    uint8 internal constant KIND_EXTERNAL = 2;
    uint8 internal constant KIND_SUSHISWAP_V2 = 3;
    uint8 internal constant KIND_V4 = 4;
    uint8 internal constant KIND_BALANCER_WEIGHTED = 5;
    uint8 internal constant KIND_STABLE_SWAP = 6;

    // TickMath.MIN_SQRT_RATIO + 1 and MAX_SQRT_RATIO - 1: no price limit, the whole input must fill.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128740;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341;

    address public immutable weth;
    /// @notice Uniswap V2's factory (hop kind 0); every venue is address zero where the chain lacks it.
    address public immutable v2Factory;
    address public immutable sushiswapV2Factory;
    address public immutable v3Factory;
    address public immutable uniswapV4PoolManager;
    address public immutable balancerVault;
    address public immutable balancerWeightedPoolFactory;
    address public immutable stableSwapFactory;

    mapping(address => bool) private _whitelistedSources;

    event SourceWhitelisted(address indexed target, bool allowed);

    error BadPath();
    error SourceNotWhitelisted(address target);
    error ForbiddenSource(address target);
    error NotPool();
    error PartialFill();
    error NotWeth();
    error NativeTransferFailed();

    constructor(address owner_, address weth_, Venues memory venues_) Ownable(owner_) {
        weth = weth_;
        v2Factory = venues_.uniswapV2Factory;
        sushiswapV2Factory = venues_.sushiswapV2Factory;
        v3Factory = venues_.uniswapV3Factory;
        uniswapV4PoolManager = venues_.uniswapV4PoolManager;
        balancerVault = venues_.balancerVault;
        balancerWeightedPoolFactory = venues_.balancerWeightedPoolFactory;
        stableSwapFactory = venues_.stableSwapFactory;
    }

    /// @dev Only WETH sends the native coin here (when unwrapping an output).
    receive() external payable {
        if (msg.sender != weth) revert NotWeth();
    }

    /// @notice A whitelisted target is called with caller-supplied data and this contract as msg.sender. Never
    ///         whitelist a token or any contract that moves third-party funds on its caller's say-so: makers'
    ///         allowances to the OrderExecutor would be exposed. Whitelisting is the owner's (a timelocked change);
    ///         removing a target, the owner's or the guardian's.
    function setSourceWhitelisted(address target, bool allowed) external {
        _checkOwnerOrGuardianFor(allowed);
        if (allowed) _checkSourceAllowed(target);
        _whitelistedSources[target] = allowed;
        emit SourceWhitelisted(target, allowed);
    }

    function isWhitelistedSource(address target) external view returns (bool) {
        return _whitelistedSources[target];
    }

    /// @dev A target is called with caller-supplied data and this contract as msg.sender: it must never be a
    ///      contract that trusts this one (itself, or the spender in SwapRouter's case), nor a venue that acts on
    ///      its caller's account: the V4 PoolManager (its unlock would call unlockCallback with the caller's data)
    ///      and the Balancer Vault (relayer approvals, internal balances). Those are reached by their hop kinds.
    function _checkSourceAllowed(address target) internal view virtual {
        if (
            target == address(this) ||
            target == address(0) ||
            target == weth ||
            target == uniswapV4PoolManager ||
            target == balancerVault
        ) revert ForbiddenSource(target);
    }

    /// @notice Pays a Uniswap V3 swap; only a genuine pool of the configured factory is paid.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        (address tokenIn, address tokenOut, uint24 fee) = abi.decode(data, (address, address, uint24));
        if (IUniswapV3FactoryLike(v3Factory).getPool(tokenIn, tokenOut, fee) != msg.sender) revert NotPool();
        int256 owed = tokenIn < tokenOut ? amount0Delta : amount1Delta;
        if (owed <= 0) revert NotPool();
        IERC20(tokenIn).safeTransfer(msg.sender, uint256(owed));
    }

    /// @notice Runs a Uniswap V4 hop for _swapV4 while the PoolManager is unlocked. The manager calls back only
    ///         the address that called unlock, so a call from it is always one this contract started.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        address manager = uniswapV4PoolManager;
        if (msg.sender != manager) revert NotPool();
        (address tokenIn, address tokenOut, uint24 fee, int24 tickSpacing, uint256 amountIn) = abi.decode(
            data,
            (address, address, uint24, int24, uint256)
        );
        bool zeroForOne = tokenIn < tokenOut;
        // hooks = address(0) always: a hook would run code of the pool creator's choosing inside our swap.
        V4PoolKey memory key = zeroForOne
            ? V4PoolKey(tokenIn, tokenOut, fee, tickSpacing, address(0))
            : V4PoolKey(tokenOut, tokenIn, fee, tickSpacing, address(0));
        int256 delta = IPoolManagerLike(manager).swap(
            key,
            V4SwapParams(zeroForOne, -int256(amountIn), zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT),
            ""
        );
        (int128 amount0, int128 amount1) = (int128(delta >> 128), int128(delta));
        (int128 paid, int128 received) = zeroForOne ? (amount0, amount1) : (amount1, amount0);
        // As in V3: the pool stops short of the input only when it runs out of liquidity.
        if (paid != -int128(int256(amountIn)) || received < 0) revert PartialFill();
        IPoolManagerLike(manager).sync(tokenIn);
        IERC20(tokenIn).safeTransfer(manager, amountIn);
        IPoolManagerLike(manager).settle();
        uint256 amountOut = uint256(int256(received));
        IPoolManagerLike(manager).take(tokenOut, address(this), amountOut);
        return abi.encode(amountOut);
    }

    /// @dev Swaps `amountIn` of tokenIn (held by this contract) into tokenOut along `paths`; returns the total
    ///      tokenOut now held for the caller.
    function _executePaths(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        Path[] calldata paths
    ) internal returns (uint256 amountOut) {
        uint256 count = paths.length;
        if (count == 0) revert BadPath();
        uint256 totalWeight;
        if (count > 1) {
            for (uint256 i; i < count; ++i) totalWeight += paths[i].weight;
            if (totalWeight == 0) revert BadPath();
        }
        uint256 remaining = amountIn;
        for (uint256 i; i < count; ++i) {
            uint256 share = i == count - 1 ? remaining : (amountIn * paths[i].weight) / totalWeight;
            remaining -= share;
            // A zero share would make the pools revert; the path simply carries nothing.
            if (share == 0) continue;
            amountOut += _executeHops(tokenIn, tokenOut, share, paths[i].hops);
        }
    }

    function _executeHops(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        Hop[] calldata hops
    ) private returns (uint256 amount) {
        uint256 count = hops.length;
        if (count == 0) revert BadPath();
        address hopIn = tokenIn;
        amount = amountIn;
        for (uint256 i; i < count; ++i) {
            Hop calldata hop = hops[i];
            uint8 kind = hop.kind;
            if (kind == KIND_V2) amount = _swapV2(v2Factory, hopIn, hop.tokenOut, amount);
            else if (kind == KIND_V3) amount = _swapV3(hopIn, hop.tokenOut, hop.fee, amount);
            else if (kind == KIND_EXTERNAL) amount = _swapExternal(hopIn, hop.tokenOut, hop.target, hop.data, amount);
            else if (kind == KIND_SUSHISWAP_V2) amount = _swapV2(sushiswapV2Factory, hopIn, hop.tokenOut, amount);
            else if (kind == KIND_V4) amount = _swapV4(hopIn, hop.tokenOut, hop.fee, hop.data, amount);
            else if (kind == KIND_BALANCER_WEIGHTED) amount = _swapBalancer(hopIn, hop.tokenOut, hop.data, amount);
            else if (kind == KIND_STABLE_SWAP) amount = _swapStable(hopIn, hop.tokenOut, hop.target, amount);
            else revert BadPath();
            hopIn = hop.tokenOut;
        }
        if (hopIn != tokenOut) revert BadPath();
    }

    /// @dev A venue the chain lacks: a call to address zero would "succeed" with no return data.
    function _venue(address venue) private pure returns (address) {
        if (venue == address(0)) revert BadPath();
        return venue;
    }

    /// @dev Uniswap V2 and its forks with the same 0.3% pair (SushiSwap): only the factory differs.
    function _swapV2(
        address factory,
        address tokenIn,
        address tokenOut,
        uint256 amountIn
    ) private returns (uint256 amountOut) {
        address pair = IUniswapV2FactoryLike(_venue(factory)).getPair(tokenIn, tokenOut);
        if (pair == address(0)) revert BadPath();
        (uint256 reserve0, uint256 reserve1, ) = IUniswapV2PairLike(pair).getReserves();
        bool inIsToken0 = tokenIn < tokenOut;
        (uint256 reserveIn, uint256 reserveOut) = inIsToken0 ? (reserve0, reserve1) : (reserve1, reserve0);
        // UniswapV2Library.getAmountOut: 0.3% fee on the input.
        uint256 amountInWithFee = amountIn * 997;
        amountOut = (amountInWithFee * reserveOut) / (reserveIn * 1000 + amountInWithFee);
        IERC20(tokenIn).safeTransfer(pair, amountIn);
        (uint256 out0, uint256 out1) = inIsToken0 ? (uint256(0), amountOut) : (amountOut, uint256(0));
        IUniswapV2PairLike(pair).swap(out0, out1, address(this), "");
    }

    function _swapV3(address tokenIn, address tokenOut, uint24 fee, uint256 amountIn) private returns (uint256) {
        address pool = IUniswapV3FactoryLike(_venue(v3Factory)).getPool(tokenIn, tokenOut, fee);
        // A negative amountSpecified would mean exact output.
        if (pool == address(0) || amountIn > uint256(type(int256).max)) revert BadPath();
        bool zeroForOne = tokenIn < tokenOut;
        (int256 amount0, int256 amount1) = IUniswapV3PoolLike(pool).swap(
            address(this),
            zeroForOne,
            int256(amountIn),
            zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT,
            abi.encode(tokenIn, tokenOut, fee)
        );
        (int256 paid, int256 received) = zeroForOne ? (amount0, amount1) : (amount1, amount0);
        // Without a price limit a pool stops early only when it runs out of liquidity: the rest would stay here.
        if (uint256(paid) != amountIn) revert PartialFill();
        return uint256(-received);
    }

    function _swapV4(
        address tokenIn,
        address tokenOut,
        uint24 fee,
        bytes calldata data,
        uint256 amountIn
    ) private returns (uint256) {
        address manager = _venue(uniswapV4PoolManager);
        // Address zero is V4's native currency: we only ever hold ERC-20s (WETH for the native coin). Deltas are int128.
        if (tokenIn == address(0) || tokenOut == address(0) || amountIn > uint128(type(int128).max)) revert BadPath();
        int24 tickSpacing = abi.decode(data, (int24));
        bytes memory result = IPoolManagerLike(manager).unlock(abi.encode(tokenIn, tokenOut, fee, tickSpacing, amountIn));
        return abi.decode(result, (uint256));
    }

    function _swapBalancer(
        address tokenIn,
        address tokenOut,
        bytes calldata data,
        uint256 amountIn
    ) private returns (uint256 amountOut) {
        address vault = _venue(balancerVault);
        address factory = _venue(balancerWeightedPoolFactory);
        // The Vault reads address zero as ETH.
        if (tokenIn == address(0) || tokenOut == address(0)) revert BadPath();
        bytes32 poolId = abi.decode(data, (bytes32));
        // The Vault registers pools of any code: only the weighted factory's pools run known code.
        (address pool, ) = IBalancerVaultLike(vault).getPool(poolId);
        if (!IBasePoolFactoryLike(factory).isPoolFromFactory(pool)) revert NotPool();
        IERC20(tokenIn).forceApprove(vault, amountIn);
        amountOut = IBalancerVaultLike(vault).swap(
            IBalancerVaultLike.SingleSwap(poolId, IBalancerVaultLike.SwapKind.GIVEN_IN, tokenIn, tokenOut, amountIn, ""),
            IBalancerVaultLike.FundManagement(address(this), false, payable(address(this)), false),
            0,
            block.timestamp
        );
        if (IERC20(tokenIn).allowance(address(this), vault) != 0) revert PartialFill();
    }

    /// @dev The factory's pool of the pair must be `pool` itself: that proves both that it is our pool code and
    ///      that it holds exactly these two coins, sorted (coin 0 < coin 1).
    function _swapStable(
        address tokenIn,
        address tokenOut,
        address pool,
        uint256 amountIn
    ) private returns (uint256) {
        address factory = _venue(stableSwapFactory);
        if (pool == address(0) || IStableSwapFactoryLike(factory).getPool(tokenIn, tokenOut) != pool) revert NotPool();
        (uint256 i, uint256 j) = tokenIn < tokenOut ? (uint256(0), uint256(1)) : (uint256(1), uint256(0));
        uint256 before = IERC20(tokenOut).balanceOf(address(this));
        IERC20(tokenIn).forceApprove(pool, amountIn);
        IStableSwapPoolLike(pool).exchange(i, j, amountIn, 0);
        // The pool pulls exactly amountIn (the allowance is spent); what arrived is the output.
        return IERC20(tokenOut).balanceOf(address(this)) - before;
    }

    function _swapExternal(
        address tokenIn,
        address tokenOut,
        address target,
        bytes calldata data,
        uint256 amountIn
    ) private returns (uint256) {
        if (!_whitelistedSources[target]) revert SourceNotWhitelisted(target);
        uint256 before = IERC20(tokenOut).balanceOf(address(this));
        IERC20(tokenIn).forceApprove(target, amountIn);
        (bool ok, bytes memory reason) = target.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(reason, 0x20), mload(reason))
            }
        }
        // The source must take exactly the approved input: anything left would stay here, and so would an allowance.
        if (IERC20(tokenIn).allowance(address(this), target) != 0) revert PartialFill();
        return IERC20(tokenOut).balanceOf(address(this)) - before;
    }

    /// @dev Pays `amount` of `token` to `to`; for NATIVE the caller has already unwrapped the WETH.
    function _payOut(address token, address to, uint256 amount) internal {
        if (token == NATIVE) {
            (bool ok, ) = to.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            IERC20(token).safeTransfer(to, amount);
        }
    }
}
