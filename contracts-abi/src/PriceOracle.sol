// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IUniswapV3FactoryLike} from "./interfaces/IUniswap.sol";
import {IERC20DecimalsLike, IPriceFeedLike, IUniswapV3OracleLike} from "./interfaces/IPriceOracles.sol";

/// @notice Prices one block cannot move, for the OrderExecutor's bound on every execution. Each token's price comes
///         from the one source the owner configured for it (`setOracle`): the time-weighted average of a Uniswap V3
///         pool of the token against WETH, or a Chainlink-style USD feed; WETH's own USD feed converts between the
///         two. Pools are never discovered: a pool anyone can create (a new fee tier, a pair nobody trades) never
///         sets a bound.
/// @dev Prices are Q128 fixed point, tokenOut base units per tokenIn base unit; 0 means "no price", which fails the
///      orders instead of executing them unbounded. `priceBound` may revert on a broken source (no code, a short
///      answer); the OrderExecutor reads it with a static call where any failure counts as no price.
contract PriceOracle is Ownable {
    struct OracleConfig {
        /// @notice The TWAP window in seconds (shortened to a pool's oldest observation).
        uint32 twapWindow;
        /// @notice A pool whose history is shorter than this is not used (its average would be a spot price).
        uint32 minTwapWindow;
        /// @notice A feed answer older than this many seconds is not used.
        uint32 feedMaxAge;
    }

    /// @notice Pseudo-address of the chain's native coin (priced as WETH).
    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @notice Where a token's price comes from: nothing, a USD feed, or a Uniswap V3 pool of (token, WETH).
    uint8 public constant ORACLE_NONE = 0;
    uint8 public constant ORACLE_USD_FEED = 1;
    uint8 public constant ORACLE_V3_WETH_POOL = 2;

    struct TokenOracle {
        uint8 kind;
        address source;
    }

    uint256 private constant Q128 = 1 << 128;
    /// @dev 1.0001^443000 ≈ 2^63.9: a pool's price stays within [2^64, 2^192] in Q128.
    int256 private constant MAX_LEG_TICK = 443000;
    // Units a token's price is expressed in.
    uint8 private constant UNIT_WETH = 1;
    uint8 private constant UNIT_USD = 2;

    address public immutable weth;
    address public immutable v3Factory;
    uint32 public immutable twapWindow;
    uint32 public immutable minTwapWindow;
    uint32 public immutable feedMaxAge;

    mapping(address => TokenOracle) public oracleOf;

    event OracleSet(address indexed token, uint8 kind, address source);

    error BadOracleConfig();
    error BadOracle();

    constructor(address owner_, address weth_, address v3Factory_, OracleConfig memory config) Ownable(owner_) {
        if (
            weth_ == address(0) ||
            config.twapWindow == 0 ||
            config.minTwapWindow == 0 ||
            config.minTwapWindow > config.twapWindow
        ) revert BadOracleConfig();
        weth = weth_;
        v3Factory = v3Factory_;
        twapWindow = config.twapWindow;
        minTwapWindow = config.minTwapWindow;
        feedMaxAge = config.feedMaxAge;
    }

    /// @notice Sets a token's price source. A pool must be the configured Uniswap V3 factory's pool of the token and
    ///         WETH (at the pool's own fee), so only a genuine pool of the pair can be named.
    function setOracle(address token, uint8 kind, address source) external onlyOwner {
        if (kind > ORACLE_V3_WETH_POOL || (kind != ORACLE_NONE && source == address(0))) revert BadOracle();
        if (kind == ORACLE_V3_WETH_POOL) {
            if (token == weth || v3Factory == address(0)) revert BadOracle();
            uint24 fee = IUniswapV3OracleLike(source).fee();
            if (IUniswapV3FactoryLike(v3Factory).getPool(token, weth, fee) != source) revert BadOracle();
        }
        oracleOf[token] = TokenOracle(kind, kind == ORACLE_NONE ? address(0) : source);
        emit OracleSet(token, kind, source);
    }

    /// @notice The price of tokenIn in tokenOut (Q128, base units); 0 when none is available.
    function priceBound(address tokenIn, address tokenOut) public view returns (uint256) {
        address a = tokenIn == NATIVE ? weth : tokenIn;
        address b = tokenOut == NATIVE ? weth : tokenOut;
        if (a == b) return Q128;
        (uint8 unitA, uint256 priceA) = _tokenPrice(a);
        if (priceA == 0) return 0;
        (uint8 unitB, uint256 priceB) = _tokenPrice(b);
        if (priceB == 0) return 0;
        if (unitA != unitB) {
            // One side in WETH, the other in USD: WETH's own feed converts.
            (uint8 unitW, uint256 wethUsd) = _tokenPrice(weth);
            if (unitW != UNIT_USD || wethUsd == 0) return 0;
            if (unitA == UNIT_WETH) priceA = FullMath.mulDiv(priceA, wethUsd, Q128);
            else priceB = FullMath.mulDiv(priceB, wethUsd, Q128);
            if (priceA == 0 || priceB == 0) return 0;
        }
        if (priceA / priceB >= Q128) return 0;
        return FullMath.mulDiv(priceA, Q128, priceB);
    }

    /// @dev A base unit of `token` in WETH base units (WETH itself, or its pool's average) or in USD (its feed; for
    ///      WETH the feed wins, since WETH is the unit of the pools), Q128; price 0 when it has none.
    function _tokenPrice(address token) private view returns (uint8 unit, uint256 priceX128) {
        TokenOracle memory oracle = oracleOf[token];
        if (oracle.kind == ORACLE_USD_FEED) return (UNIT_USD, _feedPrice(token, oracle.source));
        if (token == weth) return (UNIT_WETH, Q128);
        if (oracle.kind == ORACLE_V3_WETH_POOL) return (UNIT_WETH, _poolPrice(oracle.source, token));
        return (UNIT_WETH, 0);
    }

    /// @dev The pool's time-weighted price of a base unit of `token` in WETH base units (Q128).
    function _poolPrice(address pool, address token) private view returns (uint256) {
        (bool ok, int256 meanTick) = _observe(pool);
        if (!ok || meanTick > MAX_LEG_TICK || meanTick < -MAX_LEG_TICK) return 0;
        uint256 sqrtPrice = TickMath.getSqrtPriceAtTick(int24(meanTick));
        uint256 token1PerToken0 = FullMath.mulDiv(sqrtPrice, sqrtPrice, 1 << 64);
        return token < weth ? token1PerToken0 : FullMath.mulDiv(Q128, Q128, token1PerToken0);
    }

    /// @dev The pool's mean tick over min(twapWindow, its history).
    function _observe(address pool) private view returns (bool ok, int256 meanTick) {
        (, , uint16 index, uint16 cardinality, , , ) = IUniswapV3OracleLike(pool).slot0();
        if (cardinality == 0) return (false, 0);
        (uint32 oldest, , , bool initialized) = IUniswapV3OracleLike(pool).observations(
            (uint256(index) + 1) % cardinality
        );
        // The ring is not full yet: slot 0 holds the oldest observation.
        if (!initialized) (oldest, , , ) = IUniswapV3OracleLike(pool).observations(0);
        uint32 age;
        unchecked {
            age = uint32(block.timestamp) - oldest;
        }
        uint256 window = age < twapWindow ? age : twapWindow;
        if (window < minTwapWindow) return (false, 0);
        uint32[] memory secondsAgos = new uint32[](2);
        secondsAgos[0] = uint32(window);
        (int56[] memory ticks, ) = IUniswapV3OracleLike(pool).observe(secondsAgos);
        int256 delta = int256(ticks[1]) - int256(ticks[0]);
        meanTick = delta / int256(window);
        // Round towards negative infinity, as Uniswap's own oracle library does.
        if (delta < 0 && delta % int256(window) != 0) --meanTick;
        ok = true;
    }

    /// @dev A base unit of `token` in USD (Q128): answer / 10^(feed decimals + token decimals), fresh and positive.
    function _feedPrice(address token, address feed) private view returns (uint256) {
        (, int256 answer, , uint256 updatedAt, ) = IPriceFeedLike(feed).latestRoundData();
        if (answer <= 0 || answer >= 2 ** 128 || updatedAt > block.timestamp) return 0;
        if (block.timestamp - updatedAt > feedMaxAge) return 0;
        uint256 scale = uint256(IPriceFeedLike(feed).decimals()) + IERC20DecimalsLike(token).decimals();
        if (scale > 60) return 0;
        return FullMath.mulDiv(uint256(answer), Q128, 10 ** scale);
    }
}
