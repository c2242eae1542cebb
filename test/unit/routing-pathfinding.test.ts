import { findRoutes } from '../../shared/routing/pathfinding/find-routes';
import type { Route } from '../../shared/routing/pathfinding/route';
import { otherToken, type PoolState, type V2PoolState } from '../../shared/routing/pools/pool-state';
import { bestSplit } from '../../shared/routing/splitting/best-split';
import { fullRange, randomPoolSet, token, v2Pool, v3Pool } from '../helpers/routing-pools';

const A = token(1);
const W = token(2);
const U = token(3);
const D = token(4);
const X = token(5);
const Z = token(9);
const E18 = 10n ** 18n;

/** Every route starts at tokenIn, ends at tokenOut, each hop's pool holds its tokens, nothing repeats. */
function expectWellFormed(
  routes: readonly Route[],
  tokenIn: string,
  tokenOut: string,
  connectors: string[],
): void {
  for (const route of routes) {
    expect(route.path[0]).toBe(tokenIn);
    expect(route.path[route.path.length - 1]).toBe(tokenOut);
    expect(route.pools.length).toBeGreaterThanOrEqual(1);
    expect(route.pools.length).toBeLessThanOrEqual(3);
    route.pools.forEach((pool, i) => expect(otherToken(pool, route.path[i]!)).toBe(route.path[i + 1]));
    expect(new Set(route.path).size).toBe(route.path.length);
    expect(new Set(route.pools.map((p) => p.address)).size).toBe(route.pools.length);
    for (const middle of route.path.slice(1, -1)) expect(connectors).toContain(middle);
  }
}

const tokensOf = (r: Route) => r.path.join(',');

describe('findRoutes', () => {
  const direct = v2Pool(A, Z, 1000n * E18, 1000n * E18);
  const aw = v2Pool(A, W, 1000n * E18, 1000n * E18);
  const wz = v3Pool(W, Z, 0, [fullRange(1000n * E18)]);
  const au = v2Pool(A, U, 1000n * E18, 1000n * E18);
  const ud = v2Pool(U, D, 1000n * E18, 1000n * E18);
  const dz = v2Pool(D, Z, 1000n * E18, 1000n * E18);
  const uw = v2Pool(U, W, 1000n * E18, 1000n * E18);
  const ax = v2Pool(A, X, 1000n * E18, 1000n * E18);
  const xz = v2Pool(X, Z, 1000n * E18, 1000n * E18);
  const pools: PoolState[] = [direct, aw, wz, au, ud, dz, uw, ax, xz];
  const connectors = [W, U, D];

  it('finds direct, 2-hop and 3-hop routes through connectors only, without cycles', () => {
    const routes = findRoutes(pools, A, Z, { maxHops: 3, connectors });
    expectWellFormed(routes, A, Z, connectors);
    const paths = routes.map(tokensOf).sort();
    expect(paths).toEqual(
      [
        [A, Z],
        [A, W, Z],
        [A, U, W, Z],
        [A, U, D, Z],
      ]
        .map((p) => p.join(','))
        .sort(),
    );
    // The non-connector X never appears in the middle.
    expect(routes.some((r) => r.path.includes(X))).toBe(false);
    // A -> W -> U -> D -> Z would be 4 hops; the direct pool is a route of its own.
    expect(routes.find((r) => r.pools.length === 1)?.pools[0]).toBe(direct);
  });

  it('uses a token as intermediate once it is a connector', () => {
    const routes = findRoutes(pools, A, Z, { connectors: [...connectors, X] });
    expect(routes.map(tokensOf)).toContain([A, X, Z].join(','));
    expectWellFormed(routes, A, Z, [...connectors, X]);
  });

  it('respects maxHops and finds nothing for an unconnected pair or the same token', () => {
    expect(findRoutes(pools, A, Z, { maxHops: 1, connectors }).map(tokensOf).sort()).toEqual([
      [A, Z].join(','),
    ]);
    expect(findRoutes(pools, A, Z, { maxHops: 2, connectors }).map(tokensOf).sort()).toEqual(
      [[A, W, Z].join(','), [A, Z].join(',')].sort(),
    );
    expect(findRoutes(pools, A, token(77), { connectors })).toEqual([]);
    expect(findRoutes(pools, A, A, { connectors })).toEqual([]);
  });

  it('needs 3 hops at most: a target 4 hops away is not reached', () => {
    const far = token(42);
    const chain = [
      v2Pool(A, W, E18, E18),
      v2Pool(W, U, E18, E18),
      v2Pool(U, D, E18, E18),
      v2Pool(D, far, E18, E18),
    ];
    expect(findRoutes(chain, A, far, { connectors: [W, U, D] })).toEqual([]);
    expect(findRoutes(chain.slice(1), W, far, { connectors: [U, D] }).map(tokensOf)).toEqual([
      [W, U, D, far].join(','),
    ]);
  });

  it('is deterministic whatever the pool order, accepts any casing and ranks by estimate', () => {
    const first = findRoutes(pools, A, Z, { connectors });
    const shuffled = [...pools].reverse();
    const again = findRoutes(shuffled, A.toUpperCase().replace('0X', '0x'), Z, {
      connectors: connectors.map((c) => c.toUpperCase()),
    });
    expect(again.map((r) => r.key)).toEqual(first.map((r) => r.key));
    // Equal reserves everywhere: fewer hops lose fewer fees, so the direct route ranks first.
    expect(first[0]!.pools).toEqual([direct]);
    expect(findRoutes(pools, A, Z, { connectors, maxRoutes: 2 }).map((r) => r.key)).toEqual(
      first.slice(0, 2).map((r) => r.key),
    );
  });

  it('ranks a shallow pool with a better spot price lower once the amount is large', () => {
    const shallow = v2Pool(A, Z, 10n * E18, 11n * E18);
    const deep = v2Pool(A, Z, 1000n * E18, 1000n * E18);
    expect(findRoutes([deep, shallow], A, Z, { connectors: [] })[0]!.pools[0]).toBe(shallow);
    expect(
      findRoutes([deep, shallow], A, Z, { connectors: [], estimateAmountIn: 50n * E18 })[0]!.pools[0],
    ).toBe(deep);
  });

  it('keeps only the deepest pools of a pair', () => {
    const tiers = [1n, 5n, 3n, 4n, 2n].map((scale) => v2Pool(A, Z, scale * E18, scale * E18));
    const routes = findRoutes(tiers, A, Z, { connectors: [], maxPoolsPerPair: 2 });
    expect(routes.map((r) => (r.pools[0] as V2PoolState).reserve0)).toEqual([5n * E18, 4n * E18]);
  });

  it('routes over ~200 pools and 8 connectors with the candidate cap', () => {
    const { pools: big, connectors: connectorTokens, tokens } = randomPoolSet(7, 200);
    // The two best-connected non-connector tokens: a pair that needs multi-hop routes.
    const degree = (t: string) => big.filter((p) => p.token0 === t || p.token1 === t).length;
    const [tokenIn, tokenOut] = [...tokens].sort((a, b) => degree(b) - degree(a) || (a < b ? -1 : 1));
    const routes = findRoutes(big, tokenIn, tokenOut, { connectors: connectorTokens, maxRoutes: 40 });
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.length).toBeLessThanOrEqual(40);
    expectWellFormed(routes, tokenIn, tokenOut, connectorTokens);
    const result = bestSplit(routes, 10n * E18);
    expect(result).toBeDefined();
    expect(result!.splits.reduce((s, x) => s + x.amountIn, 0n)).toBe(10n * E18);
  });
});
