import { AbiCoder, getAddress, getBytes, keccak256, ZeroHash } from 'ethers';
import { MerkleTree } from 'merkletreejs';

/**
 * Relayer refund root bundles as the HubPool's dataworker builds them: the leaves' merkle root for
 * `relayRootBundle` and one proof per leaf for `executeRelayerRefundLeaf`. The SpokePool checks a leaf with
 * `MerkleLib.verifyRelayerRefund` = OpenZeppelin's `MerkleProof.verify(proof, root, keccak256(abi.encode(leaf)))`,
 * which hashes each pair in sorted order: hence merkletreejs with `sortPairs` over those leaf hashes.
 */

/** `SpokePoolInterface.RelayerRefundLeaf`, field for field and in its order. */
export interface RelayerRefundLeaf {
  /** Tokens sent back to the HubPool (withdrawal recipient); 0 on the devnet. */
  amountToReturn: bigint;
  /** The chain of the SpokePool that executes the leaf. */
  chainId: bigint;
  refundAmounts: bigint[];
  /** Unique within its bundle: the SpokePool's claimed bitmap is keyed by it. */
  leafId: number;
  l2TokenAddress: string;
  refundAddresses: string[];
}

export interface RelayerRefundTree {
  root: string;
  /** proofs[i] proves leaves[i]. */
  proofs: string[][];
}

/** No slow fills on the devnet: the bundle's slow relay root is empty. */
export const EMPTY_MERKLE_ROOT = ZeroHash;

const RELAYER_REFUND_LEAF_TUPLE =
  'tuple(uint256 amountToReturn, uint256 chainId, uint256[] refundAmounts, uint32 leafId, address l2TokenAddress, ' +
  'address[] refundAddresses)';

/** keccak256(abi.encode(leaf)): the struct is dynamic, so its encoding starts with its offset, as Solidity's does. */
export function relayerRefundLeafHash(leaf: RelayerRefundLeaf): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode([RELAYER_REFUND_LEAF_TUPLE], [leaf]));
}

function checkLeaves(leaves: readonly RelayerRefundLeaf[]): void {
  if (leaves.length === 0) throw new Error('a relayer refund root needs at least one leaf');
  const ids = new Set<number>();
  for (const leaf of leaves) {
    if (!Number.isInteger(leaf.leafId) || leaf.leafId < 0 || leaf.leafId > 0xffffffff)
      throw new Error(`leafId ${leaf.leafId} is not a uint32`);
    if (ids.has(leaf.leafId)) throw new Error(`leafId ${leaf.leafId} is used twice in one bundle`);
    ids.add(leaf.leafId);
    if (leaf.refundAmounts.length !== leaf.refundAddresses.length)
      throw new Error(
        `leaf ${leaf.leafId} has ${leaf.refundAmounts.length} amounts for ${leaf.refundAddresses.length} addresses`,
      );
    // getAddress throws on a malformed address: the SpokePool would never pay it.
    for (const address of [leaf.l2TokenAddress, ...leaf.refundAddresses]) getAddress(address);
  }
}

/** The root and per-leaf proofs of a bundle's relayer refund leaves (a single leaf is its own root). */
export function buildRelayerRefundTree(leaves: readonly RelayerRefundLeaf[]): RelayerRefundTree {
  checkLeaves(leaves);
  const hashes = leaves.map((leaf) => Buffer.from(getBytes(relayerRefundLeafHash(leaf))));
  const tree = new MerkleTree(hashes, (data: Buffer) => Buffer.from(getBytes(keccak256(data))), {
    sortPairs: true,
  });
  return {
    root: tree.getHexRoot(),
    proofs: hashes.map((hash, i) => tree.getHexProof(hash, i)),
  };
}

/** OpenZeppelin's MerkleProof.verify over sorted pairs, for checking a proof before sending it. */
export function verifyRelayerRefundProof(
  root: string,
  leaf: RelayerRefundLeaf,
  proof: readonly string[],
): boolean {
  let computed = relayerRefundLeafHash(leaf);
  for (const sibling of proof) {
    const [a, b] = BigInt(computed) < BigInt(sibling) ? [computed, sibling] : [sibling, computed];
    computed = keccak256(`0x${a.slice(2)}${b.slice(2)}`);
  }
  return computed.toLowerCase() === root.toLowerCase();
}
