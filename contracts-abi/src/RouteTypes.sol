// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice One step of a path.
/// kind 0: the Uniswap V2 pair of (tokenIn, tokenOut) from the configured V2 factory (looked up on-chain).
/// kind 1: the Uniswap V3 pool of (tokenIn, tokenOut, fee) from the configured V3 factory (looked up on-chain).
/// kind 2: a whitelisted external source: tokenIn is approved to `target`, `target` is called with `data`,
///         and the tokenOut received is measured.
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
