// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The slice of Uniswap V4's PoolManager (v4-core 1.0.2) the path executor calls. Currencies are plain
///      addresses here (v4-core's `Currency` is an address type; address zero is the native coin).
struct V4PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct V4SwapParams {
    bool zeroForOne;
    /// @dev Negative = exact input.
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

interface IPoolManagerLike {
    function unlock(bytes calldata data) external returns (bytes memory);

    /// @return swapDelta amount0 in the upper 128 bits, amount1 in the lower, from the caller's side (negative =
    ///         owed to the manager).
    function swap(V4PoolKey memory key, V4SwapParams memory params, bytes calldata hookData) external returns (int256);

    function sync(address currency) external;

    function settle() external payable returns (uint256);

    function take(address currency, address to, uint256 amount) external;
}
