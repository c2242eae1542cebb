// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice A USD feed that spends all the gas it is given before answering.
contract GasBurnFeed {
    uint8 public constant decimals = 8;

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        uint256 spin;
        while (gasleft() > 1000) ++spin;
        return (1, int256(spin), block.timestamp, block.timestamp, 1);
    }
}

/// @notice A USD feed that reverts with as large a payload as a share (1/divisor) of its gas pays for.
contract RevertBombFeed {
    uint256 public immutable divisor;

    constructor(uint256 divisor_) {
        divisor = divisor_;
    }

    fallback() external {
        uint256 budget = gasleft() / divisor;
        uint256 words = _sqrt(512 * budget);
        assembly {
            revert(0, mul(words, 32))
        }
    }

    function _sqrt(uint256 x) private pure returns (uint256 y) {
        if (x == 0) return 0;
        uint256 z = x / 2 + 1;
        y = x;
        while (z < y) {
            y = z;
            z = (x / z + z) / 2;
        }
    }
}
