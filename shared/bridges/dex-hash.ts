import { id } from 'ethers';

/**
 * The `dexHash` a cross-chain swap hands out for a provider, so that POST /tx-status finds the provider again from
 * any api process: `0x` + keccak256(utf8("tas-cross-chain:" + providerId)), lowercase hex.
 */
export function crossChainDexHash(providerId: string): string {
  return id(`tas-cross-chain:${providerId}`).toLowerCase();
}

/** dexHashes compare in any casing (clients are told to send them lowercase, not all do). */
export const sameDexHash = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
