// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {TestBase} from "./utils/TestBase.sol";
import {MockRootBundleSpokePool} from "./mocks/MockSpokePool.sol";
import {RootBundleAdmin} from "../src/RootBundleAdmin.sol";

/// @notice RootBundleAdmin: only the proposer proposes, a proposal reaches the SpokePool once its liveness has
///         passed (once, never after a dispute, never once its proposer was rotated away), the owner rotates the
///         proposer and alone forwards other admin calls.
contract RootBundleAdminTest is TestBase {
    uint32 internal constant LIVENESS = 2 hours;
    uint256 internal constant START = 1_700_000_000;

    address internal constant OWNER = address(0x0A11);
    address internal constant PROPOSER = address(0x9E0);
    address internal constant NEW_PROPOSER = address(0x9E1);
    address internal constant STRANGER = address(0xBAD);

    bytes32 internal constant REFUND_ROOT = keccak256("refunds");
    bytes32 internal constant SLOW_ROOT = keccak256("slow relays");

    MockRootBundleSpokePool internal pool;
    RootBundleAdmin internal admin;

    function setUp() public {
        vm.warp(START);
        pool = new MockRootBundleSpokePool();
        admin = new RootBundleAdmin(OWNER, address(pool), PROPOSER, LIVENESS);
        pool.transferOwnership(address(admin));
    }

    function _propose(bytes32 refundRoot) internal returns (uint256 id) {
        vm.prank(PROPOSER);
        id = admin.propose(refundRoot, SLOW_ROOT);
    }

    function _notOwner(address caller) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, caller);
    }

    function test_ConstructorChecks() public {
        vm.expectRevert(RootBundleAdmin.ZeroAddress.selector);
        new RootBundleAdmin(OWNER, address(0), PROPOSER, LIVENESS);
        vm.expectRevert(RootBundleAdmin.ZeroAddress.selector);
        new RootBundleAdmin(OWNER, address(pool), address(0), LIVENESS);
        vm.assertEq(admin.owner(), OWNER, "owner");
        vm.assertEq(admin.proposer(), PROPOSER, "proposer");
        vm.assertEq(address(admin.spokePool()), address(pool), "pool");
        vm.assertEq(uint256(admin.liveness()), LIVENESS, "liveness");
    }

    /// @dev The pool itself refuses anyone but its owner (the admin): the mock is as strict as the real one.
    function test_ThePoolOnlyTakesRootBundlesFromTheAdmin() public {
        vm.prank(PROPOSER);
        vm.expectRevert(abi.encodeWithSelector(MockRootBundleSpokePool.NotOwner.selector, PROPOSER));
        pool.relayRootBundle(REFUND_ROOT, SLOW_ROOT);
        vm.prank(OWNER);
        vm.expectRevert(abi.encodeWithSelector(MockRootBundleSpokePool.NotOwner.selector, OWNER));
        pool.relayRootBundle(REFUND_ROOT, SLOW_ROOT);
    }

    function test_OnlyTheProposerProposes() public {
        address[2] memory others = [OWNER, STRANGER];
        for (uint256 i; i < others.length; ++i) {
            vm.prank(others[i]);
            vm.expectRevert(RootBundleAdmin.NotProposer.selector);
            admin.propose(REFUND_ROOT, SLOW_ROOT);
        }
        vm.assertEq(admin.proposalCount(), 0, "nothing proposed");

        uint256 id = _propose(REFUND_ROOT);
        vm.assertEq(id, 0, "first id");
        RootBundleAdmin.Proposal memory proposal = admin.proposals(id);
        vm.assertEq(proposal.relayerRefundRoot, REFUND_ROOT, "refund root");
        vm.assertEq(proposal.slowRelayRoot, SLOW_ROOT, "slow root");
        vm.assertEq(uint256(proposal.executableAt), START + LIVENESS, "executable at");
        vm.assertEq(proposal.proposer, PROPOSER, "proposer recorded");
        vm.assertEq(_propose(SLOW_ROOT), 1, "ids count up");
        vm.assertEq(pool.rootBundleCount(), 0, "nothing relayed yet");
    }

    function test_ExecuteOnlyAfterLivenessAndOnce() public {
        uint256 id = _propose(REFUND_ROOT);
        uint64 executableAt = uint64(START + LIVENESS);
        vm.prank(STRANGER);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.TooEarly.selector, executableAt));
        admin.execute(id);
        vm.warp(START + LIVENESS - 1);
        vm.prank(PROPOSER);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.TooEarly.selector, executableAt));
        admin.execute(id);
        vm.assertEq(pool.rootBundleCount(), 0, "nothing relayed early");

        // Anyone executes once the liveness has passed.
        vm.warp(START + LIVENESS);
        vm.prank(STRANGER);
        admin.execute(id);
        vm.assertEq(pool.rootBundleCount(), 1, "relayed");
        MockRootBundleSpokePool.RootBundle memory bundle = pool.rootBundle(0);
        vm.assertEq(bundle.relayerRefundRoot, REFUND_ROOT, "relayed refund root");
        vm.assertEq(bundle.slowRelayRoot, SLOW_ROOT, "relayed slow root");
        vm.assertEq(uint256(admin.proposals(id).executableAt), 0, "proposal consumed");

        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, id));
        admin.execute(id);
        vm.assertEq(pool.rootBundleCount(), 1, "relayed once");
    }

    function test_ExecuteOfAnUnknownProposalReverts() public {
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, 7));
        admin.execute(7);
    }

    function test_ADisputedProposalIsNeverExecuted() public {
        uint256 id = _propose(REFUND_ROOT);
        uint256 kept = _propose(SLOW_ROOT);
        vm.prank(PROPOSER);
        vm.expectRevert(_notOwner(PROPOSER));
        admin.dispute(id);
        vm.prank(STRANGER);
        vm.expectRevert(_notOwner(STRANGER));
        admin.dispute(id);

        vm.warp(START + LIVENESS - 1);
        vm.prank(OWNER);
        admin.dispute(id);
        vm.warp(START + LIVENESS + 1 days);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, id));
        admin.execute(id);
        vm.prank(OWNER);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, id));
        admin.dispute(id);

        // The other proposal is untouched.
        admin.execute(kept);
        vm.assertEq(pool.rootBundleCount(), 1, "only the undisputed one");
        vm.assertEq(pool.rootBundle(0).relayerRefundRoot, SLOW_ROOT, "the undisputed one");
        // An executed proposal can no longer be disputed.
        vm.prank(OWNER);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, kept));
        admin.dispute(kept);
    }

    function test_RotationMovesTheProposerPower() public {
        vm.prank(PROPOSER);
        vm.expectRevert(_notOwner(PROPOSER));
        admin.setProposer(PROPOSER);
        vm.prank(STRANGER);
        vm.expectRevert(_notOwner(STRANGER));
        admin.setProposer(STRANGER);
        vm.prank(OWNER);
        vm.expectRevert(RootBundleAdmin.ZeroAddress.selector);
        admin.setProposer(address(0));

        vm.prank(OWNER);
        admin.setProposer(NEW_PROPOSER);
        vm.assertEq(admin.proposer(), NEW_PROPOSER, "rotated");
        vm.prank(PROPOSER);
        vm.expectRevert(RootBundleAdmin.NotProposer.selector);
        admin.propose(REFUND_ROOT, SLOW_ROOT);
        vm.prank(NEW_PROPOSER);
        uint256 id = admin.propose(REFUND_ROOT, SLOW_ROOT);
        vm.warp(START + LIVENESS);
        admin.execute(id);
        vm.assertEq(pool.rootBundleCount(), 1, "the new proposer's bundle relayed");
    }

    /// @dev A rotation alone voids the old proposer's pending proposals (a leaked key's included): executing one
    ///      reverts ProposerRotated however late; it stays until the owner disputes it; the new proposer's execute.
    function test_ARotationVoidsTheOldProposersPendingProposals() public {
        uint256 stolen = _propose(keccak256("stolen"));
        vm.prank(OWNER);
        admin.setProposer(NEW_PROPOSER);
        vm.prank(NEW_PROPOSER);
        uint256 fresh = admin.propose(REFUND_ROOT, SLOW_ROOT);
        vm.assertEq(admin.proposals(fresh).proposer, NEW_PROPOSER, "the new proposer recorded");

        // Too early is still reported as such.
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.TooEarly.selector, uint64(START + LIVENESS)));
        admin.execute(stolen);
        vm.warp(START + LIVENESS);
        vm.expectRevert(RootBundleAdmin.ProposerRotated.selector);
        admin.execute(stolen);
        vm.prank(NEW_PROPOSER);
        vm.expectRevert(RootBundleAdmin.ProposerRotated.selector);
        admin.execute(stolen);
        vm.warp(START + 30 days);
        vm.expectRevert(RootBundleAdmin.ProposerRotated.selector);
        admin.execute(stolen);
        vm.assertEq(pool.rootBundleCount(), 0, "nothing relayed");
        vm.assertGt(uint256(admin.proposals(stolen).executableAt), 0, "stays until disputed");

        admin.execute(fresh);
        vm.assertEq(pool.rootBundleCount(), 1, "the new proposer's bundle relayed");
        vm.assertEq(pool.rootBundle(0).relayerRefundRoot, REFUND_ROOT, "the new proposer's root");

        vm.prank(OWNER);
        admin.dispute(stolen);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.NotProposed.selector, stolen));
        admin.execute(stolen);
        vm.assertEq(pool.rootBundleCount(), 1, "still only the new one");
    }

    /// @dev Rotations are counted: rotated back to the old key, its old proposals stay void.
    function test_RotatingBackToTheOldProposerDoesNotReviveItsProposals() public {
        uint256 id = _propose(REFUND_ROOT);
        vm.startPrank(OWNER);
        admin.setProposer(NEW_PROPOSER);
        admin.setProposer(PROPOSER);
        vm.stopPrank();
        vm.warp(START + LIVENESS);
        vm.expectRevert(RootBundleAdmin.ProposerRotated.selector);
        admin.execute(id);
        vm.assertEq(pool.rootBundleCount(), 0, "not relayed after the rotation back");
    }

    /// @dev Whatever the rotations between proposing and executing, a proposal executes iff none came since.
    function testFuzz_ExecutesIffNoRotationCameSince(uint256 rotations) public {
        address[3] memory keys = [PROPOSER, NEW_PROPOSER, STRANGER];
        uint256 id = _propose(REFUND_ROOT);
        uint256 count = rotations % 4;
        for (uint256 i; i < count; ++i) {
            vm.prank(OWNER);
            admin.setProposer(keys[(rotations >> (8 * (i + 1))) % 3]);
        }
        vm.warp(START + LIVENESS);
        (bool ok, bytes memory reason) = address(admin).call(abi.encodeCall(RootBundleAdmin.execute, (id)));
        vm.assertEq(ok, count == 0, "executes iff no rotation came since");
        if (!ok) vm.assertEq(bytes32(reason), bytes32(RootBundleAdmin.ProposerRotated.selector), "ProposerRotated");
        vm.assertEq(pool.rootBundleCount(), ok ? 1 : 0, "relayed iff executed");
    }

    function test_AdminCallOnlyByTheOwner() public {
        bytes memory pause = abi.encodeCall(MockRootBundleSpokePool.pauseDeposits, (true));
        address[2] memory others = [PROPOSER, STRANGER];
        for (uint256 i; i < others.length; ++i) {
            vm.prank(others[i]);
            vm.expectRevert(_notOwner(others[i]));
            admin.adminCall(pause);
        }
        // The proposer cannot reach relayRootBundle through adminCall either (no way around the liveness).
        vm.prank(PROPOSER);
        vm.expectRevert(_notOwner(PROPOSER));
        admin.adminCall(abi.encodeCall(MockRootBundleSpokePool.relayRootBundle, (REFUND_ROOT, SLOW_ROOT)));
        vm.assertFalse(pool.depositsPaused(), "not paused");
        vm.assertEq(pool.rootBundleCount(), 0, "nothing relayed");

        vm.prank(OWNER);
        admin.adminCall(pause);
        vm.assertTrue(pool.depositsPaused(), "paused by the owner");

        // The return data comes back; a failing call reverts with its reason.
        vm.prank(OWNER);
        bytes memory result = admin.adminCall(abi.encodeWithSignature("owner()"));
        vm.assertEq(abi.decode(result, (address)), address(admin), "return data");
        vm.prank(OWNER);
        vm.expectRevert(abi.encodeWithSelector(RootBundleAdmin.AdminCallFailed.selector, bytes("")));
        admin.adminCall(abi.encodeWithSignature("noSuchFunction()"));

        // The owner can hand the pool on.
        vm.prank(OWNER);
        admin.adminCall(abi.encodeCall(MockRootBundleSpokePool.transferOwnership, (OWNER)));
        vm.assertEq(pool.owner(), OWNER, "pool handed over");
        // After which executing a proposal fails at the pool (and the proposal stays).
        uint256 id = _propose(REFUND_ROOT);
        vm.warp(START + LIVENESS);
        vm.expectRevert(abi.encodeWithSelector(MockRootBundleSpokePool.NotOwner.selector, address(admin)));
        admin.execute(id);
        vm.assertGt(uint256(admin.proposals(id).executableAt), 0, "still proposed");
    }

    function testFuzz_ExecutableExactlyFromLiveness(uint256 wait) public {
        wait = bound(wait, 0, 3 * uint256(LIVENESS));
        uint256 id = _propose(REFUND_ROOT);
        vm.warp(START + wait);
        (bool ok,) = address(admin).call(abi.encodeCall(RootBundleAdmin.execute, (id)));
        vm.assertEq(ok, wait >= LIVENESS, "executable from executableAt on");
        vm.assertEq(pool.rootBundleCount(), ok ? 1 : 0, "relayed iff executed");
    }
}
