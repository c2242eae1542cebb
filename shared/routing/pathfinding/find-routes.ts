/**
 * Candidate routes from tokenIn to tokenOut over in-memory pools: direct pools plus multi-hop routes whose
 * intermediate tokens are connectors (wrapped native, major stables: per chain). Bounded twice so large pool
 * sets stay fast: per token pair only the deepest pools are expanded, and only the best candidates by a cheap
 * float estimate are returned. Exact amounts are left to splitting.
 */
import { estimateHop, poolDepth } from '../pools/pool-estimate';
import type { PoolState } from '../pools/pool-state';
import { makeRoute, type Route } from './route';

export interface FindRoutesOptions {
  /** At most 3 (the engine's limit); default 3. */
  maxHops?: number;
  /** Tokens allowed in the middle of a route. */
  connectors: readonly string[];
  /** Candidates returned, best estimate first; default 40. */
  maxRoutes?: number;
  /** Pools expanded per token pair, deepest first; default 4 (a pair rarely has more useful fee tiers). */
  maxPoolsPerPair?: number;
  /** Ranks by estimated output for this input instead of the spot rate, so shallow pools rank lower. */
  estimateAmountIn?: bigint;
}

export const MAX_HOPS = 3;

type Adjacency = Map<string, { neighbor: string; pools: PoolState[] }[]>;

/** token -> neighbours (sorted) -> pools of that pair (deepest first, then by address), pruned per pair. */
function buildAdjacency(pools: readonly PoolState[], maxPoolsPerPair: number): Adjacency {
  const byToken = new Map<string, Map<string, PoolState[]>>();
  const add = (from: string, to: string, pool: PoolState) => {
    let neighbours = byToken.get(from);
    if (!neighbours) byToken.set(from, (neighbours = new Map()));
    let list = neighbours.get(to);
    if (!list) neighbours.set(to, (list = []));
    list.push(pool);
  };
  for (const pool of pools) {
    if (pool.token0 === pool.token1) continue;
    add(pool.token0, pool.token1, pool);
    add(pool.token1, pool.token0, pool);
  }
  const adjacency: Adjacency = new Map();
  for (const [token, neighbours] of byToken) {
    const entries = [...neighbours.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([neighbor, list]) => ({
        neighbor,
        pools: list
          .map((pool) => ({ pool, depth: poolDepth(pool) }))
          .sort((a, b) => b.depth - a.depth || (a.pool.address < b.pool.address ? -1 : 1))
          .slice(0, maxPoolsPerPair)
          .map((x) => x.pool),
      }));
    adjacency.set(token, entries);
  }
  return adjacency;
}

function estimateRoute(route: Route, amountIn: number): number {
  let amount = amountIn;
  let rate = 1;
  for (let i = 0; i < route.pools.length; i++) {
    if (amountIn > 0) amount = estimateHop(route.pools[i]!, route.path[i]!, amount);
    else rate *= estimateHop(route.pools[i]!, route.path[i]!, 0);
  }
  return amountIn > 0 ? amount : rate;
}

/** The pools of one snapshot as a token graph: built once, searched for many pairs (each quote of a block). */
export class PoolGraph {
  private readonly adjacency: Adjacency;

  constructor(pools: readonly PoolState[], maxPoolsPerPair = 4) {
    this.adjacency = buildAdjacency(pools, maxPoolsPerPair);
  }

  routes(tokenIn: string, tokenOut: string, options: Omit<FindRoutesOptions, 'maxPoolsPerPair'>): Route[] {
    const from = tokenIn.toLowerCase();
    const to = tokenOut.toLowerCase();
    const maxHops = Math.min(options.maxHops ?? MAX_HOPS, MAX_HOPS);
    const maxRoutes = options.maxRoutes ?? 40;
    if (from === to || maxHops < 1 || maxRoutes < 1) return [];
    const connectors = new Set(options.connectors.map((c) => c.toLowerCase()));
    const adjacency = this.adjacency;

    const found: Route[] = [];
    const hopPools: PoolState[] = [];
    const path: string[] = [from];
    const visited = new Set<string>([from]);
    const walk = (token: string): void => {
      for (const { neighbor, pools: pairPools } of adjacency.get(token) ?? []) {
        if (visited.has(neighbor)) continue;
        const isEnd = neighbor === to;
        // Intermediates must be connectors and leave room for at least one more hop.
        if (!isEnd && (!connectors.has(neighbor) || hopPools.length + 1 >= maxHops)) continue;
        for (const pool of pairPools) {
          hopPools.push(pool);
          path.push(neighbor);
          if (isEnd) {
            found.push(makeRoute([...hopPools], [...path]));
          } else {
            visited.add(neighbor);
            walk(neighbor);
            visited.delete(neighbor);
          }
          hopPools.pop();
          path.pop();
        }
      }
    };
    walk(from);

    const reference = options.estimateAmountIn !== undefined ? Number(options.estimateAmountIn) : 0;
    return found
      .map((route) => ({ route, score: estimateRoute(route, reference) }))
      .sort(
        (a, b) => b.score - a.score || (a.route.key < b.route.key ? -1 : a.route.key > b.route.key ? 1 : 0),
      )
      .slice(0, maxRoutes)
      .map((x) => x.route);
  }
}

export function findRoutes(
  pools: readonly PoolState[],
  tokenIn: string,
  tokenOut: string,
  options: FindRoutesOptions,
): Route[] {
  return new PoolGraph(pools, options.maxPoolsPerPair).routes(tokenIn, tokenOut, options);
}
