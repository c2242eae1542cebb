// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Vm} from "./Vm.sol";

/// @notice What every test contract shares: the cheatcodes and a few helpers (written here; no forge-std).
abstract contract TestBase {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @dev Maps any x into [min, max] (uniformly enough for fuzzing; small values map to themselves).
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        uint256 size = max - min;
        if (size == type(uint256).max) return x;
        if (x >= min && x <= max) return x;
        return min + (x % (size + 1));
    }

    /// @dev Deploys the creation code of an npm artifact (hardhat or forge JSON) with constructor args.
    function deployArtifact(string memory path, bytes memory args) internal returns (address deployed) {
        return _create(vm.getCode(path), args, path);
    }

    /// @dev Uniswap V2's waffle builds: `bytecode` is unprefixed hex, and the JSON repeats it under `evm` (which
    ///      vm.getCode refuses).
    function deployWaffleArtifact(string memory path, bytes memory args) internal returns (address) {
        string memory hexCode = vm.parseJsonString(vm.readFile(path), ".bytecode");
        return _create(vm.parseBytes(string.concat("0x", hexCode)), args, path);
    }

    function _create(bytes memory creationCode, bytes memory args, string memory path)
        private
        returns (address deployed)
    {
        bytes memory code = abi.encodePacked(creationCode, args);
        assembly ("memory-safe") {
            deployed := create(0, add(code, 0x20), mload(code))
        }
        require(deployed != address(0), string.concat("deploy failed: ", path));
    }
}
