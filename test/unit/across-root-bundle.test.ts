import { AbiCoder, getAddress, keccak256 } from 'ethers';
import {
  buildRelayerRefundTree,
  relayerRefundLeafHash,
  verifyRelayerRefundProof,
  type RelayerRefundLeaf,
} from '../../shared/bridges/across/root-bundle';

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);

function leaf(leafId: number, refunds = 1): RelayerRefundLeaf {
  return {
    amountToReturn: 0n,
    chainId: 1n,
    refundAmounts: Array.from({ length: refunds }, (_, i) => BigInt(1000 * (leafId + 1) + i)),
    leafId,
    l2TokenAddress: address(0xa0 + leafId),
    refundAddresses: Array.from({ length: refunds }, (_, i) => address(0x100 + leafId * 10 + i)),
  };
}

describe('relayer refund root bundles', () => {
  it('hashes a leaf as keccak256(abi.encode(leaf)) with the dynamic struct’s offset first', () => {
    const l = leaf(0, 2);
    const encoded = AbiCoder.defaultAbiCoder().encode(
      ['tuple(uint256,uint256,uint256[],uint32,address,address[])'],
      [[l.amountToReturn, l.chainId, l.refundAmounts, l.leafId, l.l2TokenAddress, l.refundAddresses]],
    );
    expect(encoded.slice(0, 66)).toBe(`0x${'0'.repeat(62)}20`);
    expect(relayerRefundLeafHash(l)).toBe(keccak256(encoded));
  });

  it('makes a single leaf its own root with an empty proof', () => {
    const tree = buildRelayerRefundTree([leaf(0)]);
    expect(tree.root).toBe(relayerRefundLeafHash(leaf(0)));
    expect(tree.proofs).toEqual([[]]);
  });

  it.each([2, 3, 4, 5, 7, 8])('proves every one of %i leaves against the root over sorted pairs', (n) => {
    const leaves = Array.from({ length: n }, (_, i) => leaf(i, 1 + (i % 3)));
    const tree = buildRelayerRefundTree(leaves);
    leaves.forEach((l, i) => {
      expect(verifyRelayerRefundProof(tree.root, l, tree.proofs[i]!)).toBe(true);
      // A proof belongs to its leaf only.
      expect(verifyRelayerRefundProof(tree.root, leaves[(i + 1) % n]!, tree.proofs[i]!)).toBe(false);
    });
    const tampered = { ...leaves[0]!, refundAmounts: leaves[0]!.refundAmounts.map((a) => a + 1n) };
    expect(verifyRelayerRefundProof(tree.root, tampered, tree.proofs[0]!)).toBe(false);
  });

  it('refuses bundles the SpokePool could not execute', () => {
    expect(() => buildRelayerRefundTree([])).toThrow('at least one leaf');
    expect(() => buildRelayerRefundTree([leaf(1), leaf(1)])).toThrow('leafId 1 is used twice');
    expect(() => buildRelayerRefundTree([{ ...leaf(0), refundAddresses: [] }])).toThrow('1 amounts for 0');
    expect(() => buildRelayerRefundTree([{ ...leaf(0), leafId: -1 }])).toThrow('not a uint32');
  });
});
