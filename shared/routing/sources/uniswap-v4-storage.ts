/**
 * Where the Uniswap V4 PoolManager keeps a pool's state, for reads through its `extsload`: the slot layout of
 * v4-core's StateLibrary (`pools` mapping at slot 6, Pool.State fields at fixed offsets), so one batched
 * extsload answers what the manager exposes through no view function.
 */
import { AbiCoder, ZeroAddress, concat, keccak256, toBeHex, zeroPadValue } from 'ethers';

const POOLS_SLOT = 6n;
const LIQUIDITY_OFFSET = 3n;
const TICKS_OFFSET = 4n;
const TICK_BITMAP_OFFSET = 5n;
const WORD = 1n << 256n;

const abiCoder = AbiCoder.defaultAbiCoder();

/** A V4 PoolKey of two ERC-20 currencies (currency0 < currency1); hooks are address(0) unless given. */
export interface V4PoolKey {
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks?: string;
}

/** PoolIdLibrary.toId: keccak256 of the abi-encoded PoolKey (five words), lowercase 0x-hex. */
export function v4PoolId(key: V4PoolKey): string {
  return keccak256(
    abiCoder.encode(
      ['address', 'address', 'uint24', 'int24', 'address'],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks ?? ZeroAddress],
    ),
  ).toLowerCase();
}

const slotHex = (slot: bigint): string => toBeHex(slot % WORD, 32);

/** `pools[poolId]`: the slot of Pool.State, whose first word is slot0. */
export function poolStateSlot(poolId: string): bigint {
  return BigInt(keccak256(concat([zeroPadValue(poolId, 32), toBeHex(POOLS_SLOT, 32)])));
}

export function slot0Slot(stateSlot: bigint): string {
  return slotHex(stateSlot);
}

export function liquiditySlot(stateSlot: bigint): string {
  return slotHex(stateSlot + LIQUIDITY_OFFSET);
}

/** `pools[poolId].ticks[tick]`: its first word packs liquidityGross (low 128 bits) and liquidityNet (high). */
export function tickInfoSlot(stateSlot: bigint, tick: number): string {
  return keccak256(abiCoder.encode(['int256', 'uint256'], [tick, (stateSlot + TICKS_OFFSET) % WORD]));
}

/** `pools[poolId].tickBitmap[word]`. */
export function tickBitmapSlot(stateSlot: bigint, word: number): string {
  return keccak256(abiCoder.encode(['int256', 'uint256'], [word, (stateSlot + TICK_BITMAP_OFFSET) % WORD]));
}

export interface V4Slot0 {
  sqrtPriceX96: bigint;
  tick: number;
  /** Two 12-bit protocol fees in pips: zeroForOne in the low bits, oneForZero in the high ones. */
  protocolFee: number;
  lpFee: number;
}

/** Slot0 as packed: sqrtPriceX96 (160 bits) | tick (int24) | protocolFee (24) | lpFee (24). */
export function decodeSlot0(word: bigint): V4Slot0 {
  return {
    sqrtPriceX96: word & ((1n << 160n) - 1n),
    tick: Number(BigInt.asIntN(24, word >> 160n)),
    protocolFee: Number((word >> 184n) & 0xffffffn),
    lpFee: Number((word >> 208n) & 0xffffffn),
  };
}

export function decodeLiquidity(word: bigint): bigint {
  return word & ((1n << 128n) - 1n);
}

export interface V4TickLiquidity {
  liquidityGross: bigint;
  liquidityNet: bigint;
}

export function decodeTickLiquidity(word: bigint): V4TickLiquidity {
  return {
    liquidityGross: word & ((1n << 128n) - 1n),
    liquidityNet: BigInt.asIntN(128, word >> 128n),
  };
}
