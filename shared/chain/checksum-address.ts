import { getAddress, isAddress } from 'ethers';
import { LRUCache } from 'lru-cache';

/**
 * EIP-55 checksums remembered: a checksum is a keccak hash (tens of microseconds in JS), and the keeper checksums
 * the same few makers and tokens for every order of a wave. Only answers are kept; what ethers refuses is refused
 * again each time.
 */
export const CHECKED_ADDRESSES_MAX = 20_000;
const checksums = new LRUCache<string, string>({
  max: CHECKED_ADDRESSES_MAX,
  memoMethod: (a) => getAddress(a),
});
const verdicts = new LRUCache<string, boolean>({
  max: CHECKED_ADDRESSES_MAX,
  memoMethod: (a) => isAddress(a),
});

/** ethers' getAddress (the checksummed form; throws on anything that is not an address), remembered. */
export function checksumAddress(address: string): string {
  return checksums.memo(address);
}

/** ethers' isAddress (lower, upper or correctly checksummed mixed case), remembered. */
export function isChecksumValidAddress(address: string): boolean {
  return verdicts.memo(address);
}
