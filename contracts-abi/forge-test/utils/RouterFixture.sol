// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Fixture} from "./Fixture.sol";
import {Vm} from "./Vm.sol";
import {Hop, Path} from "../../src/RouteTypes.sol";
import {SwapRouter} from "../../src/SwapRouter.sol";
import {TokenSpender} from "../../src/TokenSpender.sol";

/// @notice SwapRouter + TokenSpender on the fixture's venues, route builders, and one checked swap that asserts
///         what every swap must keep: the account gets at least minOut, each fee is at most 1% of the output, the
///         router and the spender keep no token, coin or allowance, and no bystander's balance moves.
abstract contract RouterFixture is Fixture {
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    uint32 internal constant PROTOCOL_FEE_PIPS = 1500;

    bytes32 internal constant SWAPPED_TOPIC =
        keccak256("Swapped(address,address,address,uint256,uint256,uint256,uint256,uint256,address)");

    TokenSpender internal spender;
    SwapRouter internal router;

    address internal protocolRecipient = address(0xFEE1);
    address internal integratorRecipient = address(0xFEE2);
    /// @notice Bystanders: bob approved the spender for everything, carol approved the router itself (a mistake
    ///         users make); neither ever calls. Their balances must never move.
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA201);

    /// @dev Every token a suite uses (balances checked on the router, the spender and the bystanders).
    address[] internal tokens;
    /// @dev Every contract the router might approve (pools, vaults, sources): allowances must be back to zero.
    address[] internal approvalTargets;
    /// @dev Tokens whose transfers deliver less than sent: balance deltas are bounded instead of exact.
    mapping(address => bool) internal lossyTransfers;

    struct SwapOutcome {
        bool ok;
        bytes revertData;
        uint256 amountOut;
        uint256 gross;
        uint256 protocolFee;
        uint256 integratorFee;
        /// @dev What the account's balance of tokenOut actually gained.
        uint256 received;
    }

    function _deployRouter() internal {
        spender = new TokenSpender(address(this));
        router = new SwapRouter(
            address(this), address(weth), venues, address(spender), protocolRecipient, PROTOCOL_FEE_PIPS
        );
        spender.setCaller(address(router), true);
        vm.label(address(router), "SwapRouter");
        vm.label(address(spender), "TokenSpender");
        vm.label(bob, "bob");
        vm.label(carol, "carol");
    }

    function _track(address token) internal {
        tokens.push(token);
    }

    function _trackApprovalTarget(address target) internal {
        approvalTargets.push(target);
    }

    /// @dev Funds the bystanders with every tracked token and has them approve (bob: the spender, carol: the router).
    function _fundBystanders(uint256 amount) internal {
        for (uint256 i; i < tokens.length; ++i) {
            address token = tokens[i];
            _mint(token, bob, amount);
            _mint(token, carol, amount);
            vm.prank(bob);
            _approveMaxFrom(token, address(spender));
            vm.prank(carol);
            _approveMaxFrom(token, address(router));
        }
        vm.deal(bob, 100 ether);
        vm.deal(carol, 100 ether);
    }

    /// @dev The caller is pranked: the approval is the pranked account's.
    function _approveMaxFrom(address token, address to) internal {
        (bool ok,) = token.call(abi.encodeWithSelector(IERC20.approve.selector, to, type(uint256).max));
        require(ok, "approve");
    }

    function _balanceOf(address token, address account) internal view returns (uint256) {
        if (token == NATIVE) return account.balance;
        return IERC20(token).balanceOf(account);
    }

    // ---- routes ----

    function _hop(uint8 kind, address tokenOut, uint24 fee, address target, bytes memory data)
        internal
        pure
        returns (Hop memory)
    {
        return Hop(kind, tokenOut, fee, target, data);
    }

    function _v2Hop(address tokenOut) internal pure returns (Hop memory) {
        return Hop(0, tokenOut, 0, address(0), "");
    }

    function _v3Hop(address tokenOut) internal pure returns (Hop memory) {
        return Hop(1, tokenOut, 3000, address(0), "");
    }

    function _sushiHop(address tokenOut) internal pure returns (Hop memory) {
        return Hop(3, tokenOut, 0, address(0), "");
    }

    function _v4Hop(address tokenOut) internal pure returns (Hop memory) {
        return Hop(4, tokenOut, 3000, address(0), abi.encode(int24(60)));
    }

    function _balancerHop(address tokenOut, bytes32 poolId) internal pure returns (Hop memory) {
        return Hop(5, tokenOut, 0, address(0), abi.encode(poolId));
    }

    function _stableHop(address tokenOut, address pool) internal pure returns (Hop memory) {
        return Hop(6, tokenOut, 0, pool, "");
    }

    function _hops(Hop memory a) internal pure returns (Hop[] memory hops) {
        hops = new Hop[](1);
        hops[0] = a;
    }

    function _hops(Hop memory a, Hop memory b) internal pure returns (Hop[] memory hops) {
        hops = new Hop[](2);
        (hops[0], hops[1]) = (a, b);
    }

    function _single(Hop memory a) internal pure returns (Path[] memory paths) {
        paths = new Path[](1);
        paths[0] = Path(1, _hops(a));
    }

    function _params(
        address account,
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 minAmountOut,
        Path[] memory paths
    ) internal view returns (SwapRouter.SwapParams memory) {
        return SwapRouter.SwapParams(
            account, tokenIn, tokenOut, amountIn, minAmountOut, block.timestamp + 60, 0, address(0), paths
        );
    }

    // ---- the checked swap ----

    /// @dev Gives `account` the input (minted and approved to the spender, or as native coin) and swaps as it.
    function _fundAndSwap(address account, SwapRouter.SwapParams memory p) internal returns (SwapOutcome memory) {
        uint256 value;
        if (p.tokenIn == NATIVE) {
            vm.deal(account, account.balance + p.amountIn);
            value = p.amountIn;
        } else {
            _mint(p.tokenIn, account, p.amountIn);
            vm.prank(account);
            _approveMaxFrom(p.tokenIn, address(spender));
        }
        return _swapChecked(account, p, value);
    }

    struct Before {
        uint256 accountIn;
        uint256 accountOut;
        uint256 protocol;
        uint256 integrator;
        bytes32 bystanders;
    }

    /// @dev Swaps as `account` and asserts the swap's promises whether it succeeds or reverts.
    function _swapChecked(address account, SwapRouter.SwapParams memory p, uint256 value)
        internal
        returns (SwapOutcome memory o)
    {
        address feeToken = p.tokenOut == NATIVE ? address(weth) : p.tokenOut;
        Before memory b = Before(
            _balanceOf(p.tokenIn, account),
            _balanceOf(p.tokenOut, account),
            _balanceOf(feeToken, protocolRecipient),
            _balanceOf(feeToken, integratorRecipient),
            _bystanderState()
        );

        vm.recordLogs();
        vm.prank(account);
        try router.swap{value: value}(p) returns (uint256 out) {
            o.ok = true;
            o.amountOut = out;
        } catch (bytes memory err) {
            o.revertData = err;
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();

        if (o.ok) {
            _readSwapped(o, logs);
            o.received = _balanceOf(p.tokenOut, account) - b.accountOut;
            _checkSuccess(o, p, b, account, feeToken);
        } else {
            vm.assertEq(_balanceOf(p.tokenIn, account), b.accountIn, "failed swap: input untouched");
            vm.assertEq(_balanceOf(p.tokenOut, account), b.accountOut, "failed swap: output untouched");
        }
        _assertNothingHeld();
        vm.assertEq(_bystanderState(), b.bystanders, "bystanders untouched");
    }

    function _checkSuccess(
        SwapOutcome memory o,
        SwapRouter.SwapParams memory p,
        Before memory b,
        address account,
        address feeToken
    ) private view {
        vm.assertEq(o.amountOut, o.gross - o.protocolFee - o.integratorFee, "amountOut = gross - fees");
        vm.assertGe(o.amountOut, p.minAmountOut, "amountOut >= minAmountOut");
        vm.assertEq(o.protocolFee, (o.gross * router.protocolFeePips()) / 1_000_000, "protocol fee formula");
        vm.assertEq(o.integratorFee, (o.gross * p.integratorFeeBps) / 10_000, "integrator fee formula");
        vm.assertLe(o.protocolFee, o.gross / 100, "protocol fee <= 1%");
        vm.assertLe(o.integratorFee, o.gross / 100, "integrator fee <= 1%");
        uint256 protocolGot = _balanceOf(feeToken, protocolRecipient) - b.protocol;
        uint256 integratorGot = _balanceOf(feeToken, integratorRecipient) - b.integrator;
        // Checked against the account's receipt by the router, for tokens that take a cut in transfer too.
        vm.assertGe(o.received, p.minAmountOut, "account receives >= minAmountOut");
        if (lossyTransfers[feeToken]) {
            vm.assertLe(o.received, o.amountOut, "account gets at most amountOut");
            vm.assertLe(protocolGot, o.protocolFee, "protocol recipient gets at most its fee");
            vm.assertLe(integratorGot, o.integratorFee, "integrator recipient gets at most its fee");
        } else {
            vm.assertEq(o.received, o.amountOut, "account receives amountOut");
            vm.assertEq(protocolGot, o.protocolFee, "protocol recipient gets its fee");
            vm.assertEq(integratorGot, o.integratorFee, "integrator recipient gets its fee");
        }
        vm.assertEq(b.accountIn - _balanceOf(p.tokenIn, account), p.amountIn, "account pays exactly amountIn");
    }

    function _readSwapped(SwapOutcome memory o, Vm.Log[] memory logs) private view {
        for (uint256 i = logs.length; i > 0; --i) {
            Vm.Log memory log = logs[i - 1];
            if (log.emitter != address(router) || log.topics[0] != SWAPPED_TOPIC) continue;
            uint256 amountOut;
            (, o.gross, o.protocolFee, o.integratorFee, amountOut,) =
                abi.decode(log.data, (uint256, uint256, uint256, uint256, uint256, address));
            vm.assertEq(amountOut, o.amountOut, "Swapped.amountOut = returned");
            return;
        }
        revert("no Swapped event");
    }

    /// @dev The router and the spender hold no token, no native coin and no allowance to any venue.
    function _assertNothingHeld() internal view {
        vm.assertEq(address(router).balance, 0, "router holds no native coin");
        vm.assertEq(address(spender).balance, 0, "spender holds no native coin");
        vm.assertEq(weth.balanceOf(address(router)), 0, "router holds no WETH");
        vm.assertEq(weth.balanceOf(address(spender)), 0, "spender holds no WETH");
        for (uint256 i; i < tokens.length; ++i) {
            IERC20 token = IERC20(tokens[i]);
            vm.assertEq(token.balanceOf(address(router)), 0, "router holds no token");
            vm.assertEq(token.balanceOf(address(spender)), 0, "spender holds no token");
            for (uint256 j; j < approvalTargets.length; ++j) {
                vm.assertEq(token.allowance(address(router), approvalTargets[j]), 0, "router leaves no allowance");
            }
        }
        for (uint256 j; j < approvalTargets.length; ++j) {
            vm.assertEq(weth.allowance(address(router), approvalTargets[j]), 0, "router leaves no WETH allowance");
        }
    }

    /// @dev A hash of everything the bystanders hold.
    function _bystanderState() internal view returns (bytes32 h) {
        h = keccak256(abi.encode(bob.balance, carol.balance, weth.balanceOf(bob), weth.balanceOf(carol)));
        for (uint256 i; i < tokens.length; ++i) {
            h = keccak256(abi.encode(h, IERC20(tokens[i]).balanceOf(bob), IERC20(tokens[i]).balanceOf(carol)));
        }
    }

    /// @dev UniswapV2Library.getAmountOut on the factory's pair.
    function _v2Quote(address factory, address tokenIn, address tokenOut, uint256 amountIn)
        internal
        view
        returns (uint256)
    {
        (bool ok, bytes memory data) =
            factory.staticcall(abi.encodeWithSignature("getPair(address,address)", tokenIn, tokenOut));
        require(ok, "getPair");
        address pair = abi.decode(data, (address));
        (ok, data) = pair.staticcall(abi.encodeWithSignature("getReserves()"));
        require(ok, "getReserves");
        (uint112 r0, uint112 r1,) = abi.decode(data, (uint112, uint112, uint32));
        (uint256 reserveIn, uint256 reserveOut) =
            tokenIn < tokenOut ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        uint256 withFee = amountIn * 997;
        return (withFee * reserveOut) / (reserveIn * 1000 + withFee);
    }
}
