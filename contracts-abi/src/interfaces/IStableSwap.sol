// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The slice of our StableSwapFactory / StableSwapPool the path executor calls.
interface IStableSwapFactoryLike {
    function getPool(address tokenA, address tokenB) external view returns (address);
}

interface IStableSwapPoolLike {
    function exchange(uint256 i, uint256 j, uint256 dx, uint256 minDy) external returns (uint256);
}
