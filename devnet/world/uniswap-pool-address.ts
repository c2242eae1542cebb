import { AbiCoder, getCreate2Address, keccak256, solidityPacked } from 'ethers';

/**
 * keccak256 of UniswapV2Pair's creation code, hard-coded in UniswapV2Library.pairFor of the periphery
 * (Router02). It only works because @uniswap/v2-core's published pair bytecode hashes to exactly this value;
 * deployWorld checks that the factory really creates pairs at these addresses.
 */
export const V2_PAIR_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';

/** keccak256 of UniswapV3Pool's creation code, hard-coded in the V3 periphery's PoolAddress library. */
export const V3_POOL_INIT_CODE_HASH = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54';

/** Uniswap orders a pool's tokens by address (token0 < token1). */
export function sortTokens(a: string, b: string): [string, string] {
  return BigInt(a) < BigInt(b) ? [a, b] : [b, a];
}

export function v2PairAddress(factory: string, a: string, b: string): string {
  const [t0, t1] = sortTokens(a, b);
  const salt = keccak256(solidityPacked(['address', 'address'], [t0, t1]));
  return getCreate2Address(factory, salt, V2_PAIR_INIT_CODE_HASH);
}

export function v3PoolAddress(factory: string, a: string, b: string, fee: number): string {
  const [t0, t1] = sortTokens(a, b);
  const salt = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'address', 'uint24'], [t0, t1, fee]));
  return getCreate2Address(factory, salt, V3_POOL_INIT_CODE_HASH);
}
