import {
  AbiCoder,
  ZeroAddress,
  getCreate2Address,
  getCreateAddress,
  getAddress,
  keccak256,
  solidityPacked,
  toBeHex,
} from 'ethers';
import { sortTokens } from './uniswap-pool-address';

/**
 * Where the other venues' pools of the devnet end up, computed before anything is mined so that the world stays
 * one stream of transactions: CREATE2 for SushiSwap pairs, the PoolId hash for Uniswap V4, CREATE nonces of the
 * factories for Balancer and StableSwap pools. deployWorld reads every one back from the contracts after mining.
 */

/**
 * keccak256 of the devnet's SushiSwap UniswapV2Pair creation code (contracts-abi/external/sushiswap-v2, solc
 * 0.6.12). Not mainnet's (0xe18a34eb…): the metadata hash in the bytecode differs with the build. deployWorld checks it
 * against the factory's pairCodeHash(), a unit test against the committed artifact.
 */
export const SUSHISWAP_V2_PAIR_INIT_CODE_HASH =
  '0x71e41cb45e17233ba1d641e88ae4d57f94db6315c5747eb7614b20ac31a686fb';

export function sushiswapPairAddress(factory: string, a: string, b: string): string {
  const [t0, t1] = sortTokens(a, b);
  const salt = keccak256(solidityPacked(['address', 'address'], [t0, t1]));
  return getCreate2Address(factory, salt, SUSHISWAP_V2_PAIR_INIT_CODE_HASH);
}

/** A Uniswap V4 PoolKey: currencies sorted, no hooks (the only pools our contracts execute). */
export interface V4PoolKey {
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
}

export function v4PoolKey(a: string, b: string, fee: number, tickSpacing: number): V4PoolKey {
  const [currency0, currency1] = sortTokens(getAddress(a), getAddress(b));
  return { currency0, currency1, fee, tickSpacing, hooks: ZeroAddress };
}

/** PoolIdLibrary.toId: keccak256 of the ABI-encoded key (five static words). */
export function v4PoolId(key: V4PoolKey): string {
  return keccak256(
    AbiCoder.defaultAbiCoder().encode(
      ['address', 'address', 'uint24', 'int24', 'address'],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
}

/** Balancer's Vault specialization of a two-token pool (IVault.PoolSpecialization.TWO_TOKEN). */
export const BALANCER_TWO_TOKEN_SPECIALIZATION = 2n;

/**
 * A Vault pool id: the pool's address, its specialization (2 bytes) and the Vault's pool counter at registration
 * (10 bytes), as PoolRegistry._toPoolId packs them.
 */
export function balancerPoolId(pool: string, specialization: bigint, nonce: bigint): string {
  return toBeHex((BigInt(pool) << 96n) | (specialization << 80n) | nonce, 32);
}

/**
 * The weighted pool factory (BaseSplitCodeFactory) deploys the two halves of the pool's creation code in its
 * constructor, using its nonces 1 and 2; its pools are created with plain CREATE from nonce 3 on.
 */
const WEIGHTED_FACTORY_FIRST_POOL_NONCE = 3;

export function weightedPoolAddress(factory: string, index: number): string {
  return getCreateAddress({ from: factory, nonce: WEIGHTED_FACTORY_FIRST_POOL_NONCE + index });
}

/** Our StableSwapFactory creates its pools with `new` (CREATE); a contract's first nonce is 1 (EIP-161). */
export function stableSwapPoolAddress(factory: string, index: number): string {
  return getCreateAddress({ from: factory, nonce: 1 + index });
}
