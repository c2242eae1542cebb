import fc from 'fast-check';
import { makeRoute, type Route } from '../../shared/routing/pathfinding/route';
import { poolSwap, type PoolState } from '../../shared/routing/pools/pool-state';
import { PoolSwapMemo } from '../../shared/routing/pools/pool-swap-memo';
import { SplitEvaluator } from '../../shared/routing/splitting/split-evaluator';
import { simulateSplit } from '../../shared/routing/splitting/route-simulation';
import { fullRange, token, v2Pool, v3Pool } from '../helpers/routing-pools';

const A = token(1);
const W = token(2);
const U = token(3);
const Z = token(9);
const E18 = 10n ** 18n;
const GAS_PRICE = 10n ** 9n;

/** Routes A -> Z over shared pools (W/Z twice, A/W twice), V2 and V3, and a route through one pool twice. */
function sharedRoutes(): Route[] {
  const aw = v2Pool(A, W, 400n * E18, 800n * E18);
  const wz = v3Pool(W, Z, 0, [
    fullRange(300n * E18),
    { tickLower: -600, tickUpper: 600, liquidity: 900n * E18 },
  ]);
  const au = v2Pool(A, U, 500n * E18, 500n * E18);
  const uw = v2Pool(U, W, 600n * E18, 600n * E18);
  const az = v2Pool(A, Z, 200n * E18, 210n * E18);
  const zw = v2Pool(Z, W, 300n * E18, 300n * E18);
  return [
    makeRoute([aw, wz], [A, W, Z]),
    makeRoute([au, uw, wz], [A, U, W, Z]),
    makeRoute([az], [A, Z]),
    // Through Z/W and back: the second hop reads the route's own first-hop state.
    makeRoute([az, zw, zw], [A, Z, W, Z]),
    makeRoute([aw, v3Pool(W, Z, 60, [fullRange(100n * E18)], 500, 10)], [A, W, Z]),
  ];
}

/** What simulateSplit gives for the allocation, net of gas (the reference the evaluator must equal). */
function reference(routes: readonly Route[], units: readonly number[], amountOf: (u: number) => bigint) {
  const outcomes = simulateSplit(routes.map((route, i) => ({ route, amountIn: amountOf(units[i]!) })));
  return outcomes?.reduce((net, o) => net + o.amountOut - o.gas * GAS_PRICE, 0n);
}

describe('SplitEvaluator', () => {
  const routes = sharedRoutes();
  const amountOf = (units: number) => (BigInt(units) * 150n * E18) / 80n;
  const allocation = fc.array(fc.integer({ min: 0, max: 40 }), {
    minLength: routes.length,
    maxLength: routes.length,
  });

  it('property: a trial equals the full in-order simulation, whatever the baseline', () => {
    fc.assert(
      fc.property(allocation, fc.array(allocation, { minLength: 1, maxLength: 6 }), (base, trials) => {
        const evaluator = new SplitEvaluator(routes, amountOf, GAS_PRICE, new PoolSwapMemo());
        expect(evaluator.reset(base)).toBe(reference(routes, base, amountOf));
        for (const trial of trials)
          expect(evaluator.evaluate(trial)).toBe(reference(routes, trial, amountOf));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('values one- and two-route moves from a baseline exactly (the refinement trials)', () => {
    const evaluator = new SplitEvaluator(routes, amountOf, GAS_PRICE, new PoolSwapMemo());
    const base = [12, 8, 0, 6, 4];
    expect(evaluator.reset(base)).toBe(reference(routes, base, amountOf));
    for (let from = -1; from < routes.length; from++) {
      for (let to = -1; to < routes.length; to++) {
        if (from === to) continue;
        const trial = base.map((u, i) => (i === from ? Math.max(0, u - 3) : i === to ? u + 3 : u));
        expect(evaluator.evaluate(trial)).toBe(reference(routes, trial, amountOf));
      }
    }
  });

  it('reports an allocation a route cannot take as undefined and still values others after it', () => {
    const bounded = v3Pool(A, Z, 0, [{ tickLower: -600, tickUpper: 600, liquidity: E18 }]);
    const deep = v2Pool(A, Z, 1000n * E18, 1000n * E18);
    const pair = [makeRoute([bounded], [A, Z]), makeRoute([deep], [A, Z])];
    const evaluator = new SplitEvaluator(pair, (u) => BigInt(u) * E18, GAS_PRICE, new PoolSwapMemo());
    expect(evaluator.reset([1000, 1])).toBeUndefined();
    expect(evaluator.evaluate([0, 5])).toBe(reference(pair, [0, 5], (u) => BigInt(u) * E18));
    expect(evaluator.evaluate([1000, 5])).toBeUndefined();
  });
});

describe('PoolSwapMemo', () => {
  it('returns what poolSwap returns, the same object on a repeat, and refuses foreign tokens', () => {
    const pools: PoolState[] = [
      v2Pool(A, Z, 1000n * E18, 900n * E18),
      v3Pool(A, Z, -120, [fullRange(500n * E18)], 3000),
    ];
    const memo = new PoolSwapMemo();
    for (const pool of pools) {
      for (const tokenIn of [A, Z]) {
        for (const amount of [1n, E18, 10n ** 30n]) {
          const first = memo.swap(pool, tokenIn, amount);
          expect(first).toEqual(poolSwap(pool, tokenIn, amount));
          expect(memo.swap(pool, tokenIn, amount)).toBe(first);
        }
      }
      expect(memo.swap(pool, W, E18)).toBeUndefined();
    }
  });
});
