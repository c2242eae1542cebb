// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice Devnet and test contract wallet: one owner key, ERC-1271 signatures recovered to it (the shape of a
///         1-of-1 Safe), calls made on the owner's say-so, and a receive that can be told to accept, revert or burn
///         all its gas (a maker that tries to fail other makers' orders). Never deploy outside a local chain.
contract TestContractWallet {
    bytes4 private constant MAGIC = 0x1626ba7e;

    uint8 public constant RECEIVE_ACCEPT = 0;
    uint8 public constant RECEIVE_REVERT = 1;
    uint8 public constant RECEIVE_BURN_GAS = 2;

    address public immutable owner;
    uint8 public receiveMode;
    uint256 private _burned;

    error NotOwner();
    error Refused();

    constructor(address owner_) {
        owner = owner_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    function setReceiveMode(uint8 mode) external onlyOwner {
        receiveMode = mode;
    }

    function execute(address target, uint256 value, bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? MAGIC : bytes4(0xffffffff);
    }

    receive() external payable {
        uint8 mode = receiveMode;
        if (mode == RECEIVE_REVERT) revert Refused();
        if (mode == RECEIVE_BURN_GAS) {
            // Writes until the gas runs out.
            for (uint256 i; ; ++i) _burned = i;
        }
    }
}
