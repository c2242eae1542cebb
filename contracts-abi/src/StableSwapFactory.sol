// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {StableSwapPool} from "./StableSwapPool.sol";

/// @notice Creates our StableSwap pools, one per pair, and vouches for them: the path executor swaps through a
///         pool only if this factory created it for exactly that pair.
contract StableSwapFactory is Ownable {
    /// @notice getPool(tokenA, tokenB), either order; address zero when the pair has no pool.
    mapping(address => mapping(address => address)) public getPool;
    mapping(address => bool) public isPool;
    address[] public allPools;

    event PoolCreated(address indexed token0, address indexed token1, address pool);

    error IdenticalTokens();
    error ZeroToken();
    error PoolExists(address pool);

    constructor(address owner_) Ownable(owner_) {}

    /// @notice Owner only: a pool of a stable pair with a wrong A would quote far from the market.
    /// @param amp A (not scaled by A_PRECISION). @param fee Out of 1e10 (4e6 = 0.04%).
    function createPool(address tokenA, address tokenB, uint256 amp, uint256 fee) external onlyOwner returns (address) {
        if (tokenA == tokenB) revert IdenticalTokens();
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        if (token0 == address(0)) revert ZeroToken();
        address existing = getPool[token0][token1];
        if (existing != address(0)) revert PoolExists(existing);
        address pool = address(new StableSwapPool(token0, token1, amp, fee));
        getPool[token0][token1] = pool;
        getPool[token1][token0] = pool;
        isPool[pool] = true;
        allPools.push(pool);
        emit PoolCreated(token0, token1, pool);
        return pool;
    }

    function allPoolsLength() external view returns (uint256) {
        return allPools.length;
    }
}
