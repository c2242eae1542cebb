// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice The forge cheatcodes these tests use, declared here (no forge-std): the cheatcode contract answers at
///         address(uint160(uint256(keccak256("hevm cheat code")))).
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    // ---- environment ----
    function warp(uint256 timestamp) external;
    function roll(uint256 blockNumber) external;
    function deal(address account, uint256 balance) external;
    function etch(address target, bytes calldata code) external;
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
    function label(address account, string calldata name) external;
    function assume(bool condition) external pure;
    function setEvmVersion(string calldata evm) external;
    function snapshotState() external returns (uint256 snapshotId);
    function revertToState(uint256 snapshotId) external returns (bool success);

    // ---- keys and signatures ----
    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);

    // ---- expectations and logs ----
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory logs);

    // ---- files ----
    function getCode(string calldata artifactPath) external view returns (bytes memory creationBytecode);
    function readFile(string calldata path) external view returns (string memory data);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseBytes(string calldata value) external pure returns (bytes memory);
    function toString(uint256 value) external pure returns (string memory);

    // ---- assertions (a failed one fails the test with its message) ----
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertEq(string calldata left, string calldata right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGt(uint256 left, uint256 right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertLt(uint256 left, uint256 right, string calldata error) external pure;
    function assertApproxEqAbs(uint256 left, uint256 right, uint256 maxDelta, string calldata error) external pure;
}
