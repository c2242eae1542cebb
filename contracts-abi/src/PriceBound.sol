// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {PriceOracle} from "./PriceOracle.sol";

/// @notice The least an order may receive whatever its executor passes: the PriceOracle's price of the pair (one
///         block cannot move it), less a deviation fixed at deployment that each maker may tighten in its
///         authorization.
abstract contract PriceBound {
    uint16 public constant MAX_DEVIATION_BPS_LIMIT = 2000;
    uint256 private constant Q128 = 1 << 128;

    /// @notice Where prices come from (its owner configures each token's source).
    PriceOracle public immutable priceOracle;
    /// @notice The widest an execution may fall below the oracle's price, in basis points.
    uint16 public immutable maxDeviationBps;

    error BadPriceBoundConfig();

    constructor(PriceOracle priceOracle_, uint16 maxDeviationBps_) {
        if (address(priceOracle_) == address(0) || maxDeviationBps_ == 0 || maxDeviationBps_ > MAX_DEVIATION_BPS_LIMIT)
            revert BadPriceBoundConfig();
        priceOracle = priceOracle_;
        maxDeviationBps = maxDeviationBps_;
    }

    /// @notice The bound price of tokenIn in tokenOut (Q128, base units); 0 when none is available. Reverts when a
    ///         source is broken (executions then fail NO_PRICE_BOUND).
    function priceBound(address tokenIn, address tokenOut) external view returns (uint256) {
        return priceOracle.priceBound(tokenIn, tokenOut);
    }

    /// @notice The least `amountIn` may buy: amountIn × price × (10⁴ − deviation) / 10⁴, where the deviation is the
    ///         contract's unless the maker signed a tighter one (nonzero).
    function minimumAtBound(
        uint256 amountIn,
        uint256 priceX128,
        uint16 makerDeviationBps
    ) public view returns (uint256) {
        uint256 deviation = makerDeviationBps != 0 && makerDeviationBps < maxDeviationBps
            ? makerDeviationBps
            : maxDeviationBps;
        return (FullMath.mulDiv(amountIn, priceX128, Q128) * (10_000 - deviation)) / 10_000;
    }

    /// @notice Gas one group's price read may spend: two Uniswap V3 observations and the WETH feed with room to
    ///         spare. A source that burns more fails its group NO_PRICE_BOUND, not the batch.
    uint256 public constant PRICE_READ_GAS = 300_000;

    /// @dev The oracle's price through a static call with a fixed gas budget, reading 32 bytes of answer at most: a
    ///      source that reverts (with any payload), burns its gas, answers nonsense or runs the math out of range
    ///      yields 0 (no bound) instead of reverting the batch.
    function _boundOf(address tokenIn, address tokenOut) internal view returns (uint256 priceX128) {
        bytes memory query = abi.encodeCall(PriceOracle.priceBound, (tokenIn, tokenOut));
        address oracle = address(priceOracle);
        assembly ("memory-safe") {
            let ok := staticcall(PRICE_READ_GAS, oracle, add(query, 0x20), mload(query), 0x00, 0x20)
            if and(ok, eq(returndatasize(), 0x20)) { priceX128 := mload(0x00) }
        }
    }
}
