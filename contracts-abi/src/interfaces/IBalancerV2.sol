// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The slice of Balancer V2's Vault (20210418-vault) and pool factories the path executor calls.
interface IBalancerVaultLike {
    enum SwapKind {
        GIVEN_IN,
        GIVEN_OUT
    }

    struct SingleSwap {
        bytes32 poolId;
        SwapKind kind;
        /// @dev IAsset in the Vault: address zero would mean ETH.
        address assetIn;
        address assetOut;
        uint256 amount;
        bytes userData;
    }

    struct FundManagement {
        address sender;
        bool fromInternalBalance;
        address payable recipient;
        bool toInternalBalance;
    }

    /// @return The pool's address and its specialization (an enum; uint8 in the ABI).
    function getPool(bytes32 poolId) external view returns (address, uint8);

    function swap(
        SingleSwap memory singleSwap,
        FundManagement memory funds,
        uint256 limit,
        uint256 deadline
    ) external payable returns (uint256 amountCalculated);
}

interface IBasePoolFactoryLike {
    function isPoolFromFactory(address pool) external view returns (bool);
}
