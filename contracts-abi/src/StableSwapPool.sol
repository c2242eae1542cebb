// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice A two-coin StableSwap pool (the invariant of Egorov's StableSwap whitepaper, with Curve's integer
///         conventions): A·n^n·Σx + D = A·D·n^n + D^(n+1) / (n^n·Πx), n = 2. Balances are compared at 18 decimals
///         (x = balance · 10^(18 - decimals)); the swap fee is taken from the output and stays with the LPs.
///         LP shares are a plain mapping (no ERC-20). Fee-on-transfer and rebasing coins are not supported.
/// @dev shared/routing/math/stable-swap-math.ts mirrors getDy operation by operation (same rounding, same reverts):
///      change both together.
contract StableSwapPool is ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 public constant A_PRECISION = 100;
    uint256 public constant FEE_DENOMINATOR = 1e10;
    uint256 public constant MAX_A = 1e6;
    /// @notice 50%.
    uint256 public constant MAX_FEE = 5e9;
    uint256 private constant N_COINS = 2;
    uint256 private constant MAX_ITERATIONS = 255;

    address public immutable factory;
    address private immutable _coin0;
    address private immutable _coin1;
    uint256 private immutable _rate0;
    uint256 private immutable _rate1;
    /// @dev A·A_PRECISION, A in Curve's convention (the whitepaper's A·n^(n-1)).
    uint256 private immutable _amp;
    uint256 private immutable _fee;

    uint256 private _balance0;
    uint256 private _balance1;
    uint256 public totalSupply;
    mapping(address => uint256) public sharesOf;

    event TokenExchange(address indexed buyer, uint256 i, uint256 dx, uint256 j, uint256 dy);
    event AddLiquidity(address indexed provider, uint256[2] amounts, uint256[2] fees, uint256 shares);
    event RemoveLiquidity(address indexed provider, uint256 shares, uint256[2] amounts);

    error BadCoins();
    error BadParameter();
    error BadIndex();
    error ZeroAmount();
    error NoConvergence();
    error Slippage();
    error InsufficientShares();

    /// @param amp A (not scaled): 2000 for a typical stablecoin pool. @param fee_ Out of FEE_DENOMINATOR (4e6 = 0.04%).
    constructor(address coin0_, address coin1_, uint256 amp, uint256 fee_) {
        if (coin0_ == address(0) || coin0_ >= coin1_) revert BadCoins();
        if (amp == 0 || amp > MAX_A || fee_ > MAX_FEE) revert BadParameter();
        factory = msg.sender;
        _coin0 = coin0_;
        _coin1 = coin1_;
        _rate0 = _rateOf(coin0_);
        _rate1 = _rateOf(coin1_);
        _amp = amp * A_PRECISION;
        _fee = fee_;
    }

    function _rateOf(address coin) private view returns (uint256) {
        uint8 decimals = IERC20Metadata(coin).decimals();
        if (decimals > 18) revert BadCoins();
        return 10 ** (18 - decimals);
    }

    // ---- views ----

    /// @notice The coins, sorted: coins(0) < coins(1).
    function coins(uint256 i) external view returns (address) {
        if (i > 1) revert BadIndex();
        return i == 0 ? _coin0 : _coin1;
    }

    function balances(uint256 i) external view returns (uint256) {
        if (i > 1) revert BadIndex();
        return i == 0 ? _balance0 : _balance1;
    }

    /// @notice A·A_PRECISION.
    function A() external view returns (uint256) {
        return _amp;
    }

    /// @notice Swap fee out of FEE_DENOMINATOR, taken from the output.
    function fee() external view returns (uint256) {
        return _fee;
    }

    /// @notice 10^(18 - decimals) of coin i: base units to the 18-decimal scale the invariant works in.
    function rates(uint256 i) external view returns (uint256) {
        if (i > 1) revert BadIndex();
        return i == 0 ? _rate0 : _rate1;
    }

    /// @notice What exchange(i, j, dx, 0) would pay now.
    function getDy(uint256 i, uint256 j, uint256 dx) external view returns (uint256) {
        return _getDy(i, j, dx, _balance0, _balance1);
    }

    // ---- swaps ----

    /// @notice Swaps dx of coin i (pulled from msg.sender) for coin j, paid to msg.sender.
    function exchange(uint256 i, uint256 j, uint256 dx, uint256 minDy) external nonReentrant returns (uint256 dy) {
        (uint256 b0, uint256 b1) = (_balance0, _balance1);
        dy = _getDy(i, j, dx, b0, b1);
        if (dy < minDy) revert Slippage();
        // dy < balance j always (the invariant's y stays positive), so the pool is never emptied.
        if (i == 0) (_balance0, _balance1) = (b0 + dx, b1 - dy);
        else (_balance0, _balance1) = (b0 - dy, b1 + dx);
        (address coinIn, address coinOut) = i == 0 ? (_coin0, _coin1) : (_coin1, _coin0);
        IERC20(coinIn).safeTransferFrom(msg.sender, address(this), dx);
        IERC20(coinOut).safeTransfer(msg.sender, dy);
        emit TokenExchange(msg.sender, i, dx, j, dy);
    }

    function _getDy(uint256 i, uint256 j, uint256 dx, uint256 b0, uint256 b1) private view returns (uint256) {
        if (!((i == 0 && j == 1) || (i == 1 && j == 0))) revert BadIndex();
        if (dx == 0) revert ZeroAmount();
        (uint256 xp0, uint256 xp1) = (b0 * _rate0, b1 * _rate1);
        uint256 amp = _amp;
        uint256 d = _getD(xp0, xp1, amp);
        (uint256 xpIn, uint256 xpOut, uint256 rateIn, uint256 rateOut) = i == 0
            ? (xp0, xp1, _rate0, _rate1)
            : (xp1, xp0, _rate1, _rate0);
        uint256 y = _getY(xpIn + dx * rateIn, d, amp);
        // The extra 1 covers y's rounding in the pool's favour.
        uint256 dy = xpOut - y - 1;
        uint256 dyFee = (dy * _fee) / FEE_DENOMINATOR;
        return (dy - dyFee) / rateOut;
    }

    /// @dev D by Newton's method on f(D) = D^3/(4·x0·x1) + (Ann - 1)·D - Ann·S, Ann = A·n^n (A_PRECISION-scaled):
    ///      D' = (Ann·S + n·Dp)·D / ((Ann - 1)·D + (n + 1)·Dp), Dp = D^3/(4·x0·x1), from S, which is above the root.
    function _getD(uint256 x0, uint256 x1, uint256 amp) private pure returns (uint256) {
        uint256 s = x0 + x1;
        if (s == 0) return 0;
        uint256 d = s;
        uint256 ann = amp * N_COINS;
        for (uint256 k; k < MAX_ITERATIONS; ++k) {
            uint256 dp = (((d * d) / (x0 * N_COINS)) * d) / (x1 * N_COINS);
            uint256 previous = d;
            d =
                (((ann * s) / A_PRECISION + dp * N_COINS) * d) /
                (((ann - A_PRECISION) * d) / A_PRECISION + (N_COINS + 1) * dp);
            if (d > previous ? d - previous <= 1 : previous - d <= 1) return d;
        }
        revert NoConvergence();
    }

    /// @dev The other coin's balance y that keeps D when one coin's is x: the positive root of
    ///      y² + (b - D)·y = c with b = x + D/Ann and c = D³/(n²·x·Ann) (A_PRECISION-scaled), by Newton's method
    ///      y' = (y² + c) / (2y + b - D) from D, which is above the root.
    function _getY(uint256 x, uint256 d, uint256 amp) private pure returns (uint256) {
        uint256 ann = amp * N_COINS;
        uint256 c = (d * d) / (x * N_COINS);
        c = (c * d * A_PRECISION) / (ann * N_COINS);
        uint256 b = x + (d * A_PRECISION) / ann;
        uint256 y = d;
        for (uint256 k; k < MAX_ITERATIONS; ++k) {
            uint256 previous = y;
            y = (y * y + c) / (2 * y + b - d);
            if (y > previous ? y - previous <= 1 : previous - y <= 1) return y;
        }
        revert NoConvergence();
    }

    // ---- liquidity ----

    /// @notice Deposits `amounts` (both non-zero for the first deposit) and mints LP shares. A deposit off the pool's
    ///         ratio pays the swap fee (halved) on its imbalance, as the swap it amounts to would.
    function addLiquidity(uint256[2] calldata amounts, uint256 minMint) external nonReentrant returns (uint256 shares) {
        uint256 amp = _amp;
        (uint256 old0, uint256 old1) = (_balance0, _balance1);
        uint256 supply = totalSupply;
        uint256 d0 = _getD(old0 * _rate0, old1 * _rate1, amp);
        (uint256 new0, uint256 new1) = (old0 + amounts[0], old1 + amounts[1]);
        if (supply == 0 && (amounts[0] == 0 || amounts[1] == 0)) revert ZeroAmount();
        uint256 d1 = _getD(new0 * _rate0, new1 * _rate1, amp);
        if (d1 <= d0) revert ZeroAmount();
        uint256[2] memory fees;
        if (supply == 0) {
            shares = d1;
        } else {
            // For n coins Curve charges fee·n/(4(n-1)) on the distance from the ideal (proportional) balance.
            uint256 imbalanceFee = (_fee * N_COINS) / (4 * (N_COINS - 1));
            fees[0] = (imbalanceFee * _distance((d1 * old0) / d0, new0)) / FEE_DENOMINATOR;
            fees[1] = (imbalanceFee * _distance((d1 * old1) / d0, new1)) / FEE_DENOMINATOR;
            uint256 d2 = _getD((new0 - fees[0]) * _rate0, (new1 - fees[1]) * _rate1, amp);
            shares = (supply * (d2 - d0)) / d0;
        }
        if (shares == 0 || shares < minMint) revert Slippage();
        (_balance0, _balance1) = (new0, new1);
        totalSupply = supply + shares;
        sharesOf[msg.sender] += shares;
        if (amounts[0] > 0) IERC20(_coin0).safeTransferFrom(msg.sender, address(this), amounts[0]);
        if (amounts[1] > 0) IERC20(_coin1).safeTransferFrom(msg.sender, address(this), amounts[1]);
        emit AddLiquidity(msg.sender, amounts, fees, shares);
    }

    /// @notice Burns `shares` for the same fraction of both balances (no fee).
    function removeLiquidity(
        uint256 shares,
        uint256[2] calldata minAmounts
    ) external nonReentrant returns (uint256[2] memory amounts) {
        if (shares == 0) revert ZeroAmount();
        uint256 owned = sharesOf[msg.sender];
        if (shares > owned) revert InsufficientShares();
        uint256 supply = totalSupply;
        (uint256 b0, uint256 b1) = (_balance0, _balance1);
        amounts[0] = (b0 * shares) / supply;
        amounts[1] = (b1 * shares) / supply;
        if (amounts[0] < minAmounts[0] || amounts[1] < minAmounts[1]) revert Slippage();
        sharesOf[msg.sender] = owned - shares;
        totalSupply = supply - shares;
        (_balance0, _balance1) = (b0 - amounts[0], b1 - amounts[1]);
        if (amounts[0] > 0) IERC20(_coin0).safeTransfer(msg.sender, amounts[0]);
        if (amounts[1] > 0) IERC20(_coin1).safeTransfer(msg.sender, amounts[1]);
        emit RemoveLiquidity(msg.sender, shares, amounts);
    }

    function _distance(uint256 a, uint256 b) private pure returns (uint256) {
        return a > b ? a - b : b - a;
    }
}
