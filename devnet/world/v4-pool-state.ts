import { Contract, concat, keccak256, toBeHex, type Provider } from 'ethers';
import { V4_POOL_MANAGER_ABI } from './abis';

/** The PoolManager's `pools` mapping slot and the offsets in Pool.State that v4-core's StateLibrary reads. */
const POOLS_SLOT = 6n;
const LIQUIDITY_OFFSET = 3n;

export interface V4Slot0 {
  sqrtPriceX96: bigint;
  tick: number;
  protocolFee: number;
  lpFee: number;
  /** In-range liquidity. */
  liquidity: bigint;
}

/**
 * slot0 and the liquidity of a V4 pool, read through the manager's extsload as StateLibrary.getSlot0 and
 * getLiquidity do (the manager has no getters). An uninitialized pool reads all zero.
 */
export async function readV4Slot0(provider: Provider, poolManager: string, poolId: string): Promise<V4Slot0> {
  const stateSlot = BigInt(keccak256(concat([poolId, toBeHex(POOLS_SLOT, 32)])));
  const manager = new Contract(poolManager, V4_POOL_MANAGER_ABI, provider);
  const words = (await manager.getFunction('extsload(bytes32,uint256)')(
    toBeHex(stateSlot, 32),
    LIQUIDITY_OFFSET + 1n,
  )) as string[];
  const slot0 = BigInt(words[0]!);
  const tick24 = Number((slot0 >> 160n) & 0xffffffn);
  return {
    sqrtPriceX96: slot0 & ((1n << 160n) - 1n),
    tick: tick24 >= 0x800000 ? tick24 - 0x1000000 : tick24,
    protocolFee: Number((slot0 >> 184n) & 0xffffffn),
    lpFee: Number((slot0 >> 208n) & 0xffffffn),
    liquidity: BigInt(words[Number(LIQUIDITY_OFFSET)]!) & ((1n << 128n) - 1n),
  };
}
