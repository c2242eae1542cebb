import { CurrencyAmount, Token } from '@uniswap/sdk-core';
import { Pair, Trade } from '@uniswap/v2-sdk';
import fc from 'fast-check';
import { findRoutes } from '../../shared/routing/pathfinding/find-routes';
import { makeRoute, type Route } from '../../shared/routing/pathfinding/route';
import {
  hopGas,
  poolAmountOut,
  type PoolState,
  type V2PoolState,
} from '../../shared/routing/pools/pool-state';
import { bestSplit, type SplitResult } from '../../shared/routing/splitting/best-split';
import { simulateRoute, simulateSplit } from '../../shared/routing/splitting/route-simulation';
import { fullRange, seededRandom, token, v2Pool, v3Pool } from '../helpers/routing-pools';

const A = token(1);
const W = token(2);
const U = token(3);
const Z = token(9);
const E18 = 10n ** 18n;

const route = (pools: PoolState[], path: string[]) => makeRoute(pools, path);
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

/** Best total output over every allocation in steps of 1% of amountIn, executed in route order. */
function exhaustiveBest(routes: readonly Route[], amountIn: bigint): bigint {
  let best = 0n;
  const percents: number[] = [];
  const visit = (i: number, left: number): void => {
    if (i === routes.length - 1) {
      percents.push(left);
      const amounts = percents.map((p) => (amountIn * BigInt(p)) / 100n);
      amounts[amounts.length - 1]! += amountIn - sum(amounts);
      const outcomes = simulateSplit(routes.map((r, j) => ({ route: r, amountIn: amounts[j]! })));
      if (outcomes) {
        const out = sum(outcomes.map((o) => o.amountOut));
        if (out > best) best = out;
      }
      percents.pop();
      return;
    }
    for (let p = 0; p <= left; p++) {
      percents.push(p);
      visit(i + 1, left - p);
      percents.pop();
    }
  };
  visit(0, 100);
  return best;
}

function bestSingle(routes: readonly Route[], amountIn: bigint): bigint {
  return routes.reduce((best, r) => {
    const out = simulateRoute(r, amountIn)?.amountOut ?? 0n;
    return out > best ? out : best;
  }, 0n);
}

/** The result is what its splits really pay when executed in order, and spends exactly amountIn. */
function expectExact(result: SplitResult | undefined, amountIn: bigint): SplitResult {
  expect(result).toBeDefined();
  const r = result!;
  expect(sum(r.splits.map((s) => s.amountIn))).toBe(amountIn);
  const outcomes = simulateSplit(r.splits.map((s) => ({ route: s.route, amountIn: s.amountIn })));
  expect(outcomes).toBeDefined();
  expect(r.splits.map((s) => s.amountOut)).toEqual(outcomes!.map((o) => o.amountOut));
  expect(r.amountOut).toBe(sum(outcomes!.map((o) => o.amountOut)));
  expect(r.gasEstimate).toBe(sum(outcomes!.map((o) => o.gas)));
  for (const s of r.splits) expect(s.amountIn).toBeGreaterThan(0n);
  return r;
}

/** Within 0.05% of the exhaustive optimum, and never below the best single route. */
function expectNearOptimal(routes: readonly Route[], amountIn: bigint): SplitResult {
  const result = expectExact(bestSplit(routes, amountIn), amountIn);
  const optimum = exhaustiveBest(routes, amountIn);
  expect(result.amountOut * 10_000n).toBeGreaterThanOrEqual(optimum * 9_995n);
  expect(result.amountOut).toBeGreaterThanOrEqual(bestSingle(routes, amountIn));
  return result;
}

describe('pool hops', () => {
  it('dispatches to the exact V2 and V3 math and models gas per hop', () => {
    const v2 = v2Pool(A, Z, 1000n * E18, 2000n * E18);
    // UniswapV2Library.getAmountOut by hand: 997 * in * rOut / (1000 * rIn + 997 * in).
    expect(poolAmountOut(v2, A, E18)).toBe((997n * E18 * 2000n * E18) / (1000n * 1000n * E18 + 997n * E18));
    expect(poolAmountOut(v2, W, E18)).toBe(0n);
    const v3 = v3Pool(A, Z, 0, [fullRange(1000n * E18)]);
    expect(poolAmountOut(v3, Z, E18)).toBeGreaterThan(0n);
    expect(hopGas(v2)).toBe(60_000n);
    expect(hopGas(v3, 2)).toBe(120_000n);
  });

  it('counts crossed ticks in V3 gas and refuses a swap the pool cannot fill', () => {
    // Concentrated liquidity around the price plus a thin full range: a big swap crosses the range edges.
    const pool = v3Pool(A, Z, 0, [
      fullRange(E18),
      { tickLower: -600, tickUpper: 600, liquidity: 10_000n * E18 },
    ]);
    const small = simulateRoute(route([pool], [A, Z]), E18)!;
    expect(small.gas).toBe(80_000n);
    const big = simulateRoute(route([pool], [A, Z]), 1000n * E18)!;
    expect(big.gas).toBe(100_000n);
    // Only a bounded range: more input than it can absorb stops at the bound, and the hop is refused.
    const bounded = v3Pool(A, Z, 0, [{ tickLower: -600, tickUpper: 600, liquidity: E18 }]);
    expect(poolAmountOut(bounded, A, 10n ** 30n)).toBe(0n);
  });
});

describe('bestSplit against the exhaustive optimum', () => {
  it('splits across two unequal V2 pools', () => {
    const routes = [
      route([v2Pool(A, Z, 1000n * E18, 1000n * E18)], [A, Z]),
      route([v2Pool(A, Z, 300n * E18, 301n * E18)], [A, Z]),
    ];
    const result = expectNearOptimal(routes, 200n * E18);
    expect(result.splits).toHaveLength(2);
    expect(result.amountOut).toBeGreaterThan(bestSingle(routes, 200n * E18));
  });

  it('splits across V2, full-range V3 and concentrated V3 pools (ticks crossed)', () => {
    const routes = [
      route([v2Pool(A, Z, 500n * E18, 500n * E18)], [A, Z]),
      route([v3Pool(A, Z, 0, [fullRange(400n * E18)], 500, 10)], [A, Z]),
      route(
        [
          v3Pool(A, Z, 0, [
            fullRange(50n * E18),
            { tickLower: -1200, tickUpper: 1200, liquidity: 3000n * E18 },
          ]),
        ],
        [A, Z],
      ),
    ];
    for (const amount of [E18, 100n * E18, 400n * E18]) expectNearOptimal(routes, amount);
  });

  it('splits across disjoint multi-hop routes', () => {
    const routes = [
      route([v2Pool(A, W, 800n * E18, 1600n * E18), v3Pool(W, Z, 0, [fullRange(1200n * E18)])], [A, W, Z]),
      route([v2Pool(A, U, 500n * E18, 500n * E18), v2Pool(U, Z, 700n * E18, 690n * E18)], [A, U, Z]),
      route([v2Pool(A, Z, 200n * E18, 199n * E18)], [A, Z]),
    ];
    expectNearOptimal(routes, 150n * E18);
  });

  it('accounts for a pool shared by two routes (simulated one after the other)', () => {
    const wz = v2Pool(W, Z, 300n * E18, 300n * E18);
    const routes = [
      route([v2Pool(A, W, 2000n * E18, 2000n * E18), wz], [A, W, Z]),
      route(
        [v2Pool(A, U, 2000n * E18, 2000n * E18), v2Pool(U, W, 2000n * E18, 2000n * E18), wz],
        [A, U, W, Z],
      ),
      route([v2Pool(A, Z, 300n * E18, 300n * E18)], [A, Z]),
    ];
    const amountIn = 120n * E18;
    const result = expectNearOptimal(routes, amountIn);
    // Both W routes are used (the 3-hop one relieves A/W); valuing them separately would count the shared
    // W/Z depth twice, so the exact result is below that (wrong) sum.
    expect(result.splits.filter((s) => s.route.pools.includes(wz))).toHaveLength(2);
    const separate = sum(result.splits.map((s) => simulateRoute(s.route, s.amountIn)!.amountOut));
    expect(result.amountOut).toBeLessThan(separate);
  });
});

describe('bestSplit gas and bounds', () => {
  const deep = () => [
    route([v2Pool(A, Z, 1000n * E18, 1000n * E18)], [A, Z]),
    route([v2Pool(A, Z, 1000n * E18, 1000n * E18)], [A, Z]),
  ];

  it('keeps a single route when the split does not pay for its gas, and splits when it does', () => {
    const amountIn = 100n * E18;
    const routes = deep();
    // Splitting 50/50 saves about 4.3e18 of output; a second hop at 60k gas costs 60000 * price.
    const cheap = expectExact(bestSplit(routes, amountIn, { gasPriceInTokenOut: 10n ** 9n }), amountIn);
    expect(cheap.splits).toHaveLength(2);
    const dear = expectExact(bestSplit(routes, amountIn, { gasPriceInTokenOut: 10n ** 14n }), amountIn);
    expect(dear.splits).toHaveLength(1);
    expect(dear.amountOut).toBe(bestSingle(routes, amountIn));
    expect(dear.gasEstimate).toBe(60_000n);
  });

  it('prefers a cheaper-gas route when outputs are close', () => {
    const v3 = route([v3Pool(A, Z, 0, [fullRange(1_000_000n * E18)], 3000)], [A, Z]);
    const twoHop = route(
      [
        v2Pool(A, W, 10n ** 9n * E18, 10n ** 9n * E18, 0n),
        v2Pool(W, Z, 10n ** 9n * E18, 10n ** 9n * E18, 0n),
      ],
      [A, W, Z],
    );
    // Without gas the fee-free 2-hop pays slightly more; at a high gas price its extra hop costs more.
    expect(bestSplit([v3, twoHop], E18)!.splits[0]!.route).toBe(twoHop);
    expect(bestSplit([v3, twoHop], E18, { gasPriceInTokenOut: 10n ** 12n })!.splits[0]!.route).toBe(v3);
  });

  it('returns undefined when nothing can take the amount, and is deterministic', () => {
    expect(bestSplit([], E18)).toBeUndefined();
    expect(bestSplit(deep(), 0n)).toBeUndefined();
    const routes = deep();
    const a = bestSplit(routes, 77n * E18)!;
    const b = bestSplit(routes, 77n * E18)!;
    expect(b.splits.map((s) => [s.route.key, s.amountIn])).toEqual(
      a.splits.map((s) => [s.route.key, s.amountIn]),
    );
  });

  it('property: amounts sum to amountIn, output is exact and never below the best single route', () => {
    const poolArb = fc.record({
      reserveIn: fc.bigInt({ min: 10n ** 15n, max: 10n ** 24n }),
      reserveOut: fc.bigInt({ min: 10n ** 15n, max: 10n ** 24n }),
      feeBps: fc.constantFrom(5n, 30n, 100n),
      hop: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(poolArb, { minLength: 1, maxLength: 4 }),
        fc.bigInt({ min: 1n, max: 10n ** 23n }),
        fc.integer({ min: 1, max: 25 }),
        (specs, amountIn, parts) => {
          const routes = specs.map((s, i) =>
            s.hop
              ? route(
                  [
                    v2Pool(A, token(50 + i), s.reserveIn, s.reserveIn, s.feeBps),
                    v2Pool(token(50 + i), Z, s.reserveIn, s.reserveOut),
                  ],
                  [A, token(50 + i), Z],
                )
              : route([v2Pool(A, Z, s.reserveIn, s.reserveOut, s.feeBps)], [A, Z]),
          );
          const single = bestSingle(routes, amountIn);
          const result = bestSplit(routes, amountIn, { parts });
          if (single === 0n && result === undefined) return;
          const exact = expectExact(result, amountIn);
          expect(exact.amountOut).toBeGreaterThanOrEqual(single);
        },
      ),
      { numRuns: 150, seed: 42 },
    );
  });
});

describe('oracle: @uniswap/v2-sdk Trade.bestTradeExactIn', () => {
  /** Pools between random pairs of 6 tokens, priced consistently (noise within 0.1%: no arbitrage cycle pays). */
  function randomV2Set(seed: number): { pools: V2PoolState[]; tokens: string[] } {
    const rand = seededRandom(seed);
    const tokens = Array.from({ length: 6 }, (_, i) => token(300 + i));
    const price = tokens.map(() => BigInt(1 + rand(1000)));
    const pools: V2PoolState[] = [];
    const count = 4 + rand(10);
    for (let n = 0; n < count; n++) {
      const i = rand(tokens.length);
      const j = rand(tokens.length);
      if (i === j) continue;
      const depth = BigInt(1 + rand(10_000)) * E18;
      const noise = BigInt(9_990 + rand(21));
      pools.push(
        v2Pool(
          tokens[i]!,
          tokens[j]!,
          (depth * 1000n) / price[i]!,
          (depth * 1000n * noise) / price[j]! / 10_000n,
        ),
      );
    }
    return { pools, tokens };
  }

  function sdkBest(
    pools: readonly V2PoolState[],
    tokenIn: string,
    tokenOut: string,
    amountIn: bigint,
  ): bigint {
    const sdkTokens = new Map<string, Token>();
    const sdkToken = (t: string) => {
      if (!sdkTokens.has(t)) sdkTokens.set(t, new Token(1, t, 18));
      return sdkTokens.get(t)!;
    };
    const pairs = pools.map(
      (p) =>
        new Pair(
          CurrencyAmount.fromRawAmount(sdkToken(p.token0), p.reserve0.toString()),
          CurrencyAmount.fromRawAmount(sdkToken(p.token1), p.reserve1.toString()),
        ),
    );
    const trades = Trade.bestTradeExactIn(
      pairs,
      CurrencyAmount.fromRawAmount(sdkToken(tokenIn), amountIn.toString()),
      sdkToken(tokenOut),
      { maxHops: 3, maxNumResults: 1 },
    );
    return trades.length === 0 ? 0n : BigInt(trades[0]!.outputAmount.quotient.toString());
  }

  it('our best single route equals the SDK best trade and the split is never below it', () => {
    let compared = 0;
    let improved = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { pools, tokens } = randomV2Set(seed);
      const rand = seededRandom(seed * 7919);
      const [tokenIn, tokenOut] = [tokens[0]!, tokens[1 + rand(5)]!];
      const amountIn = BigInt(1 + rand(2000)) * 10n ** 17n;
      const expected = sdkBest(pools, tokenIn, tokenOut, amountIn);
      // Every token may be a connector here: the SDK has no connector restriction.
      const routes = findRoutes(pools, tokenIn, tokenOut, {
        connectors: tokens,
        maxRoutes: 10_000,
        maxPoolsPerPair: 100,
      });
      const single = bestSplit(routes, amountIn, { parts: 1 });
      const split = bestSplit(routes, amountIn);
      expect(single?.amountOut ?? 0n).toBe(expected);
      expect(split?.amountOut ?? 0n).toBeGreaterThanOrEqual(expected);
      if (expected > 0n) compared++;
      if ((split?.amountOut ?? 0n) > expected) improved++;
    }
    // The random sets must exercise the comparison, and splitting must matter on some of them.
    expect(compared).toBeGreaterThan(40);
    expect(improved).toBeGreaterThan(5);
  });

  it('equals the SDK output when only one route exists', () => {
    const pools = [
      v2Pool(A, W, 500n * E18, 900n * E18),
      v2Pool(W, U, 700n * E18, 300n * E18),
      v2Pool(U, Z, 100n * E18, 4000n * E18),
    ];
    const routes = findRoutes(pools, A, Z, { connectors: [W, U] });
    expect(routes).toHaveLength(1);
    for (const amountIn of [1n, 10n ** 15n, 37n * E18]) {
      const expected = sdkBest(pools, A, Z, amountIn);
      const result = bestSplit(routes, amountIn);
      expect(result?.amountOut ?? 0n).toBe(expected);
    }
  });
});
