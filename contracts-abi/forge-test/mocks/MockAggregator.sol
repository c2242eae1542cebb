// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice A Chainlink AggregatorV3 as far as the OrderExecutor reads one: the answer, its age and decimals are
///         set freely, and the feed can be made to revert.
contract MockAggregator {
    int256 public answer;
    uint256 public updatedAt;
    uint8 public decimals;
    bool public broken;

    constructor(int256 answer_, uint8 decimals_) {
        answer = answer_;
        decimals = decimals_;
        updatedAt = block.timestamp;
    }

    function set(int256 answer_, uint256 updatedAt_) external {
        answer = answer_;
        updatedAt = updatedAt_;
    }

    function setBroken(bool broken_) external {
        broken = broken_;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        require(!broken, "feed down");
        return (1, answer, updatedAt, updatedAt, 1);
    }
}
