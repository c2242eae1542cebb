// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {PathExecutor} from "./PathExecutor.sol";
import {IUniswapV3FactoryLike} from "./interfaces/IUniswap.sol";
import {IERC20DecimalsLike, IPriceFeedLike, IUniswapV3OracleLike} from "./interfaces/IPriceOracles.sol";

/// @notice The least an order may receive whatever its executor passes: a price one block cannot move (a Uniswap V3
///         time-weighted average of the pair's deepest pool, else through WETH, else the tokens' USD feeds), less a
///         deviation the owner fixes at deployment and each maker may tighten in its authorization.
/// @dev Prices are Q128 fixed point, tokenOut base units per tokenIn base unit; 0 means "no bound available", which
///      fails the orders instead of executing them unbounded. Every read is guarded: a pool or feed that reverts or
///      answers nonsense counts as absent, never as a revert of the batch.
abstract contract PriceBound is PathExecutor {
    struct PriceBoundConfig {
        /// @notice The TWAP window in seconds (shortened to a pool's oldest observation).
        uint32 twapWindow;
        /// @notice A pool whose history is shorter than this is not used (its average would be a spot price).
        uint32 minTwapWindow;
        /// @notice The widest deviation below the bound price an execution may reach, in basis points.
        uint16 maxDeviationBps;
        /// @notice A feed answer older than this many seconds is not used.
        uint32 feedMaxAge;
    }

    uint16 public constant MAX_DEVIATION_BPS_LIMIT = 2000;
    uint256 private constant Q128 = 1 << 128;
    /// @dev 1.0001^443000 ≈ 2^63.9: legs stay within [2^64, 2^192] in Q128, so a product of two fits 256 bits.
    int256 private constant MAX_LEG_TICK = 443000;

    uint32 public immutable twapWindow;
    uint32 public immutable minTwapWindow;
    uint16 public immutable maxDeviationBps;
    uint32 public immutable feedMaxAge;

    /// @notice token => Chainlink-style USD feed; used only for pairs no Uniswap V3 pool prices.
    mapping(address => address) public priceFeed;

    event PriceFeedSet(address indexed token, address feed);

    error BadPriceBoundConfig();

    constructor(PriceBoundConfig memory config) {
        if (
            config.twapWindow == 0 ||
            config.minTwapWindow == 0 ||
            config.minTwapWindow > config.twapWindow ||
            config.maxDeviationBps == 0 ||
            config.maxDeviationBps > MAX_DEVIATION_BPS_LIMIT
        ) revert BadPriceBoundConfig();
        twapWindow = config.twapWindow;
        minTwapWindow = config.minTwapWindow;
        maxDeviationBps = config.maxDeviationBps;
        feedMaxAge = config.feedMaxAge;
    }

    function setPriceFeed(address token, address feed) external onlyOwner {
        priceFeed[token] = feed;
        emit PriceFeedSet(token, feed);
    }

    /// @notice The bound price of tokenIn in tokenOut (Q128, base units); 0 when none is available.
    function priceBound(address tokenIn, address tokenOut) public view returns (uint256 priceX128) {
        address a = tokenIn == NATIVE ? weth : tokenIn;
        address b = tokenOut == NATIVE ? weth : tokenOut;
        if (a == b) return Q128;
        priceX128 = _twapLeg(a, b);
        if (priceX128 != 0) return priceX128;
        if (a != weth && b != weth) {
            uint256 first = _twapLeg(a, weth);
            uint256 second = first == 0 ? 0 : _twapLeg(weth, b);
            if (second != 0) return FullMath.mulDiv(first, second, Q128);
        }
        return _feedPrice(a, b);
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

    /// @dev The deepest (largest time-weighted liquidity) Uniswap V3 pool of the pair, its average over the window.
    function _twapLeg(address tokenIn, address tokenOut) private view returns (uint256) {
        address factory = v3Factory;
        if (factory == address(0)) return 0;
        uint24[4] memory fees = [uint24(100), 500, 3000, 10_000];
        int256 bestTick;
        uint256 bestWindow;
        uint256 bestLiquidityDelta;
        for (uint256 i; i < fees.length; ++i) {
            address pool = IUniswapV3FactoryLike(factory).getPool(tokenIn, tokenOut, fees[i]);
            if (pool == address(0)) continue;
            (bool ok, int256 meanTick, uint256 window, uint256 liquidityDelta) = _observe(pool);
            // Deeper: window / liquidityDelta (the harmonic mean liquidity) larger, compared without dividing.
            if (ok && (bestWindow == 0 || window * bestLiquidityDelta > bestWindow * liquidityDelta)) {
                (bestTick, bestWindow, bestLiquidityDelta) = (meanTick, window, liquidityDelta);
            }
        }
        if (bestWindow == 0 || bestTick > MAX_LEG_TICK || bestTick < -MAX_LEG_TICK) return 0;
        uint256 sqrtPrice = TickMath.getSqrtPriceAtTick(int24(bestTick));
        uint256 token1PerToken0 = FullMath.mulDiv(sqrtPrice, sqrtPrice, 1 << 64);
        return tokenIn < tokenOut ? token1PerToken0 : FullMath.mulDiv(Q128, Q128, token1PerToken0);
    }

    /// @dev The pool's mean tick and seconds-per-liquidity growth over min(twapWindow, its history).
    function _observe(
        address pool
    ) private view returns (bool ok, int256 meanTick, uint256 window, uint256 liquidityDelta) {
        uint16 index;
        uint16 cardinality;
        try IUniswapV3OracleLike(pool).slot0() returns (uint160, int24, uint16 i, uint16 c, uint16, uint8, bool) {
            (index, cardinality) = (i, c);
        } catch {
            return (false, 0, 0, 0);
        }
        if (cardinality == 0) return (false, 0, 0, 0);
        uint32 oldest;
        try IUniswapV3OracleLike(pool).observations((uint256(index) + 1) % cardinality) returns (
            uint32 timestamp,
            int56,
            uint160,
            bool initialized
        ) {
            oldest = timestamp;
            // The ring is not full yet: slot 0 holds the oldest observation.
            if (!initialized) (oldest, , , ) = IUniswapV3OracleLike(pool).observations(0);
        } catch {
            return (false, 0, 0, 0);
        }
        uint32 age;
        unchecked {
            age = uint32(block.timestamp) - oldest;
        }
        window = age < twapWindow ? age : twapWindow;
        if (window < minTwapWindow) return (false, 0, 0, 0);
        uint32[] memory secondsAgos = new uint32[](2);
        secondsAgos[0] = uint32(window);
        try IUniswapV3OracleLike(pool).observe(secondsAgos) returns (
            int56[] memory ticks,
            uint160[] memory perLiquidity
        ) {
            if (ticks.length != 2 || perLiquidity.length != 2) return (false, 0, 0, 0);
            int256 delta = int256(ticks[1]) - int256(ticks[0]);
            meanTick = delta / int256(window);
            // Round towards negative infinity, as Uniswap's own oracle library does.
            if (delta < 0 && delta % int256(window) != 0) --meanTick;
            unchecked {
                liquidityDelta = uint160(perLiquidity[1] - perLiquidity[0]);
            }
            ok = liquidityDelta != 0;
        } catch {
            return (false, 0, 0, 0);
        }
    }

    /// @dev tokenIn's USD price over tokenOut's, in base units; both feeds fresh and positive, or no price.
    function _feedPrice(address tokenIn, address tokenOut) private view returns (uint256) {
        (bool okIn, uint256 answerIn, uint256 scaleIn) = _feedAnswer(tokenIn);
        if (!okIn) return 0;
        (bool okOut, uint256 answerOut, uint256 scaleOut) = _feedAnswer(tokenOut);
        if (!okOut) return 0;
        // out per in = (answerIn / 10^fdIn) / (answerOut / 10^fdOut) × 10^decOut / 10^decIn; scale = fd + dec.
        uint256 numerator = answerIn * scaleOut;
        uint256 denominator = answerOut * scaleIn;
        if (numerator / denominator >= Q128) return 0;
        return FullMath.mulDiv(numerator, Q128, denominator);
    }

    /// @dev A feed's answer (< 2^64) and 10^(feed decimals + token decimals), that sum at most 38 (so < 2^127).
    function _feedAnswer(address token) private view returns (bool ok, uint256 answer, uint256 scale) {
        address feed = priceFeed[token];
        if (feed == address(0)) return (false, 0, 0);
        try IPriceFeedLike(feed).latestRoundData() returns (uint80, int256 value, uint256, uint256 updatedAt, uint80) {
            if (value <= 0 || value >= 2 ** 64 || updatedAt > block.timestamp) return (false, 0, 0);
            if (block.timestamp - updatedAt > feedMaxAge) return (false, 0, 0);
            answer = uint256(value);
        } catch {
            return (false, 0, 0);
        }
        uint8 feedDecimals;
        uint8 tokenDecimals;
        try IPriceFeedLike(feed).decimals() returns (uint8 d) {
            feedDecimals = d;
        } catch {
            return (false, 0, 0);
        }
        try IERC20DecimalsLike(token).decimals() returns (uint8 d) {
            tokenDecimals = d;
        } catch {
            return (false, 0, 0);
        }
        if (uint256(feedDecimals) + tokenDecimals > 38) return (false, 0, 0);
        return (true, answer, 10 ** (uint256(feedDecimals) + tokenDecimals));
    }
}
