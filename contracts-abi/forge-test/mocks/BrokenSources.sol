// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice A "feed" that answers every call with one word: latestRoundData's five words cannot be decoded.
contract ShortFeed {
    fallback() external {
        assembly {
            mstore(0, 1)
            return(0, 32)
        }
    }
}

/// @notice A fresh feed whose decimals() answers 300: no uint8, so its answer cannot be decoded.
contract BigDecimalsFeed {
    function decimals() external pure returns (uint256) {
        return 300;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (1, 1e8, block.timestamp, block.timestamp, 1);
    }
}

/// @notice Reverts every call with the bytes it was given (as a price feed, or as what a swap source calls).
contract Reverter {
    bytes internal data;

    constructor(bytes memory data_) {
        data = data_;
    }

    fallback() external {
        bytes memory revertData = data;
        assembly ("memory-safe") {
            revert(add(revertData, 0x20), mload(revertData))
        }
    }
}
