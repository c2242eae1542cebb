// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Hop, Path} from "./RouteTypes.sol";
import {
    IUniswapV2FactoryLike,
    IUniswapV2PairLike,
    IUniswapV3FactoryLike,
    IUniswapV3PoolLike,
    IWETH
} from "./interfaces/IUniswap.sol";

/// @notice Runs paths of hops over Uniswap V2 pairs, Uniswap V3 pools and whitelisted external sources with
///         tokens this contract holds. Shared by SwapRouter and OrderExecutor.
/// @dev Pools are always looked up in the configured factories, never taken from calldata, so a caller cannot
///      route funds through a contract of its own; external targets must be whitelisted by the owner.
abstract contract PathExecutor is Ownable {
    using SafeERC20 for IERC20;

    /// @notice Pseudo-address of the chain's native coin; wrapped through WETH inside.
    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    uint8 internal constant KIND_V2 = 0;
    uint8 internal constant KIND_V3 = 1;
    uint8 internal constant KIND_EXTERNAL = 2;

    // TickMath.MIN_SQRT_RATIO + 1 and MAX_SQRT_RATIO - 1: no price limit, the whole input must fill.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128740;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341;

    address public immutable weth;
    address public immutable v2Factory;
    address public immutable v3Factory;

    mapping(address => bool) private _whitelistedSources;

    event SourceWhitelisted(address indexed target, bool allowed);

    error BadPath();
    error SourceNotWhitelisted(address target);
    error ForbiddenSource(address target);
    error NotPool();
    error PartialFill();
    error NotWeth();
    error NativeTransferFailed();

    constructor(address owner_, address weth_, address v2Factory_, address v3Factory_) Ownable(owner_) {
        weth = weth_;
        v2Factory = v2Factory_;
        v3Factory = v3Factory_;
    }

    /// @dev Only WETH sends the native coin here (when unwrapping an output).
    receive() external payable {
        if (msg.sender != weth) revert NotWeth();
    }

    /// @notice A whitelisted target is called with caller-supplied data and this contract as msg.sender. Never
    ///         whitelist a token or any contract that moves third-party funds on its caller's say-so: makers'
    ///         allowances to the OrderExecutor would be exposed.
    function setSourceWhitelisted(address target, bool allowed) external onlyOwner {
        if (allowed) _checkSourceAllowed(target);
        _whitelistedSources[target] = allowed;
        emit SourceWhitelisted(target, allowed);
    }

    function isWhitelistedSource(address target) external view returns (bool) {
        return _whitelistedSources[target];
    }

    /// @dev A target is called with caller-supplied data and this contract as msg.sender: it must never be a
    ///      contract that trusts this one (itself, or the spender in SwapRouter's case).
    function _checkSourceAllowed(address target) internal view virtual {
        if (target == address(this) || target == address(0) || target == weth) revert ForbiddenSource(target);
    }

    /// @notice Pays a Uniswap V3 swap; only a genuine pool of the configured factory is paid.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        (address tokenIn, address tokenOut, uint24 fee) = abi.decode(data, (address, address, uint24));
        if (IUniswapV3FactoryLike(v3Factory).getPool(tokenIn, tokenOut, fee) != msg.sender) revert NotPool();
        int256 owed = tokenIn < tokenOut ? amount0Delta : amount1Delta;
        if (owed <= 0) revert NotPool();
        IERC20(tokenIn).safeTransfer(msg.sender, uint256(owed));
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
            if (hop.kind == KIND_V2) amount = _swapV2(hopIn, hop.tokenOut, amount);
            else if (hop.kind == KIND_V3) amount = _swapV3(hopIn, hop.tokenOut, hop.fee, amount);
            else if (hop.kind == KIND_EXTERNAL) amount = _swapExternal(hopIn, hop.tokenOut, hop.target, hop.data, amount);
            else revert BadPath();
            hopIn = hop.tokenOut;
        }
        if (hopIn != tokenOut) revert BadPath();
    }

    function _swapV2(address tokenIn, address tokenOut, uint256 amountIn) private returns (uint256 amountOut) {
        address pair = IUniswapV2FactoryLike(v2Factory).getPair(tokenIn, tokenOut);
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
        address pool = IUniswapV3FactoryLike(v3Factory).getPool(tokenIn, tokenOut, fee);
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
