/**
 * poolSwap memoised per state object. Pool states are immutable and a swap is a pure function of (state,
 * direction, amount), so a repeated hop returns the very same result, including the same `after` object:
 * the hops after it then hit the memo too. Splitting re-simulates the same hops many times over (the first
 * hop of routes through one pool, trial allocations that revisit amounts); the memo makes those free.
 * Use one memo per quote: it holds every state it has seen, so it must not outlive the search it serves.
 */
import { poolSwap, type PoolState, type PoolSwap } from './pool-state';

export class PoolSwapMemo {
  /** Per direction: state -> amountIn -> result (null: the pool cannot take it). */
  private readonly zeroForOne = new WeakMap<PoolState, Map<bigint, PoolSwap | null>>();
  private readonly oneForZero = new WeakMap<PoolState, Map<bigint, PoolSwap | null>>();

  swap(pool: PoolState, tokenIn: string, amountIn: bigint): PoolSwap | undefined {
    // A token not in the pool gets no memo entry: poolSwap refuses it on every call anyway.
    if (tokenIn !== pool.token0 && tokenIn !== pool.token1) return undefined;
    const byState = tokenIn === pool.token0 ? this.zeroForOne : this.oneForZero;
    let byAmount = byState.get(pool);
    if (!byAmount) byState.set(pool, (byAmount = new Map()));
    const known = byAmount.get(amountIn);
    if (known !== undefined) return known ?? undefined;
    const result = poolSwap(pool, tokenIn, amountIn);
    byAmount.set(amountIn, result ?? null);
    return result;
  }
}
