// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {OrderFixture} from "./utils/OrderFixture.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";

/// @notice executeBudgetedBatch: a group's settlement gets exactly its budget, so a group that needs more fails
///         alone whatever the transaction's gas limit, and a gas limit too short for the budgets reverts the whole
///         batch instead of starving groups into failure. Budgets set from executeBatch's reported gas (as the keeper
///         sets them from its simulation) give the simulation's outcomes. Every batch that goes through runs under
///         executeCheckedCall's checks of all the contract's promises.
contract OrderExecutorGasBudgetTest is OrderFixture {
    function setUp() public {
        _deployOrderWorld(false);
    }

    struct Figures {
        uint256 used;
        uint256[] groupGas;
    }

    /// @dev executeBatch's report of `groups`, the state left as it was.
    function _simulate(OrderExecutor.Group[] memory groups, uint256 deadline) internal returns (Figures memory f) {
        uint256 snap = vm.snapshotState();
        vm.prank(executor);
        (bool ok, bytes memory answer) =
            address(oe).call(abi.encodeCall(OrderExecutor.executeBatch, (groups, deadline)));
        vm.assertTrue(ok, "executeBatch does not revert");
        (f.used, f.groupGas) = abi.decode(answer, (uint256, uint256[]));
        vm.revertToState(snap);
    }

    /// @dev What each order came to ("EXECUTED" or its failure) after executeChecked of `groups`, the state left as
    ///      it was.
    function _outcomesOf(OrderExecutor.Group[] memory groups, uint256 deadline) internal returns (string[] memory out) {
        uint256 snap = vm.snapshotState();
        executeChecked(groups, deadline);
        out = _outcomes(groups);
        vm.revertToState(snap);
    }

    function _outcomes(OrderExecutor.Group[] memory groups) internal view returns (string[] memory out) {
        uint256 n;
        for (uint256 g; g < groups.length; ++g) n += groups[g].orders.length;
        out = new string[](n);
        n = 0;
        for (uint256 g; g < groups.length; ++g) {
            for (uint256 k; k < groups[g].orders.length; ++k) {
                out[n++] = _executed(groups[g], k) ? "EXECUTED" : _failure(groups[g], k);
            }
        }
    }

    function _budgeted(OrderExecutor.Group[] memory groups, uint256 deadline, uint256[] memory budgets)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodeCall(OrderExecutor.executeBudgetedBatch, (groups, deadline, budgets));
    }

    /// @dev What a gas limit must cover for these budgets: the simulation's gas outside the settlements, then each
    ///      budget with the 1/64 its call keeps back and the call's own cost.
    function _gasFor(Figures memory f, uint256[] memory budgets) internal view returns (uint256 gas) {
        gas = f.used + 30_000;
        for (uint256 g; g < budgets.length; ++g) gas += budgets[g] + budgets[g] / 63 + 1 + oe.SETTLE_CALL_GAS();
        for (uint256 g; g < budgets.length; ++g) gas -= f.groupGas[g];
    }

    /// @dev The keeper's budgets: a quarter over what the simulation used, and some slack.
    function _budgetsFrom(Figures memory f) internal pure returns (uint256[] memory budgets) {
        budgets = new uint256[](f.groupGas.length);
        for (uint256 g; g < budgets.length; ++g) budgets[g] = (f.groupGas[g] * 5) / 4 + 20_000;
    }

    function _twoGroups(uint256 a0, uint256 a1) internal view returns (OrderExecutor.Group[] memory groups) {
        groups = new OrderExecutor.Group[](2);
        uint256[2] memory ps = [uint256(0), 3];
        uint256[2] memory seeds = [a0, a1];
        for (uint256 i; i < 2; ++i) {
            OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](2);
            for (uint256 k; k < 2; ++k) {
                uint256 p = ps[i];
                uint256 unit = 10 ** _decimals(pairs[p].tokenIn);
                if (pairs[p].tokenIn == address(weth)) unit /= 3000;
                uint256 amount = bound(uint256(keccak256(abi.encode(seeds[i], k))), unit, unit * 10_000);
                orders[k] = _signedOrder(makers[k], p, amount, 0, bytes32(uint256(0xb0 + i)));
            }
            Pair memory pair = pairs[ps[i]];
            groups[i] = OrderExecutor.Group(pair.tokenIn, pair.tokenOut, _honestPaths(pair), orders);
        }
    }

    /// @dev executeBatch reports the gas of each settlement (0 for a group none of whose orders reached it) and of
    ///      the whole call.
    function testFuzz_ExecuteBatchReportsItsGas(uint256 a0, uint256 a1) public {
        OrderExecutor.Group[] memory groups = _twoGroups(a0, a1);
        // A third group whose only order is unsigned: it fails at the checks and never settles.
        OrderExecutor.Group[] memory three = new OrderExecutor.Group[](3);
        OrderExecutor.Order[] memory unsigned = new OrderExecutor.Order[](1);
        unsigned[0] = _order(
            makers[0],
            bytes32("unsigned"),
            INTEGRATOR_A,
            0,
            1e18,
            0,
            0,
            abi.encodePacked(bytes32(uint256(1)), bytes32(uint256(2)), uint8(27))
        );
        (three[0], three[1]) = (groups[0], groups[1]);
        three[2] = OrderExecutor.Group(groups[0].tokenIn, groups[0].tokenOut, groups[0].paths, unsigned);
        Figures memory f = _simulate(three, block.timestamp + 100);
        vm.assertEq(f.groupGas.length, 3, "one figure per group");
        vm.assertGt(f.groupGas[0], 50_000, "a settled group's gas");
        vm.assertGt(f.groupGas[1], 50_000, "a settled group's gas");
        vm.assertEq(f.groupGas[2], 0, "a group that never settled");
        vm.assertGt(f.used, f.groupGas[0] + f.groupGas[1], "the call's gas covers its settlements");
    }

    /// @dev A group given less than it needs fails SWAP_FAILED alone; the other group executes; the gas limit,
    ///      however generous, changes nothing.
    function testFuzz_AGroupOverItsBudgetFailsAlone(uint256 a0, uint256 a1, uint256 cut, uint256 extra, bool first)
        public
    {
        OrderExecutor.Group[] memory groups = _twoGroups(a0, a1);
        uint256 deadline = block.timestamp + 100;
        Figures memory f = _simulate(groups, deadline);
        uint256[] memory budgets = _budgetsFrom(f);
        uint256 starved = first ? 0 : 1;
        budgets[starved] = bound(cut, 0, (f.groupGas[starved] * 9) / 10);
        uint256 gas = _gasFor(f, budgets) + bound(extra, 0, 5_000_000);
        executeCheckedCall(groups, _budgeted(groups, deadline, budgets), gas);
        _assertNoViolation();
        for (uint256 k; k < 2; ++k) {
            vm.assertEq(_failure(groups[starved], k), "SWAP_FAILED", "the starved group fails");
            vm.assertTrue(_executed(groups[1 - starved], k), "the other group executes");
        }
    }

    /// @dev A gas limit short of the budgets reverts the whole batch: nothing executes, no index is spent, no
    ///      balance moves; just short of them at the start, the error says so.
    function testFuzz_AShortGasLimitRevertsEverything(uint256 a0, uint256 a1, uint256 short) public {
        OrderExecutor.Group[] memory groups = _twoGroups(a0, a1);
        uint256 deadline = block.timestamp + 100;
        Figures memory f = _simulate(groups, deadline);
        uint256[] memory budgets = _budgetsFrom(f);
        uint256 owed;
        for (uint256 g; g < 2; ++g) owed += budgets[g] + budgets[g] / 63 + 1 + oe.SETTLE_CALL_GAS();
        uint256 need = _gasFor(f, budgets);
        uint256 gas = bound(short, 0, need - (f.groupGas[0] + f.groupGas[1]) / 2);
        uint256[] memory before = _holdings();
        vm.prank(executor);
        (bool ok, bytes memory answer) = address(oe).call{gas: gas}(_budgeted(groups, deadline, budgets));
        vm.assertFalse(ok, "the batch reverts");
        for (uint256 g; g < 2; ++g) {
            for (uint256 k; k < 2; ++k) vm.assertFalse(oe.isExecuted(groups[g].orders[k].index), "no index spent");
        }
        uint256[] memory afterwards = _holdings();
        for (uint256 i; i < before.length; ++i) vm.assertEq(afterwards[i], before[i], "no balance moved");

        vm.prank(executor);
        (ok, answer) = address(oe).call{gas: owed - 1}(_budgeted(groups, deadline, budgets));
        vm.assertFalse(ok, "short of the budgets");
        vm.assertEq(bytes32(answer), bytes32(OrderExecutor.InsufficientGas.selector), "InsufficientGas");

        // The same batch with the gas it needs executes every order.
        executeCheckedCall(groups, _budgeted(groups, deadline, budgets), need);
        _assertNoViolation();
        for (uint256 g; g < 2; ++g) {
            for (uint256 k; k < 2; ++k) vm.assertTrue(_executed(groups[g], k), "executes with its gas");
        }
    }

    /// @dev Budgets set from the simulation's report, with the gas limit they need, give the simulation's outcome
    ///      for every order of any batch (adversarial routes, failing orders, retries after an order rejected).
    function testFuzz_BudgetsFromTheSimulationKeepItsOutcomes(uint256 seed) public {
        OrderExecutor.Group[] memory groups = _randomBatch(seed);
        uint256 deadline = block.timestamp + 100;
        string[] memory expected = _outcomesOf(groups, deadline);
        Figures memory f = _simulate(groups, deadline);
        uint256[] memory budgets = _budgetsFrom(f);
        uint256 gas = _gasFor(f, budgets);
        // A route that burns whatever it is given is beyond any block: such a batch is never sent budgeted.
        if (gas > 30_000_000) return;
        executeCheckedCall(groups, _budgeted(groups, deadline, budgets), gas);
        _assertNoViolation();
        string[] memory got = _outcomes(groups);
        for (uint256 i; i < got.length; ++i) vm.assertEq(got[i], expected[i], "the simulation's outcome");
    }

    /// @dev When the rest of a group's budget cannot cover another attempt, the orders left wait (RETRY_LIMIT),
    ///      never failing the group: here one maker cannot be paid and the budget covers one attempt only.
    function test_ARetryBeyondTheBudgetWaits() public {
        address bad = vm.addr(0xD10);
        keyOf[bad] = 0xD10;
        _fundMaker(bad);
        frozen.setBlacklisted(bad, true);
        OrderExecutor.Order[] memory orders = new OrderExecutor.Order[](2);
        bytes memory signature = _signAs(bad, address(dai), address(frozen), INTEGRATOR_A, 0);
        orders[0] = _order(bad, 0, INTEGRATOR_A, 0, 1e18, 0, 0, signature);
        orders[1] = _signedOrder(makers[0], 8, 1e18, 0, bytes32("ok"));
        makers.push(bad);
        OrderExecutor.Group[] memory groups = new OrderExecutor.Group[](1);
        groups[0] = OrderExecutor.Group(pairs[8].tokenIn, pairs[8].tokenOut, _honestPaths(pairs[8]), orders);
        uint256 deadline = block.timestamp + 100;
        Figures memory f = _simulate(groups, deadline);
        // Unbudgeted, the group is settled twice: the bad maker shed, the other paid. Budgeted for 60% of that
        // (more than the first attempt, less than both), the second attempt is not started.
        uint256[] memory budgets = new uint256[](1);
        budgets[0] = (f.groupGas[0] * 6) / 10;
        executeCheckedCall(groups, _budgeted(groups, deadline, budgets), _gasFor(f, budgets) + f.groupGas[0]);
        _assertNoViolation();
        vm.assertEq(_failure(groups[0], 0), "PAYOUT_FAILED", "the bad maker fails alone");
        vm.assertEq(_failure(groups[0], 1), "RETRY_LIMIT", "the other waits");
    }

    function test_OneBudgetPerGroup() public {
        OrderExecutor.Group[] memory groups = _twoGroups(1, 2);
        vm.prank(executor);
        vm.expectRevert(OrderExecutor.BadBudgets.selector);
        oe.executeBudgetedBatch(groups, block.timestamp + 100, new uint256[](1));
    }

    function test_OnlyExecutorsRunBudgetedBatches() public {
        OrderExecutor.Group[] memory groups = _twoGroups(1, 2);
        vm.prank(address(0xBAD));
        vm.expectRevert(OrderExecutor.NotExecutor.selector);
        oe.executeBudgetedBatch(groups, block.timestamp + 100, new uint256[](2));
    }
}
