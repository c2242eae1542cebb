// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {OrderFixture} from "./utils/OrderFixture.sol";
import {TestBase} from "./utils/TestBase.sol";
import {IUniswapV2Factory, IUniswapV2Pair} from "./utils/VenueInterfaces.sol";
import {Reverter, ShortFeed} from "./mocks/BrokenSources.sol";
import {ContractMaker} from "./mocks/ContractMaker.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";

/// @notice What the invariant fuzzer calls; each action is forwarded to the suite, which owns the world.
contract OrderExecutorHandler is TestBase {
    OrderExecutorInvariantTest internal immutable suite;

    constructor(OrderExecutorInvariantTest suite_) {
        suite = suite_;
    }

    /// @notice The executor sends an adversarial batch (checked order by order).
    function batch(uint256 seed) external {
        suite.runBatch(seed);
    }

    /// @notice The executor (or anyone) trades a pool away from the feeds' price, then sends a batch.
    function moveThenBatch(uint256 seed, uint256 amount) external {
        suite.movePool(seed, amount);
        suite.runBatch(seed >> 8);
    }

    /// @notice The market moves: a feed changes by up to ±20%.
    function moveFeed(uint256 seed, uint256 bps) external {
        suite.moveFeed(seed, bps);
    }

    /// @notice A maker changes what it holds or allows, or its wallet starts misbehaving.
    function makerChanges(uint256 seed) external {
        suite.makerChanges(seed);
    }

    /// @notice A token's price source breaks (no code, short answers, reverts shaped as the executor's errors),
    ///      or is restored.
    function breakSource(uint256 seed) external {
        suite.breakSource(seed);
    }

    function wait(uint256 seconds_) external {
        suite.wait(seconds_);
    }
}

/// @notice Invariants of the OrderExecutor under an adversarial executor, moving markets and price sources that
///         break and come back: every batch is checked by executeChecked
///         (no revert; one outcome per order; ids executed once; each execution signed for its pair, integrator and
///         deviation, at least its minimum and the bound, fee within the cap; each maker's and the fee collector's
///         balances moved exactly as the executions say, so failed orders moved nothing and shares add up; the
///         contract keeps nothing), and the bystander who approved but never signed never loses.
contract OrderExecutorInvariantTest is OrderFixture {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    OrderExecutorHandler internal handler;
    uint256[] internal bystanderAtStart;

    modifier onlyHandler() {
        require(msg.sender == address(handler), "handler only");
        _;
    }

    function setUp() public {
        _deployOrderWorld(false);
        handler = new OrderExecutorHandler(this);
        for (uint256 t; t < tokens.length; ++t) {
            bystanderAtStart.push(_held(bystander, tokens[t]));
        }
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory selectors) {
        bytes4[] memory fns = new bytes4[](7);
        fns[0] = OrderExecutorHandler.batch.selector;
        fns[1] = OrderExecutorHandler.batch.selector;
        fns[2] = OrderExecutorHandler.moveThenBatch.selector;
        fns[3] = OrderExecutorHandler.moveFeed.selector;
        fns[4] = OrderExecutorHandler.makerChanges.selector;
        fns[5] = OrderExecutorHandler.breakSource.selector;
        fns[6] = OrderExecutorHandler.wait.selector;
        selectors = new FuzzSelector[](1);
        selectors[0] = FuzzSelector(address(handler), fns);
    }

    // ---- actions (through the handler) ----

    function runBatch(uint256 seed) external onlyHandler {
        // One batch in 16 comes after its deadline.
        uint256 deadline = seed % 16 == 0 ? block.timestamp - 1 : block.timestamp + 60;
        executeChecked(_randomBatch(seed), deadline);
    }

    function movePool(uint256 seed, uint256 amount) external onlyHandler {
        address[4] memory bases = [address(usdc), address(weth), address(noBool), address(frozen)];
        address other = bases[seed % 4];
        (address tokenIn, address tokenOut) = (seed >> 2) % 2 == 0 ? (address(dai), other) : (other, address(dai));
        address pair = IUniswapV2Factory(venues.uniswapV2Factory).getPair(tokenIn, tokenOut);
        uint256 reserveIn = IERC20(tokenIn).balanceOf(pair);
        amount = bound(amount, reserveIn / 10_000 + 1, reserveIn / 3);
        (uint112 r0, uint112 r1,) = IUniswapV2Pair(pair).getReserves();
        (uint256 rIn, uint256 rOut) = tokenIn < tokenOut ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        uint256 out = (amount * 997 * rOut) / (rIn * 1000 + amount * 997);
        _mint(tokenIn, pair, amount);
        IUniswapV2Pair(pair).swap(tokenIn < tokenOut ? 0 : out, tokenIn < tokenOut ? out : 0, executor, "");
    }

    function moveFeed(uint256 seed, uint256 bps) external onlyHandler {
        address token = tokens[seed % tokens.length];
        int256 answer = feedOf[token].answer();
        int256 change = (answer * int256(bound(bps, 0, 4_000))) / 10_000 - answer / 5;
        if (answer + change > 0) feedOf[token].set(answer + change, block.timestamp);
    }

    function makerChanges(uint256 seed) external onlyHandler {
        address maker = makers[seed % makers.length];
        // The bystander keeps its stock and its approvals untouched: the invariant watches it.
        if (maker == bystander) return;
        uint256 what = (seed >> 8) % 5;
        address token = tokens[(seed >> 16) % tokens.length];
        if (what == 0) {
            frozen.setBlacklisted(maker, false);
            _fundMaker(maker);
        } else if (what == 1 && maker.code.length == 0) {
            // Allow only part of the stock (or nothing).
            vm.prank(maker);
            (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", address(oe), 0));
            require(ok, "approve 0");
            vm.prank(maker);
            (ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", address(oe), (seed >> 24) % 1e24));
            require(ok, "approve");
        } else if (what == 2) {
            frozen.setBlacklisted(maker, !frozen.isBlacklisted(maker));
        } else if (what == 3) {
            wallet.setModes(ContractMaker.SignatureMode((seed >> 24) % 3), ContractMaker.ReceiveMode((seed >> 32) % 4));
        } else if (maker.code.length == 0) {
            // Spend most of one token elsewhere.
            uint256 held = IERC20(token).balanceOf(maker);
            vm.prank(maker);
            // A frozen maker cannot: that is fine too.
            (bool ok,) =
                token.call(abi.encodeWithSignature("transfer(address,uint256)", address(0xdead), (held * 9) / 10));
            ok;
        }
    }

    /// @dev Half the time the token's own feed comes back; otherwise its source becomes a broken one.
    function breakSource(uint256 seed) external onlyHandler {
        address token = tokens[seed % tokens.length];
        uint256 kind = (seed >> 8) % 6;
        address source = address(feedOf[token]);
        if (kind == 3) source = address(uint160(uint256(keccak256(abi.encode("no code", seed)))));
        if (kind == 4) source = address(new ShortFeed());
        if (kind == 5) {
            source = address(
                new Reverter(
                    abi.encodeWithSelector(OrderExecutor.OrderRejected.selector, 0, seed % 15, new uint256[](0))
                )
            );
        }
        oracle.setOracle(token, oracle.ORACLE_USD_FEED(), source);
    }

    /// @dev Time passes; the feeds report again (one in eight waits leaves them stale).
    function wait(uint256 seconds_) external onlyHandler {
        vm.warp(block.timestamp + bound(seconds_, 1, 2 days));
        if (seconds_ % 8 == 0) return;
        for (uint256 t; t < tokens.length; ++t) {
            feedOf[tokens[t]].set(feedOf[tokens[t]].answer(), block.timestamp);
        }
    }

    // ---- invariants ----

    function invariant_NoBrokenPromise() public view {
        vm.assertEq(violations, 0, firstViolation);
    }

    function invariant_ExecutorKeepsNothing() public view {
        vm.assertEq(address(oe).balance, 0, "no native coin");
        for (uint256 t; t < tokens.length; ++t) {
            vm.assertEq(IERC20(tokens[t]).balanceOf(address(oe)), 0, "no token");
        }
    }

    function invariant_BystanderNeverLoses() public view {
        for (uint256 t; t < tokens.length; ++t) {
            vm.assertEq(_held(bystander, tokens[t]), bystanderAtStart[t], "the bystander's balance");
        }
    }

    /// @dev The handler's batches are not vacuous: from the start state they both execute and fail orders.
    function test_HandlerBatchesExecuteAndFail() public {
        for (uint256 i; i < 20; ++i) {
            handler.batch(uint256(keccak256(abi.encode("batch", i))));
        }
        vm.assertGt(executedCount, 0, "some orders executed");
        vm.assertGt(failedCount, 0, "some orders failed");
        vm.assertEq(violations, 0, firstViolation);
    }
}
