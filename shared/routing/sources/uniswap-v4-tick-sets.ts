/**
 * Keeping a V4 pool's initialized tick set current without rescanning its bitmap: only a ModifyLiquidity of the
 * pool changes ticks, and only its position's two bounds, so the ticks its logs name are all that must be read.
 */
import { AbiCoder, id } from 'ethers';
import type { V3Tick } from '../math/v3-swap';

/** ModifyLiquidity(PoolId indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256, bytes32). */
export const MODIFY_LIQUIDITY_TOPIC = id('ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)');

const abiCoder = AbiCoder.defaultAbiCoder();

export interface LiquidityLog {
  topics: readonly string[];
  data: string;
}

/** The position bounds each pool's ModifyLiquidity logs name, per PoolId (lowercase). */
export function modifiedTicks(logs: readonly LiquidityLog[]): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const log of logs) {
    if (log.topics[0] !== MODIFY_LIQUIDITY_TOPIC || !log.topics[1]) continue;
    const [tickLower, tickUpper] = abiCoder.decode(
      ['int24', 'int24', 'int256', 'bytes32'],
      log.data,
    ) as unknown as [bigint, bigint];
    const poolId = log.topics[1].toLowerCase();
    const ticks = out.get(poolId) ?? new Set<number>();
    ticks.add(Number(tickLower)).add(Number(tickUpper));
    out.set(poolId, ticks);
  }
  return out;
}

export interface TickRead extends V3Tick {
  /** Zero when no position references the tick any more: it is not initialized. */
  liquidityGross: bigint;
}

/** `known` with the re-read ticks applied (an emptied tick removed), sorted ascending. */
export function patchTicks(known: readonly V3Tick[], reads: readonly TickRead[]): V3Tick[] {
  const byIndex = new Map(known.map((t) => [t.index, t.liquidityNet]));
  for (const { index, liquidityGross, liquidityNet } of reads) {
    if (liquidityGross === 0n) byIndex.delete(index);
    else byIndex.set(index, liquidityNet);
  }
  return [...byIndex].sort(([a], [b]) => a - b).map(([index, liquidityNet]) => ({ index, liquidityNet }));
}
