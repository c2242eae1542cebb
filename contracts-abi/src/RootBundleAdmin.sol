// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @dev The admin half of the Across SpokePool this contract owns.
interface ISpokePoolRootBundles {
    function relayRootBundle(bytes32 relayerRefundRoot, bytes32 slowRelayRoot) external;
}

/// @notice The owner of a SpokePool, between the keeper's settlement key and the pool's funds: a root bundle (which
///         can pay any of the pool's tokens to anyone) is only proposed by the proposer, and reaches the SpokePool
///         once its challenge period has passed, during which the owner can dispute it. As Across puts its HubPool's
///         liveness and disputes between a root bundle and the funds, a leaked proposer key costs no more than a
///         dispute and a rotation (a rotation alone voids every pending proposal of the old key). Every other admin function of the pool stays with the owner (`adminCall`).
contract RootBundleAdmin is Ownable {
    struct Proposal {
        bytes32 relayerRefundRoot;
        bytes32 slowRelayRoot;
        uint64 executableAt;
        /// @dev Who proposed it, and in which rotation: a proposal made before any rotation since (even one back to
        ///      the same key) is never executed.
        address proposer;
        uint64 epoch;
    }

    ISpokePoolRootBundles public immutable spokePool;
    /// @notice Seconds a proposal waits before anyone may execute it.
    uint32 public immutable liveness;

    /// @notice The account that proposes root bundles (the keeper's settlement key); set and rotated by the owner.
    address public proposer;
    /// @notice How many times the proposer was rotated.
    uint64 public proposerEpoch;
    uint256 public proposalCount;
    mapping(uint256 id => Proposal) private _proposals;

    event ProposerSet(address indexed proposer);
    event RootBundleProposed(
        uint256 indexed id,
        bytes32 indexed relayerRefundRoot,
        bytes32 slowRelayRoot,
        uint64 executableAt
    );
    event RootBundleExecuted(uint256 indexed id);
    event RootBundleDisputed(uint256 indexed id);

    error NotProposer();
    error NotProposed(uint256 id);
    error ProposerRotated();
    error TooEarly(uint64 executableAt);
    error ZeroAddress();
    error AdminCallFailed(bytes reason);

    constructor(address owner_, address spokePool_, address proposer_, uint32 liveness_) Ownable(owner_) {
        if (spokePool_ == address(0) || proposer_ == address(0)) revert ZeroAddress();
        spokePool = ISpokePoolRootBundles(spokePool_);
        liveness = liveness_;
        proposer = proposer_;
        emit ProposerSet(proposer_);
    }

    function setProposer(address proposer_) external onlyOwner {
        if (proposer_ == address(0)) revert ZeroAddress();
        proposer = proposer_;
        ++proposerEpoch;
        emit ProposerSet(proposer_);
    }

    /// @notice Proposes a root bundle; executable by anyone once `liveness` seconds have passed undisputed.
    function propose(bytes32 relayerRefundRoot, bytes32 slowRelayRoot) external returns (uint256 id) {
        if (msg.sender != proposer) revert NotProposer();
        id = proposalCount++;
        uint64 executableAt = uint64(block.timestamp) + liveness;
        _proposals[id] = Proposal(relayerRefundRoot, slowRelayRoot, executableAt, msg.sender, proposerEpoch);
        emit RootBundleProposed(id, relayerRefundRoot, slowRelayRoot, executableAt);
    }

    /// @notice Relays an undisputed proposal to the SpokePool once its challenge period has passed.
    function execute(uint256 id) external {
        Proposal memory proposal = _proposals[id];
        if (proposal.executableAt == 0) revert NotProposed(id);
        if (block.timestamp < proposal.executableAt) revert TooEarly(proposal.executableAt);
        if (proposal.epoch != proposerEpoch) revert ProposerRotated();
        delete _proposals[id];
        spokePool.relayRootBundle(proposal.relayerRefundRoot, proposal.slowRelayRoot);
        emit RootBundleExecuted(id);
    }

    /// @notice Drops a proposal before it is executed (a wrong or a stolen one).
    function dispute(uint256 id) external onlyOwner {
        if (_proposals[id].executableAt == 0) revert NotProposed(id);
        delete _proposals[id];
        emit RootBundleDisputed(id);
    }

    /// @notice Any other admin function of the SpokePool (pausing, ownership, emergency deletion), by the owner.
    function adminCall(bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool ok, bytes memory result) = address(spokePool).call(data);
        if (!ok) revert AdminCallFailed(result);
        return result;
    }

    function proposals(uint256 id) external view returns (Proposal memory) {
        return _proposals[id];
    }
}
