// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice Whether a maker signed a digest: an ECDSA signature recovering to the maker (every EOA, and an EIP-7702
///         account signing with its own key), else, for a maker with code, ERC-1271's isValidSignature (Safe and
///         every contract wallet; a 7702 account through its delegate).
/// @dev Written out rather than OpenZeppelin's SignatureChecker, whose 5.7 import of utils/Bytes.sol does not compile
///      for the Shanghai EVM ganache runs. The ERC-1271 call gets a fixed gas budget and reads 32 bytes of answer at
///      most, so a maker's wallet can neither burn a batch's gas nor flood its memory.
library MakerSignatures {
    bytes4 internal constant ERC1271_MAGIC = 0x1626ba7e;
    uint256 internal constant ERC1271_GAS = 50_000;

    function isValidNow(address maker, bytes32 digest, bytes calldata signature) internal view returns (bool) {
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err == ECDSA.RecoverError.NoError && signer == maker) return true;
        if (maker.code.length == 0) return false;
        bytes memory query = abi.encodeWithSelector(ERC1271_MAGIC, digest, signature);
        bool ok;
        bytes32 answer;
        uint256 size;
        assembly ("memory-safe") {
            ok := staticcall(ERC1271_GAS, maker, add(query, 0x20), mload(query), 0x00, 0x20)
            size := returndatasize()
            answer := mload(0x00)
        }
        return ok && size >= 0x20 && answer == bytes32(ERC1271_MAGIC);
    }
}
