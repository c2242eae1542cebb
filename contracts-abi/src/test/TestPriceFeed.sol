// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Devnet USD price feed in Chainlink's AggregatorV3 shape (8 decimals), set by its owner and always
///         reported as updated now. Never deploy outside a local chain.
contract TestPriceFeed is Ownable {
    int256 public answer;

    constructor(address owner_, int256 answer_) Ownable(owner_) {
        answer = answer_;
    }

    function setAnswer(int256 answer_) external onlyOwner {
        answer = answer_;
    }

    function decimals() external pure returns (uint8) {
        return 8;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (1, answer, block.timestamp, block.timestamp, 1);
    }
}
