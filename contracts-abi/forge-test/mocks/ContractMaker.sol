// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice A maker that is a contract: an ERC-1271 wallet of one owner key, which can be switched to misbehave in
///         isValidSignature (accept anything, refuse, burn all gas, accept with a flood of return data) and when it
///         receives the native coin (refuse, burn all gas, try to reenter the executor).
contract ContractMaker {
    enum SignatureMode {
        Owner,
        AcceptAll,
        Refuse,
        BurnGas,
        Flood
    }

    enum ReceiveMode {
        Accept,
        Refuse,
        BurnGas,
        Reenter
    }

    bytes4 internal constant MAGIC = 0x1626ba7e;

    address public immutable owner;
    SignatureMode public signatureMode;
    ReceiveMode public receiveMode;
    address public reentryTarget;
    bytes public reentryData;

    constructor(address owner_) {
        owner = owner_;
    }

    function setModes(SignatureMode signatureMode_, ReceiveMode receiveMode_) external {
        signatureMode = signatureMode_;
        receiveMode = receiveMode_;
    }

    function setReentry(address target, bytes calldata data) external {
        reentryTarget = target;
        reentryData = data;
    }

    /// @dev A low-level approve, so tokens that return no bool work too.
    function approve(address token, address spender, uint256 amount) external {
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", spender, amount));
        require(ok, "approve");
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        SignatureMode mode = signatureMode;
        if (mode == SignatureMode.AcceptAll) return MAGIC;
        if (mode == SignatureMode.Refuse) return 0xffffffff;
        if (mode == SignatureMode.BurnGas) {
            uint256 spin;
            while (gasleft() > 0) ++spin;
            return bytes4(uint32(spin));
        }
        if (mode == SignatureMode.Flood) {
            // The magic value followed by ~100 KB: a caller that copies all return data pays for it.
            assembly {
                mstore(0, MAGIC)
                return(0, 100000)
            }
        }
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? MAGIC : bytes4(0);
    }

    receive() external payable {
        ReceiveMode mode = receiveMode;
        if (mode == ReceiveMode.Refuse) revert("no coins");
        if (mode == ReceiveMode.BurnGas) {
            uint256 spin;
            while (gasleft() > 0) ++spin;
        }
        if (mode == ReceiveMode.Reenter) {
            (bool ok, bytes memory reason) = reentryTarget.call(reentryData);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
    }
}
