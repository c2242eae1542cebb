/** A candidate route: a sequence of pools from tokenIn to tokenOut, with the tokens it passes through. */
import type { PoolState } from '../pools/pool-state';

export interface Route {
  pools: readonly PoolState[];
  /** Tokens in order, path[0] = tokenIn, path[pools.length] = tokenOut (lowercase). */
  path: readonly string[];
  /** Pool addresses joined by '>': unique per route, used for deterministic ordering. */
  key: string;
}

export function makeRoute(pools: readonly PoolState[], path: readonly string[]): Route {
  if (path.length !== pools.length + 1) throw new RangeError('a route has one more token than pools');
  return { pools, path, key: pools.map((p) => p.address).join('>') };
}
