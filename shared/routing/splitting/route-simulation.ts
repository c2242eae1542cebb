/**
 * Exact simulation of routes over pool states. Routes of one split execute one after the other, so a pool two
 * routes share is simulated in its state after the earlier route: the overlay holds those updated states.
 */
import type { Route } from '../pathfinding/route';
import { poolSwap, type PoolState } from '../pools/pool-state';
import type { PoolSwapMemo } from '../pools/pool-swap-memo';

export interface RouteOutcome {
  amountOut: bigint;
  gas: bigint;
}

/** Pool address -> state after the swaps simulated so far; pools not in it are in their original state. */
export type PoolOverlay = Map<string, PoolState>;

/**
 * `amountIn` through every hop of `route`; undefined when a hop cannot take its input. With an overlay, hops
 * read the updated states, and write theirs back when `write` is set and the whole route succeeds. A memo
 * (one per quote) answers hops already simulated from the same state.
 */
export function simulateRoute(
  route: Route,
  amountIn: bigint,
  overlay?: PoolOverlay,
  write = true,
  memo?: PoolSwapMemo,
): RouteOutcome | undefined {
  let amount = amountIn;
  let gas = 0n;
  // Local first: a route given a pool twice sees its own earlier hop too.
  const updates: PoolOverlay = new Map();
  for (let i = 0; i < route.pools.length; i++) {
    const original = route.pools[i]!;
    const pool = updates.get(original.address) ?? overlay?.get(original.address) ?? original;
    const swap = memo ? memo.swap(pool, route.path[i]!, amount) : poolSwap(pool, route.path[i]!, amount);
    if (!swap) return undefined;
    amount = swap.amountOut;
    gas += swap.gas;
    updates.set(original.address, swap.after);
  }
  if (overlay && write) for (const [address, state] of updates) overlay.set(address, state);
  return { amountOut: amount, gas };
}

export interface RouteAmount {
  route: Route;
  amountIn: bigint;
}

/** Per-route outcomes of executing the entries in order (zero amounts skipped); undefined if any fails. */
export function simulateSplit(entries: readonly RouteAmount[]): RouteOutcome[] | undefined {
  const overlay: PoolOverlay = new Map();
  const outcomes: RouteOutcome[] = [];
  for (const { route, amountIn } of entries) {
    if (amountIn === 0n) {
      outcomes.push({ amountOut: 0n, gas: 0n });
      continue;
    }
    const outcome = simulateRoute(route, amountIn, overlay);
    if (!outcome) return undefined;
    outcomes.push(outcome);
  }
  return outcomes;
}
