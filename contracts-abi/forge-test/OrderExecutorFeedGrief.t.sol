// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {OrderFixture} from "./utils/OrderFixture.sol";
import {OrderExecutor} from "../src/OrderExecutor.sol";
import {GasBurnFeed, RevertBombFeed} from "./mocks/GriefingFeeds.sol";

/// @notice A configured feed that burns its gas or reverts with a huge payload costs its group at most
///         PRICE_READ_GAS and fails it NO_PRICE_BOUND: the batch never reverts and the other groups execute, at the
///         gas limits a keeper sends.
contract OrderExecutorFeedGriefTest is OrderFixture {
    function setUp() public {
        _deployOrderWorld(false);
    }

    /// @dev One DAI→USDC group (priced by the griefing feed on USDC) and `healthy` groups of other pairs.
    function _batch(uint256 healthy) internal view returns (OrderExecutor.Group[] memory groups) {
        groups = new OrderExecutor.Group[](1 + healthy);
        OrderExecutor.Order[] memory griefed = new OrderExecutor.Order[](1);
        griefed[0] = _signedOrder(makers[0], 0, 1e18, 0, "griefed");
        groups[0] = OrderExecutor.Group(address(dai), address(usdc), _honestPaths(pairs[0]), griefed);
        for (uint256 i; i < healthy; ++i) {
            OrderExecutor.Order[] memory h = new OrderExecutor.Order[](1);
            h[0] = _signedOrder(makers[1 + (i % 2)], 5, 1e6 * (i + 1), 0, "healthy");
            groups[1 + i] = OrderExecutor.Group(address(noBool), address(dai), _honestPaths(pairs[5]), h);
        }
    }

    function _runs(uint256 gasLimit, uint256 healthy) internal returns (bool ok, uint256 used) {
        uint256 snap = vm.snapshotState();
        OrderExecutor.Group[] memory groups = _batch(healthy);
        vm.prank(executor);
        uint256 before = gasleft();
        (ok,) =
            address(oe).call{gas: gasLimit}(abi.encodeCall(OrderExecutor.executeBatch, (groups, block.timestamp + 1)));
        used = before - gasleft();
        vm.revertToState(snap);
    }

    function _assertBounded() internal {
        uint256[3] memory limits = [uint256(2_000_000), 10_000_000, 30_000_000];
        for (uint256 healthy; healthy <= 4; healthy += 2) {
            for (uint256 i; i < limits.length; ++i) {
                (bool ok, uint256 used) = _runs(limits[i], healthy);
                vm.assertTrue(ok, "the batch must not revert");
                // The griefed group's read is capped; the rest is the healthy groups' own cost.
                vm.assertLe(used, 400_000 + healthy * 200_000, "the griefing feed spent more than its budget");
            }
        }
    }

    function test_GasBurningFeedCostsItsGroupABoundedRead() public {
        oracle.setOracle(address(usdc), 1, address(new GasBurnFeed()));
        _assertBounded();
    }

    function test_RevertBombFeedCostsItsGroupABoundedRead() public {
        oracle.setOracle(address(usdc), 1, address(new RevertBombFeed(3)));
        _assertBounded();
        oracle.setOracle(address(usdc), 1, address(new RevertBombFeed(4)));
        _assertBounded();
    }
}
