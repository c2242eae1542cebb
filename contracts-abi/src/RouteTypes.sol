// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice One step of a path. Every pool is looked up (or checked) in a configured venue, never trusted from
///         calldata; a hop whose venue is not configured (address zero) reverts BadPath.
/// kind 0: the Uniswap V2 pair of (tokenIn, tokenOut) from the Uniswap V2 factory (looked up on-chain).
/// kind 1: the Uniswap V3 pool of (tokenIn, tokenOut, fee) from the Uniswap V3 factory (looked up on-chain).
/// kind 2: a whitelisted external source: tokenIn is approved to `target`, `target` is called with `data`,
///         and the tokenOut received is measured.
/// kind 3: the SushiSwap V2 pair of (tokenIn, tokenOut) from the SushiSwap V2 factory (V2 math, 0.3% fee).
/// kind 4: the hooks-free Uniswap V4 pool (sorted tokenIn/tokenOut, fee, tickSpacing = abi.decode(data, (int24)))
///         of the V4 PoolManager, swapped inside its unlock callback.
/// kind 5: the Balancer V2 pool of poolId = abi.decode(data, (bytes32)) in the Vault; the pool must come from the
///         configured weighted pool factory.
/// kind 6: our StableSwap pool `target`, which must be the StableSwapFactory's pool of (tokenIn, tokenOut).
/// The first hop's tokenIn is the swap's tokenIn (WETH when native); each next hop's tokenIn is the previous tokenOut.
struct Hop {
    uint8 kind;
    address tokenOut;
    uint24 fee;
    address target;
    bytes data;
}

/// @notice The input is split across paths in proportion to weight; the last path takes the rounding remainder.
struct Path {
    uint256 weight;
    Hop[] hops;
}

/// @notice Where each hop kind finds its pools; address zero = that venue does not exist on this chain.
struct Venues {
    address uniswapV2Factory;
    address sushiswapV2Factory;
    address uniswapV3Factory;
    address uniswapV4PoolManager;
    address balancerVault;
    address balancerWeightedPoolFactory;
    address stableSwapFactory;
}
