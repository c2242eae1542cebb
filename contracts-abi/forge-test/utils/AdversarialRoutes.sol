// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Hop, Path} from "../../src/RouteTypes.sol";

/// @notice Routes an attacker would send: 1-3 paths of 1-3 hops, every hop kind (and an unknown one), token outs,
///         targets and data picked from the candidates the caller gives (bystanders, the spender, tokens, pools...).
library AdversarialRoutes {
    function randomPaths(uint256 seed, address[] memory outs, address[] memory targets, bytes[] memory datas)
        internal
        pure
        returns (Path[] memory paths)
    {
        paths = new Path[](1 + (seed % 3));
        for (uint256 i; i < paths.length; ++i) {
            seed = uint256(keccak256(abi.encode(seed, i)));
            Hop[] memory hops = new Hop[](1 + (seed % 3));
            for (uint256 k; k < hops.length; ++k) {
                uint256 r = uint256(keccak256(abi.encode(seed, k)));
                hops[k] = Hop(
                    uint8(r % 8),
                    outs[(r >> 8) % outs.length],
                    uint24((r >> 24) % 3 == 0 ? 3000 : 0),
                    targets[(r >> 32) % targets.length],
                    datas[(r >> 48) % datas.length]
                );
            }
            paths[i] = Path((seed >> 64) % 4, hops);
        }
    }
}
