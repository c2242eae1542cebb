// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {OrderFixture} from "./utils/OrderFixture.sol";
import {IUniswapV2Factory, IUniswapV2Pair} from "./utils/VenueInterfaces.sol";
import {BigDecimalsFeed, Reverter, ShortFeed} from "./mocks/BrokenSources.sol";
import {ContractMaker} from "./mocks/ContractMaker.sol";
import {MockAggregator} from "./mocks/MockAggregator.sol";
import {Hop, Path} from "../src/RouteTypes.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";
import {PriceBound} from "../src/PriceBound.sol";
import {PriceOracle} from "../src/PriceOracle.sol";
import {TestExternalSource} from "../src/test/TestExternalSource.sol";

/// @notice OrderExecutor, order by order: authorization (EIP-712 / ERC-1271, pair, integrator, deviation), the
///         fee cap, ids that execute once, the price bound from the PriceOracle's USD feeds against an executor that
///         routes through its own pools or moves the pool first, broken sources (no bound, never a reverted batch),
///         failures that stay with their maker (pull, payout, signature) and those that fail the whole group (a
///         swap's revert, whatever bytes it carries; a fee collector the token refuses), native payouts with the
///         WETH fallback, and the token shapes. Every batch runs through executeChecked, which checks all of the
///         contract's promises on top of each test's own assertions.
contract OrderExecutorTest is OrderFixture {
    function setUp() public {
        _deployOrderWorld(false);
    }

    function _run(OrderExecutor.Group[] memory groups) internal {
        executeChecked(groups, block.timestamp + 100);
        _assertNoViolation();
    }

    function _group(uint256 p, OrderExecutor.Order[] memory orders) internal view returns (OrderExecutor.Group memory) {
        return OrderExecutor.Group(pairs[p].tokenIn, pairs[p].tokenOut, _honestPaths(pairs[p]), orders);
    }

    function _orders(OrderExecutor.Order memory a) internal pure returns (OrderExecutor.Order[] memory o) {
        o = new OrderExecutor.Order[](1);
        o[0] = a;
    }

    function _orders(OrderExecutor.Order memory a, OrderExecutor.Order memory b)
        internal
        pure
        returns (OrderExecutor.Order[] memory o)
    {
        o = new OrderExecutor.Order[](2);
        (o[0], o[1]) = (a, b);
    }

    /// @dev Between 1 and 10,000 USD of pair p's input (0.1% of the pools at most: inside every maker's deviation).
    function _smallAmount(uint256 p, uint256 seed) internal view returns (uint256) {
        uint256 unit = 10 ** _decimals(pairs[p].tokenIn);
        if (pairs[p].tokenIn == address(weth)) unit /= 3000;
        return bound(seed, unit, unit * 10_000);
    }

    function _orders(OrderExecutor.Order memory a, OrderExecutor.Order memory b, OrderExecutor.Order memory c)
        internal
        pure
        returns (OrderExecutor.Order[] memory o)
    {
        o = new OrderExecutor.Order[](3);
        (o[0], o[1], o[2]) = (a, b, c);
    }

    // ---- the signed message and the id ----

    function test_TypedDataAndOrderId() public view {
        vm.assertEq(
            oe.PAIR_AUTHORIZATION_TYPEHASH(),
            keccak256(
                "PairAuthorization(address maker,address tokenIn,address tokenOut,bytes32 integrator,uint16 maxDeviationBps,uint16 maxFeeBps)"
            ),
            "type hash"
        );
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("TradeAggregationService"),
                keccak256("1"),
                block.chainid,
                address(oe)
            )
        );
        vm.assertEq(oe.domainSeparator(), domain, "domain separator");
        vm.assertEq(
            oe.orderId(makers[0], address(dai), address(usdc), INTEGRATOR_A, bytes32(uint256(7)), 1e18, 42),
            keccak256(
                abi.encode(makers[0], address(dai), address(usdc), INTEGRATOR_A, bytes32(uint256(7)), 1e18, uint256(42))
            ),
            "order id"
        );
    }

    /// @dev The executor needs an oracle and a deviation in (0, MAX_DEVIATION_BPS_LIMIT]; the oracle a WETH and a
    ///      TWAP window of at least its minimum; the executor reads the oracle it was given.
    function test_PriceConfigIsChecked() public {
        vm.assertEq(address(oe.priceOracle()), address(oracle), "the executor's oracle");
        vm.assertEq(oe.maxDeviationBps(), MAX_DEVIATION_BPS, "the executor's deviation");
        uint16[3] memory badDeviations = [uint16(0), oe.MAX_DEVIATION_BPS_LIMIT() + 1, type(uint16).max];
        for (uint256 i; i < badDeviations.length; ++i) {
            vm.expectRevert(PriceBound.BadPriceBoundConfig.selector);
            new OrderExecutor(address(this), address(weth), venues, feeCollector, MAX_FEE_BPS, oracle, badDeviations[i]);
        }
        vm.expectRevert(PriceBound.BadPriceBoundConfig.selector);
        new OrderExecutor(
            address(this), address(weth), venues, feeCollector, MAX_FEE_BPS, PriceOracle(address(0)), MAX_DEVIATION_BPS
        );
        PriceOracle.OracleConfig[4] memory bad = [
            PriceOracle.OracleConfig(0, 0, 1 days),
            PriceOracle.OracleConfig(1800, 0, 1 days),
            PriceOracle.OracleConfig(60, 1800, 1 days),
            PriceOracle.OracleConfig(1800, 60, 1 days)
        ];
        for (uint256 i; i < bad.length; ++i) {
            vm.expectRevert(PriceOracle.BadOracleConfig.selector);
            // The last config is fine but WETH is missing.
            new PriceOracle(address(this), i == 3 ? address(0) : address(weth), address(0), bad[i]);
        }
    }

    // ---- honest orders ----

    /// @dev Every signed order of a market-priced pool executes, above its bound, for EOAs and ERC-1271 wallets.
    function testFuzz_SignedOrderExecutesAboveTheBound(uint256 amountSeed, uint256 feeSeed, uint8 p, uint8 m) public {
        p = uint8(bound(p, 0, 8));
        address maker = [makers[0], makers[1], makers[2], address(wallet)][m % 4];
        uint256 amountIn = _smallAmount(p, amountSeed);
        uint256 fee = bound(feeSeed, 0, _maxFee(amountIn));
        OrderExecutor.Group memory g = _group(p, _orders(_signedOrder(maker, p, amountIn, fee, bytes32("r"))));
        uint256 collected = IERC20(pairs[p].tokenIn).balanceOf(feeCollector);
        _run(_one(g));
        vm.assertTrue(_executed(g, 0), string.concat("executed; failure: ", _failure(g, 0)));
        vm.assertEq(IERC20(pairs[p].tokenIn).balanceOf(feeCollector) - collected, fee, "fee collector got the fee");
        uint256 bound_ = oe.minimumAtBound(amountIn, oe.priceBound(g.tokenIn, g.tokenOut), devOf[maker]);
        vm.assertGe(_paid(g, 0), bound_, "paid at least the bound");
    }

    /// @dev One group's output split pro rata to the inputs, the last order taking the remainder; all of it paid.
    function testFuzz_GroupSharesAddUpToTheOutput(uint256 a0, uint256 a1, uint256 a2) public {
        uint256[3] memory amounts = [bound(a0, 1e18, 5_000e18), bound(a1, 1e18, 5_000e18), bound(a2, 1e18, 5_000e18)];
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](3);
        for (uint256 i; i < 3; ++i) {
            orders[i] = _signedOrder(makers[i], 0, amounts[i], 0, bytes32("split"));
        }
        OrderExecutor.Group memory g = _group(0, orders);
        address pair = IUniswapV2Factory(venues.uniswapV2Factory).getPair(address(dai), address(usdc));
        uint256 poolUsdc = usdc.balanceOf(pair);
        _run(_one(g));
        uint256 gross = poolUsdc - usdc.balanceOf(pair);
        uint256 total = amounts[0] + amounts[1] + amounts[2];
        uint256 sum;
        for (uint256 i; i < 3; ++i) {
            vm.assertTrue(_executed(g, i), "executed");
            if (i < 2) vm.assertEq(_paid(g, i), (gross * amounts[i]) / total, "pro rata share");
            sum += _paid(g, i);
        }
        vm.assertEq(sum, gross, "shares add up to the group's output");
    }

    // ---- fee cap ----

    function testFuzz_FeeAboveTheCapFails(uint256 amountSeed, uint256 extra) public {
        uint256 amountIn = _smallAmount(0, amountSeed);
        uint256 fee = _maxFee(amountIn) + bound(extra, 1, amountIn);
        OrderExecutor.Group memory g = _group(0, _orders(_signedOrder(makers[0], 0, amountIn, fee, bytes32("f"))));
        _run(_one(g));
        vm.assertFalse(_executed(g, 0), "not executed");
        vm.assertEq(_failure(g, 0), "FEE_TOO_HIGH", "reason");
    }

    // ---- ids and the executed bitmap ----

    /// @dev The same order twice in a group, again in a second group, and again in a later batch: one execution.
    ///      Another order under the spent index (another amount, another maker) fails ALREADY_EXECUTED too; the same
    ///      ref and amount under a new index is another order.
    function testFuzz_AnIndexExecutesOnce(uint256 amountSeed, bytes32 ref, uint64 index) public {
        uint256 amountIn = _smallAmount(0, amountSeed);
        OrderExecutor.Order memory o = _signedOrder(makers[1], 0, amountIn, 0, ref);
        o.index = index;
        OrderExecutor.Group[] memory groups = new OrderExecutor.Group[](2);
        groups[0] = _group(0, _orders(o, o));
        groups[1] = _group(0, _orders(o));
        _run(groups);
        vm.assertTrue(_executed(groups[0], 0), "executed once");
        vm.assertTrue(oe.isExecuted(index), "its index is spent");
        vm.assertEq(executedCount, 1, "exactly one execution");
        vm.assertEq(_failure(groups[0], 1), "ALREADY_EXECUTED", "the copy in the group fails");
        vm.assertEq(_failure(groups[1], 0), "ALREADY_EXECUTED", "the copy in the next group fails");
        _run(_one(groups[1]));
        vm.assertEq(executedCount, 1, "a later batch cannot replay it");
        OrderExecutor.Order memory other = _signedOrder(makers[2], 0, amountIn + 1, 0, ref);
        other.index = index;
        OrderExecutor.Group memory g = _group(0, _orders(other));
        _run(_one(g));
        vm.assertEq(_failure(g, 0), "ALREADY_EXECUTED", "another order under the spent index fails");
        vm.assertEq(executedCount, 1, "and moves nothing");
        o.index = index ^ 1;
        _run(_one(_group(0, _orders(o))));
        vm.assertEq(executedCount, 2, "same ref and amount, new index: another order");
    }

    /// @dev Two orders of different makers under one index in one group: the first executes, the second fails
    ///      ALREADY_EXECUTED alone and moves nothing; the group's other orders execute.
    function testFuzz_SameIndexTwiceInABatchFailsTheSecondAlone(uint64 index, uint256 a0, uint256 a1, uint256 a2)
        public
    {
        OrderExecutor.Order memory first = _signedOrder(makers[0], 0, _smallAmount(0, a0), 0, "first");
        OrderExecutor.Order memory second = _signedOrder(makers[1], 0, _smallAmount(0, a1), 0, "second");
        OrderExecutor.Order memory bystanderOrder = _signedOrder(makers[2], 0, _smallAmount(0, a2), 0, "third");
        (first.index, second.index) = (index, index);
        if (bystanderOrder.index == index) bystanderOrder.index = index ^ 1;
        uint256 held = dai.balanceOf(makers[1]);
        OrderExecutor.Group memory g = _group(0, _orders(first, second, bystanderOrder));
        _run(_one(g));
        vm.assertTrue(_executed(g, 0), "the first executes");
        vm.assertEq(_failure(g, 1), "ALREADY_EXECUTED", "the second fails");
        vm.assertEq(dai.balanceOf(makers[1]), held, "the second moves nothing");
        vm.assertTrue(_executed(g, 2), "the group's other order executes");
        vm.assertEq(executedCount, 2, "two executions");
    }

    /// @dev A group that fails as a whole (its fee-on-transfer input arrives short), and one whose orders wait for
    ///      the next batch (RETRY_LIMIT), leave their orders' bits clear: the same orders execute later.
    function testFuzz_AFailedGroupLeavesItsBitsClear(uint256 a0, uint256 a1, uint256 amountSeed) public {
        OrderExecutor.Group memory short_ = _group(
            9,
            _orders(
                _signedOrder(makers[0], 9, _smallAmount(9, a0), 0, bytes32("fot")),
                _signedOrder(makers[1], 9, _smallAmount(9, a1), 0, bytes32("fot"))
            )
        );
        _run(_one(short_));
        vm.assertEq(_failure(short_, 0), "TRANSFER_IN_FAILED", "the group fails");
        vm.assertFalse(oe.isExecuted(short_.orders[0].index), "bit clear");
        vm.assertFalse(oe.isExecuted(short_.orders[1].index), "bit clear");

        // Five makers that cannot be paid and one good order: the good one waits (RETRY_LIMIT), its bit clear.
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](6);
        for (uint256 i; i < 5; ++i) {
            address maker = vm.addr(0xD00 + i);
            keyOf[maker] = 0xD00 + i;
            _fundMaker(maker);
            frozen.setBlacklisted(maker, true);
            orders[i] = _order(
                maker, 0, INTEGRATOR_A, 0, 1e18, 0, 0, _signAs(maker, address(dai), address(frozen), INTEGRATOR_A, 0)
            );
            makers.push(maker);
        }
        orders[5] = _signedOrder(makers[0], 8, _smallAmount(8, amountSeed), 0, bytes32("waits"));
        OrderExecutor.Group memory waits = _group(8, orders);
        _run(_one(waits));
        vm.assertEq(_failure(waits, 5), "RETRY_LIMIT", "the good order waits");
        vm.assertFalse(oe.isExecuted(orders[5].index), "its bit is clear");
        for (uint256 i; i < 5; ++i) {
            vm.assertFalse(oe.isExecuted(orders[i].index), "a rejected order's bit is clear");
        }

        // Next batch: the waiting order executes.
        _run(_one(_group(8, _orders(orders[5]))));
        vm.assertTrue(_executed(waits, 5), "the waiting order executes under its index");
    }

    /// @dev Setting one index's bit leaves every other bit as it was: its neighbours in the word and across the
    ///      word's boundary, and the bits of orders executed in the same batch.
    function testFuzz_ABitDoesNotTouchItsNeighbours(uint64 seed, uint8 gap, uint256 a0, uint256 a1) public {
        uint64 index = uint64(bound(seed, 1, type(uint64).max - 300));
        uint64 other = index + 1 + uint64(gap);
        OrderExecutor.Order memory o0 = _signedOrder(makers[0], 0, _smallAmount(0, a0), 0, "n0");
        OrderExecutor.Order memory o1 = _signedOrder(makers[1], 0, _smallAmount(0, a1), 0, "n1");
        (o0.index, o1.index) = (index, other);
        _run(_one(_group(0, _orders(o0, o1))));
        vm.assertTrue(oe.isExecuted(index) && oe.isExecuted(other), "both bits set");
        vm.assertFalse(oe.isExecuted(index - 1), "the one before");
        vm.assertFalse(oe.isExecuted(other + 1), "the one after");
        for (uint64 i = index + 1; i < other; ++i) {
            vm.assertFalse(oe.isExecuted(i), "the ones between");
        }
        // The first and last bits of a word, and the word after.
        uint64 base = ((other >> 8) + 2) << 8;
        OrderExecutor.Order memory o2 = _signedOrder(makers[2], 0, _smallAmount(0, a0 >> 1), 0, "n2");
        OrderExecutor.Order memory o3 = _signedOrder(makers[0], 0, _smallAmount(0, a1 >> 1), 0, "n3");
        (o2.index, o3.index) = (base + 255, base + 256);
        _run(_one(_group(0, _orders(o2, o3))));
        vm.assertTrue(oe.isExecuted(base + 255) && oe.isExecuted(base + 256), "the word's last bit, the next's first");
        vm.assertFalse(oe.isExecuted(base + 254) || oe.isExecuted(base + 257), "their neighbours");
        vm.assertFalse(oe.isExecuted(base), "the word's first bit");
        vm.assertTrue(oe.isExecuted(index) && oe.isExecuted(other), "the earlier bits stay");
    }

    /// @dev Makers who cannot pay (no balance, no allowance: free to arrange at any time, even just before the batch
    ///      lands) fail in place with their precise reason, without a retry: however many there are, the group's
    ///      other orders execute (no RETRY_LIMIT), and each costs the batch a bounded amount of gas.
    function testFuzz_MakersWhoCannotPayFailInPlace(uint8 count, uint256 amountSeed) public {
        uint256 bad = bound(count, oe.MAX_GROUP_RETRIES() + 1, 12);
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](bad + 1);
        for (uint256 i; i < bad; ++i) {
            address maker = vm.addr(0xE00 + i);
            keyOf[maker] = 0xE00 + i;
            _fundMaker(maker);
            makers.push(maker);
            if (i % 2 == 0) {
                vm.prank(maker);
                dai.approve(address(oe), 0);
            } else {
                uint256 held = dai.balanceOf(maker);
                vm.prank(maker);
                dai.transfer(address(0xdead), held);
            }
            bytes memory signature = _signAs(maker, address(dai), address(usdc), INTEGRATOR_A, 0);
            orders[i] = _order(maker, bytes32(i), INTEGRATOR_A, 0, 1e18, 0, 0, signature);
        }
        orders[bad] = _signedOrder(makers[0], 0, _smallAmount(0, amountSeed), 0, bytes32("ok"));
        OrderExecutor.Group memory g = _group(0, orders);
        uint256 gasBefore = gasleft();
        _run(_one(g));
        // The figure includes executeChecked's own checks and its encoding of the call (about 100k of the base).
        vm.assertLt(gasBefore - gasleft(), 1_100_000 + bad * 60_000, "bounded gas per failing maker");
        for (uint256 i; i < bad; ++i) {
            vm.assertEq(
                _failure(g, i), i % 2 == 0 ? "INSUFFICIENT_ALLOWANCE" : "INSUFFICIENT_BALANCE", "each fails alone"
            );
            vm.assertFalse(oe.isExecuted(orders[i].index), "its bit clear");
        }
        vm.assertTrue(_executed(g, bad), "the good order executes");
    }

    // ---- authorization ----

    /// @dev A signature works only for the maker, pair, integrator, deviation and fee cap it signed.
    function testFuzz_AuthorizationBindsMakerPairIntegratorDeviationAndFeeCap(uint256 amountSeed, uint8 tamper)
        public
    {
        uint256 amountIn = _smallAmount(0, amountSeed);
        address maker = makers[1];
        OrderExecutor.Order memory o = _signedOrder(maker, 0, amountIn, 0, bytes32("auth"));
        OrderExecutor.Group memory g = _group(0, _orders(o));
        tamper %= 9;
        if (tamper == 0) g.orders[0].integrator = INTEGRATOR_B; // maker 1 signed only integrator A
        if (tamper == 1) g.orders[0].maxDeviationBps = devOf[maker] + 1;
        if (tamper == 2) g.orders[0].maker = makers[2]; // maker 1's signature for maker 2's funds
        if (tamper == 3) g.orders[0].maker = bystander; // never signed anything
        if (tamper == 4) (g.tokenIn, g.tokenOut) = (address(usdc), address(dai)); // reversed pair
        if (tamper == 5) g.tokenOut = address(weth); // signed DAI -> native, not DAI -> WETH
        if (tamper == 6) g.orders[0].signature[10] ^= 0x01;
        if (tamper == 7) g.orders[0].maxFeeBps = MAX_FEE_BPS + 1; // a cap the maker did not accept
        if (tamper == 8) g.orders[0].maxFeeBps = MAX_FEE_BPS - 1; // lower, yet not what it signed
        if (tamper == 5 || tamper == 4) g.paths = _honestPaths(Pair(g.tokenIn, g.tokenOut));
        _run(_one(g));
        vm.assertFalse(_executed(g, 0), "not executed");
        vm.assertEq(_failure(g, 0), "BAD_SIGNATURE", "reason");
    }

    function testFuzz_OnlyRegisteredExecutorsAndTheOwner(address caller) public {
        vm.assume(caller != executor && caller != address(this));
        OrderExecutor.Group[] memory groups = _one(_group(0, _orders(_signedOrder(makers[0], 0, 1e18, 0, 0))));
        vm.prank(caller);
        vm.expectRevert(OrderExecutor.NotExecutor.selector);
        oe.executeBatch(groups, block.timestamp);
        vm.prank(caller);
        vm.expectRevert();
        oe.setExecutor(caller, true);
        uint8 feedKind = oracle.ORACLE_USD_FEED();
        vm.prank(caller);
        vm.expectRevert();
        oracle.setOracle(address(dai), feedKind, caller);
        vm.prank(caller);
        vm.expectRevert(OrderExecutor.NotSelf.selector);
        oe.settleGroup(address(dai), address(usdc), 1, new Path[](0), "");
        vm.prank(caller);
        vm.expectRevert(OrderExecutor.NotSelf.selector);
        oe.swapPaths(address(dai), address(usdc), 1, new Path[](0));
        uint16 tooHigh = oe.MAX_FEE_BPS_LIMIT() + 1;
        vm.expectRevert(OrderExecutor.BadConfig.selector);
        oe.setMaxFeeBps(tooHigh);
    }

    function testFuzz_DeadlinePassedFailsEveryOrder(uint256 late) public {
        OrderExecutor.Group memory g = _group(0, _orders(_signedOrder(makers[0], 0, 1e18, 0, 0)));
        uint256 deadline = block.timestamp;
        vm.warp(block.timestamp + bound(late, 1, 30 days));
        // Feeds stay fresh: only the deadline can fail the order.
        for (uint256 t; t < tokens.length; ++t) {
            feedOf[tokens[t]].set(feedOf[tokens[t]].answer(), block.timestamp);
        }
        executeChecked(_one(g), deadline);
        _assertNoViolation();
        vm.assertEq(_failure(g, 0), "DEADLINE", "reason");
    }

    // ---- the price bound against the executor ----

    /// @dev Through the executor's own pools (half the market) with minAmountOut 0: refused at the bound. The other
    ///      way round (the executor's pools pay double) the maker simply gets more.
    function testFuzz_ExecutorOwnPoolsCannotUnderpay(uint256 amountSeed, uint8 m) public {
        address maker = makers[m % 3];
        uint256 amountIn = _smallAmount(0, amountSeed);
        OrderExecutor.Group memory g = _group(0, _orders(_signedOrder(maker, 0, amountIn, 0, bytes32("evil"))));
        g.paths = _evilPaths(pairs[0]);
        _run(_one(g));
        vm.assertFalse(_executed(g, 0), "half price refused");
        vm.assertEq(_failure(g, 0), "BELOW_PRICE_BOUND", "reason");

        amountIn = _smallAmount(1, amountSeed);
        g = _group(1, _orders(_signedOrder(maker, 1, amountIn, 0, bytes32("evil"))));
        g.paths = _evilPaths(pairs[1]);
        _run(_one(g));
        vm.assertTrue(_executed(g, 0), "double price executes");
        vm.assertGt(_paid(g, 0), (amountIn * 1e12 * 3) / 2, "the maker gets the executor's gift");
    }

    /// @dev The executor moves the pool first (any size, either way) and sends minAmountOut 0: every order either
    ///      gets at least its bound (checked by executeChecked) or fails with BELOW_PRICE_BOUND.
    function testFuzz_MovedPoolCannotUnderpay(uint256 push, bool pushDown, uint256 a0, uint256 a1) public {
        push = bound(push, 1e18, 5_000_000e18);
        if (pushDown) _pushV2(address(dai), address(usdc), push);
        else _pushV2(address(usdc), address(dai), push / 1e12);
        OrderExecutor.Order memory o0 = _signedOrder(makers[0], 0, _smallAmount(0, a0), 0, bytes32("m0"));
        OrderExecutor.Order memory o1 = _signedOrder(makers[1], 0, _smallAmount(0, a1), 0, bytes32("m1"));
        OrderExecutor.Group memory g = _group(0, _orders(o0, o1));
        _run(_one(g));
        for (uint256 k; k < 2; ++k) {
            vm.assertTrue(_executed(g, k) || _eq(_failure(g, k), "BELOW_PRICE_BOUND"), "executed or below the bound");
        }
    }

    /// @dev Trades on the V2 pair as an outsider: amountIn of tokenIn in, the pair's quote out.
    function _pushV2(address tokenIn, address tokenOut, uint256 amountIn) internal {
        address pair = IUniswapV2Factory(venues.uniswapV2Factory).getPair(tokenIn, tokenOut);
        (uint112 r0, uint112 r1,) = IUniswapV2Pair(pair).getReserves();
        (uint256 rIn, uint256 rOut) = tokenIn < tokenOut ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        uint256 out = (amountIn * 997 * rOut) / (rIn * 1000 + amountIn * 997);
        _mint(tokenIn, pair, amountIn);
        IUniswapV2Pair(pair).swap(tokenIn < tokenOut ? 0 : out, tokenIn < tokenOut ? out : 0, executor, "");
    }

    // ---- price bound from feeds ----

    function testFuzz_PriceBoundFollowsTheFeeds(uint64 answerIn, uint64 answerOut, uint16 makerDev) public {
        answerIn = uint64(bound(answerIn, 1, 1e16));
        answerOut = uint64(bound(answerOut, 1, 1e16));
        feedOf[address(dai)].set(int256(uint256(answerIn)), block.timestamp);
        feedOf[address(usdc)].set(int256(uint256(answerOut)), block.timestamp);
        uint256 price = oe.priceBound(address(dai), address(usdc));
        // usdc base units per dai base unit = answerIn / answerOut / 1e12, in Q128.
        uint256 expected = (uint256(answerIn) << 128) / (uint256(answerOut) * 1e12);
        // Each token's USD price per base unit is itself a Q128 number: relative errors of ~1e-13 at absurd prices.
        vm.assertApproxEqAbs(price, expected, expected / 1e12 + 1, "Q128 price from the feeds");
        uint256 deviation = makerDev != 0 && makerDev < MAX_DEVIATION_BPS ? makerDev : MAX_DEVIATION_BPS;
        uint256 amountIn = 1_000e18;
        uint256 minimum = oe.minimumAtBound(amountIn, price, makerDev);
        uint256 exact = (amountIn * answerIn * (10_000 - deviation)) / (uint256(answerOut) * 1e12 * 10_000);
        vm.assertApproxEqAbs(minimum, exact, exact / 1e12 + 2, "minimum = amount x price x (1 - deviation)");
    }

    /// @dev A feed that is stale, from the future, zero, negative or reverting gives no bound (the view answers 0,
    ///      or reverts for the reverting feed): the orders fail NO_PRICE_BOUND and nothing moves.
    function testFuzz_NoUsableFeedMeansNoExecution(uint8 kind, uint256 age) public {
        kind %= 5;
        vm.warp(block.timestamp + 10 days);
        for (uint256 t; t < tokens.length; ++t) {
            feedOf[tokens[t]].set(feedOf[tokens[t]].answer(), block.timestamp);
        }
        if (kind == 0) feedOf[address(usdc)].set(1e8, block.timestamp - bound(age, 1 days + 1, 10 days));
        if (kind == 1) feedOf[address(usdc)].set(1e8, block.timestamp + bound(age, 1, 1 days));
        if (kind == 2) feedOf[address(dai)].set(0, block.timestamp);
        if (kind == 3) feedOf[address(dai)].set(-int256(bound(age, 1, 1e18)), block.timestamp);
        if (kind == 4) feedOf[address(dai)].setBroken(true);
        vm.assertEq(_boundOrZero(address(dai), address(usdc)), 0, "no bound");
        if (kind == 4) {
            vm.expectRevert(bytes("feed down"));
            oe.priceBound(address(dai), address(usdc));
        }
        OrderExecutor.Group memory g = _group(0, _orders(_signedOrder(makers[0], 0, 1e18, 0, 0)));
        _run(_one(g));
        vm.assertEq(_failure(g, 0), "NO_PRICE_BOUND", "reason");
    }

    /// @dev A source that is broken rather than stale (an address with no code, a feed answering short data or
    ///      decimals above 255, one reverting with revert data shaped as the executor's own errors) makes the
    ///      oracle's view revert, and one whose decimals run the math out of range answers 0: either way every
    ///      group of a pair priced by it fails NO_PRICE_BOUND and moves nothing, the batch does not revert, and
    ///      the batch's other groups execute. The feed restored, the same pair executes.
    function testFuzz_BrokenSourceFailsOnlyItsGroups(uint8 kind, bool brokenWeth, uint256 a0, uint256 a1, uint256 a2)
        public
    {
        kind %= 6;
        address token = brokenWeth ? address(weth) : address(usdc);
        address source;
        if (kind == 0) source = address(uint160(uint256(keccak256("no code here"))));
        if (kind == 1) source = address(new ShortFeed());
        if (kind == 2) source = address(new BigDecimalsFeed());
        if (kind == 3) {
            source = address(
                new Reverter(abi.encodeWithSelector(OrderExecutor.OrderRejected.selector, 0, 5, new uint256[](0)))
            );
        }
        if (kind == 4) {
            source =
                address(new Reverter(abi.encodeWithSelector(OrderExecutor.GroupFailed.selector, 11, new uint256[](0))));
        }
        if (kind == 5) source = address(new MockAggregator(1e8, 200));
        oracle.setOracle(token, oracle.ORACLE_USD_FEED(), source);

        // DAI -> USDC, DAI -> native (WETH's price), NoBool -> DAI (neither), WETH -> USDC (both).
        uint256[4] memory ps = [uint256(0), 2, 5, 3];
        uint256[3] memory seeds = [a0, a1, a2];
        OrderExecutor.Group[] memory groups = new OrderExecutor.Group[](ps.length);
        for (uint256 i; i < ps.length; ++i) {
            OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](2);
            for (uint256 k; k < 2; ++k) {
                orders[k] = _signedOrder(makers[k + (i % 2)], ps[i], _smallAmount(ps[i], seeds[(i + k) % 3]), 0, "bs");
            }
            groups[i] = _group(ps[i], orders);
        }
        for (uint256 i; i < ps.length; ++i) {
            bool broken = _touches(groups[i], token);
            (bool ok, bytes memory answer) =
                address(oe).staticcall(abi.encodeCall(PriceBound.priceBound, (groups[i].tokenIn, groups[i].tokenOut)));
            if (broken) {
                vm.assertTrue(kind == 5 ? ok && abi.decode(answer, (uint256)) == 0 : !ok, "the view: 0, or reverts");
            } else {
                vm.assertTrue(ok && abi.decode(answer, (uint256)) > 0, "other pairs keep their bound");
            }
        }

        _run(groups);
        for (uint256 i; i < ps.length; ++i) {
            bool broken = _touches(groups[i], token);
            for (uint256 k; k < 2; ++k) {
                if (broken) {
                    vm.assertFalse(_executed(groups[i], k), "a broken source's pair does not execute");
                    vm.assertEq(_failure(groups[i], k), "NO_PRICE_BOUND", "reason");
                } else {
                    vm.assertTrue(
                        _executed(groups[i], k), string.concat("the others execute: ", _failure(groups[i], k))
                    );
                }
            }
        }

        oracle.setOracle(token, oracle.ORACLE_USD_FEED(), address(feedOf[token]));
        OrderExecutor.Group memory again = groups[brokenWeth ? 1 : 0];
        _run(_one(again));
        vm.assertTrue(_executed(again, 0) && _executed(again, 1), "the feed restored, the pair executes");
    }

    function _touches(OrderExecutor.Group memory g, address token) internal view returns (bool) {
        address tokenOut = g.tokenOut == NATIVE ? address(weth) : g.tokenOut;
        return g.tokenIn == token || tokenOut == token;
    }

    // ---- makers that are contracts ----

    /// @dev The native coin goes to a wallet that accepts it within the stipend; a wallet that refuses it, burns
    ///      the gas or reenters gets WETH instead.
    function testFuzz_NativePayoutFallsBackToWeth(uint8 mode, uint256 amountSeed) public {
        ContractMaker.ReceiveMode receiveMode = ContractMaker.ReceiveMode(mode % 4);
        wallet.setModes(ContractMaker.SignatureMode.Owner, receiveMode);
        wallet.setReentry(address(oe), abi.encodeCall(OrderExecutor.executeBatch, (new OrderExecutor.Group[](0), 0)));
        uint256 amountIn = _smallAmount(2, amountSeed);
        OrderExecutor.Group memory g = _group(2, _orders(_signedOrder(address(wallet), 2, amountIn, 0, bytes32("n"))));
        uint256 nativeBefore = address(wallet).balance;
        uint256 wethBefore = weth.balanceOf(address(wallet));
        _run(_one(g));
        vm.assertTrue(_executed(g, 0), "executed");
        if (receiveMode == ContractMaker.ReceiveMode.Accept) {
            vm.assertEq(address(wallet).balance - nativeBefore, _paid(g, 0), "paid in the native coin");
        } else {
            vm.assertEq(address(wallet).balance, nativeBefore, "no native coin");
            vm.assertEq(weth.balanceOf(address(wallet)) - wethBefore, _paid(g, 0), "paid in WETH");
        }
    }

    /// @dev A wallet whose isValidSignature burns all gas (or refuses) fails alone, for at most its gas budget;
    ///      the other maker of the group executes.
    function testFuzz_BadWalletSignatureFailsAlone(bool refuse, uint256 amountSeed) public {
        if (refuse) gasBurner.setModes(ContractMaker.SignatureMode.Refuse, ContractMaker.ReceiveMode.Accept);
        uint256 amountIn = _smallAmount(0, amountSeed);
        OrderExecutor.Order memory bad = _signedOrder(address(gasBurner), 0, amountIn, 0, bytes32("g"));
        OrderExecutor.Order memory good = _signedOrder(makers[0], 0, amountIn, 0, bytes32("g"));
        OrderExecutor.Group memory g = _group(0, _orders(bad, good));
        uint256 gasBefore = gasleft();
        _run(_one(g));
        vm.assertLt(gasBefore - gasleft(), 3_000_000, "the batch's gas stays bounded");
        vm.assertEq(_failure(g, 0), "BAD_SIGNATURE", "reason");
        vm.assertTrue(_executed(g, 1), "the other order executes");
    }

    /// @dev A wallet that accepts any signature lets the executor trade its funds, but never below the bound.
    function testFuzz_AcceptAllWalletStillGetsTheBound(uint256 amountSeed) public {
        uint256 amountIn = _smallAmount(0, amountSeed);
        OrderExecutor.Order memory o = _order(address(acceptAll), bytes32("x"), INTEGRATOR_B, 0, amountIn, 0, 0, "");
        OrderExecutor.Group memory g = _group(0, _orders(o));
        g.paths = _evilPaths(pairs[0]);
        _run(_one(g));
        vm.assertEq(_failure(g, 0), "BELOW_PRICE_BOUND", "refused at the bound");
    }

    // ---- failures that stay with their maker ----

    /// @dev A frozen maker fails alone: its pull (selling the frozen token) or its payout (buying it).
    function testFuzz_FrozenMakerFailsAlone(bool sellFrozen, uint256 a0, uint256 a1, uint256 a2) public {
        uint256 p = sellFrozen ? 7 : 8;
        frozen.setBlacklisted(makers[1], true);
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](3);
        orders[0] = _signedOrder(makers[0], p, _smallAmount(p, a0), 0, bytes32("z"));
        orders[1] = _signedOrder(makers[1], p, _smallAmount(p, a1), 0, bytes32("z"));
        orders[2] = _signedOrder(makers[2], p, _smallAmount(p, a2), 0, bytes32("z"));
        OrderExecutor.Group memory g = _group(p, orders);
        _run(_one(g));
        vm.assertTrue(_executed(g, 0) && _executed(g, 2), "the others execute");
        vm.assertFalse(_executed(g, 1), "the frozen maker does not");
        vm.assertEq(_failure(g, 1), sellFrozen ? "TRANSFER_IN_FAILED" : "PAYOUT_FAILED", "reason");
    }

    /// @dev Five makers that cannot be paid are shed one by one; past MAX_GROUP_RETRIES the rest of the group
    ///      waits (RETRY_LIMIT), with four it still executes.
    function testFuzz_RetryLimit(bool five, uint256 amountSeed) public {
        uint256 bad = five ? 5 : 4;
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](bad + 1);
        for (uint256 i; i < bad; ++i) {
            address maker = vm.addr(0xD00 + i);
            keyOf[maker] = 0xD00 + i;
            _fundMaker(maker);
            frozen.setBlacklisted(maker, true);
            orders[i] = _order(
                maker, 0, INTEGRATOR_A, 0, 1e18, 0, 0, _signAs(maker, address(dai), address(frozen), INTEGRATOR_A, 0)
            );
        }
        orders[bad] = _signedOrder(makers[0], 8, _smallAmount(8, amountSeed), 0, bytes32("ok"));
        OrderExecutor.Group memory g = _group(8, orders);
        for (uint256 i; i < bad; ++i) {
            makers.push(orders[i].maker);
        }
        _run(_one(g));
        for (uint256 i; i < bad; ++i) {
            vm.assertEq(_failure(g, i), "PAYOUT_FAILED", "each bad maker fails alone");
        }
        if (five) vm.assertEq(_failure(g, bad), "RETRY_LIMIT", "the rest waits");
        else vm.assertTrue(_executed(g, bad), "the good order executes");
    }

    /// @dev An order that fails at collection keeps its reason whatever its group does next: another order rejected
    ///      after the swap (the group settled again without both), the group's swap failing (the others SWAP_FAILED),
    ///      or the group running out of retries (the others RETRY_LIMIT).
    function testFuzz_CollectionFailuresKeepTheirReason(uint8 mode, uint256 a0, uint256 a1) public {
        mode %= 3;
        uint256 p = mode == 1 ? 0 : 8;
        address poor = vm.addr(0xF01);
        keyOf[poor] = 0xF01;
        _fundMaker(poor);
        makers.push(poor);
        vm.prank(poor);
        dai.approve(address(oe), 0);
        uint256 frozenMakers = mode == 0 ? 1 : mode == 2 ? oe.MAX_GROUP_RETRIES() + 1 : 0;
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](frozenMakers + 2);
        bytes memory poorSignature = _signAs(poor, pairs[p].tokenIn, pairs[p].tokenOut, INTEGRATOR_A, 0);
        orders[0] = _order(poor, "poor", INTEGRATOR_A, 0, _smallAmount(p, a0), 0, 0, poorSignature);
        for (uint256 i; i < frozenMakers; ++i) {
            address maker = vm.addr(0xF10 + i);
            keyOf[maker] = 0xF10 + i;
            _fundMaker(maker);
            makers.push(maker);
            frozen.setBlacklisted(maker, true);
            orders[1 + i] = _order(
                maker, 0, INTEGRATOR_A, 0, 1e18, 0, 0, _signAs(maker, address(dai), address(frozen), INTEGRATOR_A, 0)
            );
        }
        orders[frozenMakers + 1] = _signedOrder(makers[0], p, _smallAmount(p, a1), 0, "good");
        OrderExecutor.Group memory g = _group(p, orders);
        // No V2 pair of DAI and the bystander's address: the swap reverts.
        if (mode == 1) g.paths = _path(_v2(bystander));
        _run(_one(g));
        vm.assertEq(_failure(g, 0), "INSUFFICIENT_ALLOWANCE", "the collection failure keeps its reason");
        for (uint256 i; i < frozenMakers; ++i) {
            vm.assertEq(_failure(g, 1 + i), "PAYOUT_FAILED", "rejected after the swap");
        }
        if (mode == 0) vm.assertTrue(_executed(g, frozenMakers + 1), "the good order executes");
        if (mode == 1) vm.assertEq(_failure(g, frozenMakers + 1), "SWAP_FAILED", "the group's swap failed");
        if (mode == 2) vm.assertEq(_failure(g, frozenMakers + 1), "RETRY_LIMIT", "the group ran out of retries");
    }

    function testFuzz_BalanceAndAllowanceChecked(uint256 amountSeed, bool allowance) public {
        uint256 amountIn = _smallAmount(0, amountSeed);
        if (allowance) {
            vm.prank(makers[0]);
            dai.approve(address(oe), amountIn);
        } else {
            uint256 surplus = dai.balanceOf(makers[0]) - amountIn;
            vm.prank(makers[0]);
            dai.transfer(address(0xdead), surplus);
        }
        OrderExecutor.Group memory g = _group(0, _orders(_signedOrder(makers[0], 0, amountIn, 1, bytes32("b"))));
        _run(_one(g));
        vm.assertEq(
            _failure(g, 0), allowance ? "INSUFFICIENT_ALLOWANCE" : "INSUFFICIENT_BALANCE", "amount + fee checked"
        );
    }

    /// @dev A fee collector the input token refuses (blacklisted): the group's fee transfer fails, so does the
    ///      whole group, SWAP_FAILED, and nothing moves; a group of the same token without fees, and groups of
    ///      other tokens with fees, execute.
    function testFuzz_FeeCollectorThatCannotReceiveFailsTheGroup(uint256 a0, uint256 a1, uint256 f0, uint256 f1)
        public
    {
        frozen.setBlacklisted(feeCollector, true);
        uint256 amount0 = _smallAmount(7, a0);
        uint256 amount1 = _smallAmount(7, a1);
        OrderExecutor.Group[] memory groups = new OrderExecutor.Group[](3);
        groups[0] = _group(
            7,
            _orders(
                _signedOrder(makers[0], 7, amount0, bound(f0, 1, _maxFee(amount0)), "fc"),
                _signedOrder(makers[1], 7, amount1, bound(f1, 0, _maxFee(amount1)), "fc")
            )
        );
        groups[1] = _group(7, _orders(_signedOrder(makers[2], 7, amount1, 0, "fc")));
        uint256 daiIn = _smallAmount(0, a0);
        groups[2] = _group(0, _orders(_signedOrder(makers[0], 0, daiIn, bound(f1, 1, _maxFee(daiIn)), "fc")));
        uint256[2] memory held = [frozen.balanceOf(makers[0]), frozen.balanceOf(makers[1])];

        _run(groups);
        for (uint256 k; k < 2; ++k) {
            vm.assertFalse(_executed(groups[0], k), "not executed");
            vm.assertEq(_failure(groups[0], k), "SWAP_FAILED", "the whole group fails SWAP_FAILED");
        }
        vm.assertEq(frozen.balanceOf(makers[0]), held[0], "nothing moves");
        vm.assertEq(frozen.balanceOf(makers[1]), held[1], "nothing moves");
        vm.assertEq(frozen.balanceOf(feeCollector), 0, "no fee");
        vm.assertTrue(_executed(groups[1], 0), "no fee to pay: executes");
        vm.assertTrue(_executed(groups[2], 0), "other tokens' fees are paid");
    }

    /// @dev The review's repro: a whitelisted source passing on what a contract it calls reverts with, bytes shaped
    ///      as the errors settleGroup fails orders with, OrderRejected(index, failure, dropped) or GroupFailed(failure,
    ///      dropped). Passed through they would fail the wrong orders for the wrong reasons, or the whole group
    ///      TRANSFER_IN_FAILED: every order of the group fails SWAP_FAILED instead, nothing moves, and disarmed the
    ///      same source fills the same orders.
    function testFuzz_SourceRevertingWithOurErrorsFailsTheGroupSwapFailed(
        bool shortShape,
        uint256 index,
        uint256 failure,
        bool split,
        uint256 a0,
        uint256 a1,
        uint256 a2
    ) public {
        TestExternalSource source = new TestExternalSource();
        oe.setSourceWhitelisted(address(source), true);
        _mint(address(usdc), address(source), 1_000_000e6);
        uint256[] memory dropped = new uint256[](1);
        dropped[0] = (((index % 3) + 1) % 3 << 8) | 6;
        bytes memory forged = shortShape
            ? abi.encodeWithSelector(OrderExecutor.GroupFailed.selector, 11, dropped)
            : abi.encodeWithSelector(OrderExecutor.OrderRejected.selector, index % 3, bound(failure, 1, 14), dropped);
        source.setReentry(address(new Reverter(forged)), "");
        // What the source answers any caller: the forged error itself.
        vm.expectRevert(forged);
        source.fill(address(dai), address(usdc), 0, 0);

        OrderExecutor.Group memory g = _group(
            0,
            _orders(
                _signedOrder(makers[0], 0, _smallAmount(0, a0), 0, "forged"),
                _signedOrder(makers[1], 0, _smallAmount(0, a1), 0, "forged"),
                _signedOrder(makers[2], 0, _smallAmount(0, a2), 0, "forged")
            )
        );
        uint256 total = g.orders[0].amountIn + g.orders[1].amountIn + g.orders[2].amountIn;
        // The source fills its share at par (the V2 path, when split, takes the first half).
        uint256 share = split ? total - total / 2 : total;
        bytes memory fill = abi.encodeCall(TestExternalSource.fill, (address(dai), address(usdc), share, share / 1e12));
        Hop[] memory sourceHop = new Hop[](1);
        sourceHop[0] = Hop(2, address(usdc), 0, address(source), fill);
        g.paths = new Path[](split ? 2 : 1);
        if (split) g.paths[0] = _honestPaths(pairs[0])[0];
        g.paths[g.paths.length - 1] = Path(1, sourceHop);

        _run(_one(g));
        for (uint256 k; k < 3; ++k) {
            vm.assertFalse(_executed(g, k), "not executed");
            vm.assertEq(_failure(g, k), "SWAP_FAILED", "every order fails SWAP_FAILED, never another reason");
        }
        vm.assertEq(dai.allowance(address(oe), address(source)), 0, "no allowance left to the source");

        source.setReentry(address(0), "");
        _run(_one(g));
        for (uint256 k; k < 3; ++k) {
            vm.assertTrue(_executed(g, k), string.concat("disarmed, the source fills: ", _failure(g, k)));
        }
    }

    // ---- token shapes ----

    function testFuzz_NoBoolTokenBothWays(uint256 amountSeed, bool sell, uint256 feeSeed) public {
        uint256 p = sell ? 5 : 6;
        uint256 amountIn = _smallAmount(p, amountSeed);
        uint256 fee = bound(feeSeed, 0, _maxFee(amountIn));
        OrderExecutor.Group memory g = _group(p, _orders(_signedOrder(makers[2], p, amountIn, fee, bytes32("nb"))));
        _run(_one(g));
        vm.assertTrue(_executed(g, 0), "executed");
    }

    /// @dev A fee-on-transfer input arrives short: the whole group fails and nothing moves.
    function testFuzz_FeeOnTransferInputFailsTheGroup(uint256 a0, uint256 a1) public {
        OrderExecutor.Order memory o0 = _signedOrder(makers[0], 9, _smallAmount(9, a0), 0, bytes32("fot"));
        OrderExecutor.Order memory o1 = _signedOrder(makers[1], 9, _smallAmount(9, a1), 0, bytes32("fot"));
        OrderExecutor.Group memory g = _group(9, _orders(o0, o1));
        _run(_one(g));
        vm.assertEq(_failure(g, 0), "TRANSFER_IN_FAILED", "reason");
        vm.assertEq(_failure(g, 1), "TRANSFER_IN_FAILED", "reason");
    }

    /// @dev A fee-on-transfer output arrives short of what the pair quoted: the makers cannot all be paid, and no
    ///      maker is ever paid less than its share (executeChecked compares balances with the events).
    function testFuzz_FeeOnTransferOutputNeverUnderpays(uint256 a0, uint256 a1) public {
        OrderExecutor.Order memory o0 = _signedOrder(makers[0], 10, _smallAmount(10, a0), 0, bytes32("fot"));
        OrderExecutor.Order memory o1 = _signedOrder(makers[1], 10, _smallAmount(10, a1), 0, bytes32("fot"));
        OrderExecutor.Group memory g = _group(10, _orders(o0, o1));
        _run(_one(g));
        vm.assertEq(executedCount, 0, "nothing executes");
    }

    // ---- adversarial batches ----

    function testFuzz_AdversarialBatchKeepsEveryPromise(uint256 seed) public {
        _run(_randomBatch(seed));
        _run(_randomBatch(uint256(keccak256(abi.encode(seed)))));
    }
}
