import { AbiCoder, keccak256, toUtf8Bytes } from 'ethers';

/**
 * Finding where an ERC-20 keeps an address's balance, so a forked chain can hand test accounts real tokens by
 * writing storage: no holder of the token has to be known. A proxy's token (USDC) is found the same way, since
 * the balances live in the proxy's storage.
 */

/** How a compiler places `mapping(address => uint256)` entries: Solidity hashes (key, slot), Vyper (slot, key). */
export type MappingLayout = 'solidity' | 'vyper';

/** A balance mapping: the layout and the mapping's own slot (the base its entries are hashed with). */
export interface BalanceMapping {
  layout: MappingLayout;
  slot: bigint;
}

/** Declared slots probed: 0..51 covers OpenZeppelin 4's upgradeable ERC20 (51, behind a 50-slot gap) and more. */
export const MAX_PROBED_SLOT = 100n;

/** The base slot of an ERC-7201 namespace: keccak256(abi.encode(uint256(keccak256(id)) - 1)) & ~0xff. */
export function erc7201Slot(namespaceId: string): bigint {
  const inner = BigInt(keccak256(toUtf8Bytes(namespaceId))) - 1n;
  return BigInt(keccak256(AbiCoder.defaultAbiCoder().encode(['uint256'], [inner]))) & ~0xffn;
}

/** OpenZeppelin 5's upgradeable ERC20 keeps `_balances` first in this namespace. */
export const OZ5_ERC20_BALANCES_SLOT = erc7201Slot('openzeppelin.storage.ERC20');

/** Every mapping probed, most likely first: each low slot in both layouts, then OpenZeppelin 5's namespace. */
export function balanceMappingCandidates(maxSlot: bigint = MAX_PROBED_SLOT): BalanceMapping[] {
  const candidates: BalanceMapping[] = [];
  for (let slot = 0n; slot <= maxSlot; slot += 1n) {
    candidates.push({ layout: 'solidity', slot }, { layout: 'vyper', slot });
  }
  candidates.push({ layout: 'solidity', slot: OZ5_ERC20_BALANCES_SLOT });
  return candidates;
}

/** The storage slot holding `holder`'s entry of the mapping. */
export function balanceSlotOf(mapping: BalanceMapping, holder: string): bigint {
  const coder = AbiCoder.defaultAbiCoder();
  const encoded =
    mapping.layout === 'solidity'
      ? coder.encode(['address', 'uint256'], [holder, mapping.slot])
      : coder.encode(['uint256', 'address'], [mapping.slot, holder]);
  return BigInt(keccak256(encoded));
}

/** What probing needs of a chain: raw storage reads and writes, and the token's own balanceOf. */
export interface StorageProbe {
  read(address: string, slot: bigint): Promise<bigint>;
  write(address: string, slot: bigint, value: bigint): Promise<void>;
  balanceOf(token: string, holder: string): Promise<bigint>;
}

/**
 * Below 2^96 so that tokens storing balances in narrower integers (UNI's uint96) read it back whole, and below
 * 2^255 for USDC 2.2, which keeps a blacklist flag in the top bit of the balance word.
 */
const MARKER = 0x5eedf00d_5eedf00d_5eedf00dn;

/**
 * Finds the token's balance mapping by writing a marker into `holder`'s entry of each candidate and reading
 * balanceOf back. Every slot written is restored, so probing leaves the chain as it found it. Undefined: no
 * candidate held the balance (e.g. a rebasing token whose balanceOf is computed from shares).
 */
export async function findBalanceMapping(
  probe: StorageProbe,
  token: string,
  holder: string,
  candidates: readonly BalanceMapping[] = balanceMappingCandidates(),
): Promise<BalanceMapping | undefined> {
  const before = await probe.balanceOf(token, holder);
  const marker = before === MARKER ? MARKER + 1n : MARKER;
  for (const candidate of candidates) {
    const slot = balanceSlotOf(candidate, holder);
    const original = await probe.read(token, slot);
    await probe.write(token, slot, marker);
    // A view that reverts once a slot holds a foreign value only says this slot is not the balance.
    const seen = await probe.balanceOf(token, holder).catch(() => undefined);
    await probe.write(token, slot, original);
    if (seen === marker) return candidate;
  }
  return undefined;
}
