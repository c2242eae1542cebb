/**
 * Splits one input amount across candidate routes to maximise output net of gas.
 *
 * The amount is cut into `parts` equal chunks, each further divisible by 2^refineLevels units. Greedy: each
 * chunk goes to the route paying most for it (exact math, net of the gas of opening a route). Refinement:
 * moves of half a chunk, a quarter, ... from one route to another while the exact total improves, then moving
 * a route's whole share away (which saves its gas) to the routes the last marginal gains rank best.
 * Trials are valued incrementally (SplitEvaluator) with hops memoised per quote (PoolSwapMemo), which keeps a
 * quote within a few milliseconds without changing any total. Every total is exact: routes are
 * simulated with the contract math, and routes sharing a pool are simulated one after the other over the
 * updated state (in execution order), so shared pools are accounted, never double-counted. The result is
 * never below the best single route: it is kept whenever the split is not strictly better net of gas.
 */
import type { Route } from '../pathfinding/route';
import { simulateRoute, simulateSplit, type PoolOverlay, type RouteOutcome } from './route-simulation';
import { SplitEvaluator } from './split-evaluator';
import { PoolSwapMemo } from '../pools/pool-swap-memo';

export interface BestSplitOptions {
  /** Equal chunks of the greedy allocation; default 20 (5% each). */
  parts?: number;
  /** Token-out base units per gas unit: maximises amountOut - gas * price. Without it, gas is ignored. */
  gasPriceInTokenOut?: bigint;
  /** Halvings of a chunk the refinement tries; default 2 (chunk / 4 = 1.25% at 20 parts). */
  refineLevels?: number;
  /** Routes considered for splitting (the best singles and the best for one chunk); default 5 of each. */
  maxSplitRoutes?: number;
  /**
   * Hop results to reuse: searches of one quote over the same pool states (each source's, then all sources
   * together) share one. Default: a memo of this search's own.
   */
  memo?: PoolSwapMemo;
}

export interface Split {
  route: Route;
  amountIn: bigint;
  amountOut: bigint;
}

export interface SplitResult {
  amountOut: bigint;
  gasEstimate: bigint;
  /** In execution order (matters only when routes share a pool); amounts sum exactly to amountIn. */
  splits: Split[];
}

/** Refinement passes per move size: bounds the quote time; the moves found first are the largest gains. */
const MAX_PASSES = 6;

interface Value {
  net: bigint;
}

/** Undefined when no route (nor combination) can take `amountIn`. */
export function bestSplit(
  routes: readonly Route[],
  amountIn: bigint,
  options: BestSplitOptions = {},
): SplitResult | undefined {
  const parts = options.parts ?? 20;
  const levels = options.refineLevels ?? 2;
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError('parts must be a positive integer');
  if (!Number.isInteger(levels) || levels < 0) throw new RangeError('refineLevels must be >= 0');
  if (amountIn <= 0n || routes.length === 0) return undefined;
  const gasPrice = options.gasPriceInTokenOut ?? 0n;
  const netOf = (o: RouteOutcome) => o.amountOut - o.gas * gasPrice;

  // One memo for the whole search: routes share first hops, and trials revisit the same hops.
  const memo = options.memo ?? new PoolSwapMemo();
  // Best single route over the whole amount: the floor the split must beat.
  const singles = routes.map((route) => simulateRoute(route, amountIn, undefined, true, memo));
  let bestSingle = -1;
  singles.forEach((o, i) => {
    if (o && (bestSingle < 0 || netOf(o) > netOf(singles[bestSingle]!))) bestSingle = i;
  });
  const singleResult = (): SplitResult | undefined => {
    if (bestSingle < 0) return undefined;
    const o = singles[bestSingle]!;
    return {
      amountOut: o.amountOut,
      gasEstimate: o.gas,
      splits: [{ route: routes[bestSingle]!, amountIn, amountOut: o.amountOut }],
    };
  };
  if (parts === 1 || routes.length === 1) return singleResult();

  // Candidates: the best singles and the best routes for one chunk (a shallow route can be best for a part).
  const maxSplitRoutes = options.maxSplitRoutes ?? 5;
  const chunkAmount = amountIn / BigInt(parts);
  const rank = (outcomes: (RouteOutcome | undefined)[]) =>
    outcomes
      .map((o, i) => ({ o, i }))
      .filter((x): x is { o: RouteOutcome; i: number } => x.o !== undefined)
      .sort((a, b) => {
        const d = netOf(b.o) - netOf(a.o);
        return d > 0n ? 1 : d < 0n ? -1 : a.i - b.i;
      })
      .slice(0, maxSplitRoutes)
      .map((x) => x.i);
  const chunkOutcomes =
    chunkAmount > 0n ? routes.map((route) => simulateRoute(route, chunkAmount, undefined, true, memo)) : [];
  const picked = [...new Set([...rank(singles), ...rank(chunkOutcomes)])].sort((a, b) => a - b);
  if (picked.length < 2) return singleResult();
  const candidates = picked.map((i) => routes[i]!);
  const k = candidates.length;

  // Routes sharing a pool cannot be valued separately: they are simulated together, in candidate order.
  const poolSets = candidates.map((r) => new Set(r.pools.map((p) => p.address)));
  const shares = candidates.map((_, i) =>
    candidates.map((__, j) => i !== j && [...poolSets[i]!].some((a) => poolSets[j]!.has(a))),
  );

  const chunkUnits = 2 ** levels;
  const totalUnits = BigInt(parts * chunkUnits);
  const amountOf = (units: number) => (amountIn * BigInt(units)) / totalUnits;
  // Trials differ from the current allocation in one or two routes: only those (and the routes after them
  // reading a pool they changed) are re-simulated.
  const evaluator = new SplitEvaluator(candidates, amountOf, gasPrice, memo);

  /** Exact net output of an allocation in units (floor amounts; the final result fixes the dust). */
  const values = new Map<string, Value | null>();
  const value = (units: readonly number[]): Value | undefined => {
    const key = units.join(',');
    if (!values.has(key)) {
      const net = evaluator.evaluate(units);
      values.set(key, net === undefined ? null : { net });
    }
    return values.get(key) ?? undefined;
  };

  // Greedy: each chunk goes to the route paying most for it in the state the earlier chunks left (opening a
  // route pays its gas). A route's quote for the next chunk is recomputed only when a chunk went through one
  // of its pools, so each step costs about one route simulation when routes are disjoint.
  const units = new Array<number>(k).fill(0);
  const chunk = amountOf(chunkUnits);
  if (chunk === 0n) return singleResult();
  const overlay: PoolOverlay = new Map();
  const next: (RouteOutcome | null | undefined)[] = new Array(k).fill(undefined);
  for (let step = 0; step < parts; step++) {
    let best = -1;
    let bestNet = 0n;
    for (let i = 0; i < k; i++) {
      if (next[i] === undefined) next[i] = simulateRoute(candidates[i]!, chunk, overlay, false, memo) ?? null;
      const o = next[i];
      if (!o) continue;
      const net = o.amountOut - (units[i] === 0 ? o.gas * gasPrice : 0n);
      if (best < 0 || net > bestNet) [best, bestNet] = [i, net];
    }
    if (best < 0) return singleResult();
    simulateRoute(candidates[best]!, chunk, overlay, true, memo);
    units[best]! += chunkUnits;
    for (let j = 0; j < k; j++) if (j === best || shares[best]![j]) next[j] = undefined;
  }
  const greedyNet = evaluator.reset(units);
  if (greedyNet === undefined) return singleResult();
  let current: Value = { net: greedyNet };
  values.set(units.join(','), current);

  // Refinement with exact totals, among the routes the greedy opened: per move size (half a chunk, a quarter),
  // value one move more and one less on each route, try the moves pairing the best gain with the smallest
  // loss, keep one only if the exact total improves. Then try closing each route (saves its gas) into the
  // receivers paying most at the margin.
  const improve = (candidate: number[]): boolean => {
    const v = value(candidate);
    if (!v || v.net <= current.net) return false;
    units.splice(0, k, ...candidate);
    current = v;
    evaluator.reset(units);
    return true;
  };
  const shifted = (from: number, to: number, amount: number) =>
    units.map((u, i) => (i === from ? u - amount : i === to ? u + amount : u));
  // Marginal gains of the last pass, by route: the receivers worth trying when closing a route.
  let lastGain = new Map<number, bigint>();
  // The greedy already placed whole chunks: refinement starts at half a chunk.
  for (let size = Math.floor(chunkUnits / 2); size >= 1; size = Math.floor(size / 2)) {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const active = units.map((u, i) => (u > 0 ? i : -1)).filter((i) => i >= 0);
      if (active.length < 2) break;
      const gain = new Map<number, bigint>();
      const loss = new Map<number, bigint>();
      for (const i of active) {
        const up = value(shifted(-1, i, size));
        if (up) gain.set(i, up.net - current.net);
        if (units[i]! > size) {
          const down = value(shifted(i, -1, size));
          if (down) loss.set(i, current.net - down.net);
        }
      }
      lastGain = gain;
      const moves: [number, number, bigint][] = [];
      for (const [from, l] of loss)
        for (const [to, g] of gain) if (from !== to && g > l) moves.push([from, to, g - l]);
      moves.sort((a, b) => (b[2] > a[2] ? 1 : b[2] < a[2] ? -1 : a[0] - b[0] || a[1] - b[1]));
      if (!moves.slice(0, 3).some(([from, to]) => improve(shifted(from, to, size)))) break;
    }
  }
  for (let closed = true; closed;) {
    closed = false;
    const active = units.map((u, i) => (u > 0 ? i : -1)).filter((i) => i >= 0);
    // Receivers by last marginal gain: a route's whole share goes where the next unit pays most, so only the
    // best two receivers are tried (every route when no gains are known).
    const receivers = [...active].sort((a, b) => {
      const d = (lastGain.get(b) ?? -1n) - (lastGain.get(a) ?? -1n);
      return d > 0n ? 1 : d < 0n ? -1 : a - b;
    });
    const tries = lastGain.size > 0 ? 2 : receivers.length;
    for (const from of active) {
      const to = receivers.filter((r) => r !== from).slice(0, tries);
      if (active.length > 1 && to.some((t) => improve(shifted(from, t, units[from]!)))) {
        closed = true;
        break;
      }
    }
  }

  // Exact amounts: floors plus the dust to the largest share, so the amounts sum to amountIn exactly.
  const amounts = units.map(amountOf);
  let largest = 0;
  units.forEach((u, i) => {
    if (u > units[largest]!) largest = i;
  });
  amounts[largest]! += amountIn - amounts.reduce((a, b) => a + b, 0n);
  const active = candidates
    .map((route, i) => ({ route, amountIn: amounts[i]! }))
    .filter((e) => e.amountIn > 0n);
  const outcomes = simulateSplit(active);
  if (!outcomes) return singleResult();
  const amountOut = outcomes.reduce((a, o) => a + o.amountOut, 0n);
  const gasEstimate = outcomes.reduce((a, o) => a + o.gas, 0n);
  const single = singleResult();
  if (single && single.amountOut - single.gasEstimate * gasPrice >= amountOut - gasEstimate * gasPrice) {
    return single;
  }
  return {
    amountOut,
    gasEstimate,
    splits: active.map((e, i) => ({
      route: e.route,
      amountIn: e.amountIn,
      amountOut: outcomes[i]!.amountOut,
    })),
  };
}
