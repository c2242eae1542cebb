/**
 * Exact net output of allocations that differ a little from a baseline allocation, without re-simulating the
 * whole split. The routes execute in index order; a trial re-simulates only the routes whose amount changed
 * and the later routes that read a pool one of those left in a different state. Every other route keeps its
 * baseline outcome, and pools nobody re-simulated are read in the state the baseline left them before that
 * route. The total is therefore the same bigint a full in-order simulation (simulateSplit) gives.
 */
import type { Route } from '../pathfinding/route';
import type { PoolState } from '../pools/pool-state';
import type { PoolSwapMemo } from '../pools/pool-swap-memo';

/** A baseline write: route `at` left the pool in `state`. */
interface Write {
  at: number;
  state: PoolState;
}

/** One route's simulation: its net output and the pool states it leaves (in hop order, last wins). */
interface RouteRun {
  net: bigint;
  gas: bigint;
  amountOut: bigint;
  writes: PoolState[];
}

export class SplitEvaluator {
  private readonly addresses: string[][];
  /** Per route, runs over untouched pools by units: valid under any baseline where nothing ran before. */
  private readonly alone: Map<number, RouteRun | null>[];
  private baseUnits: number[] = [];
  private baseRuns: (RouteRun | undefined)[] = [];
  /** Pool address -> baseline writes in route order. */
  private history = new Map<string, Write[]>();
  private readonly dirty = new Map<string, PoolState>();
  private readonly local = new Map<string, PoolState>();

  constructor(
    private readonly routes: readonly Route[],
    private readonly amountOf: (units: number) => bigint,
    private readonly gasPrice: bigint,
    private readonly memo: PoolSwapMemo,
  ) {
    this.addresses = routes.map((r) => r.pools.map((p) => p.address));
    this.alone = routes.map(() => new Map());
  }

  /** Makes `units` the baseline; its exact net output, or undefined when a route cannot take its amount. */
  reset(units: readonly number[]): bigint | undefined {
    this.baseUnits = [...units];
    this.baseRuns = [];
    this.history = new Map();
    let net = 0n;
    let ok = true;
    for (let j = 0; j < units.length; j++) {
      const run = units[j]! > 0 && ok ? this.run(j, units[j]!, false) : undefined;
      if (units[j]! > 0 && !run) ok = false;
      this.baseRuns.push(run);
      if (!run) continue;
      net += run.net;
      const addresses = this.addresses[j]!;
      for (let h = 0; h < addresses.length; h++) {
        let writes = this.history.get(addresses[h]!);
        if (!writes) this.history.set(addresses[h]!, (writes = []));
        // A route through one pool twice writes it twice: only its final state matters to later routes.
        if (writes.length > 0 && writes[writes.length - 1]!.at === j) writes.pop();
        writes.push({ at: j, state: run.writes[h]! });
      }
    }
    if (ok) return net;
    // An allocation that cannot execute is no baseline: trials are then simulated in full.
    this.baseUnits = units.map(() => 0);
    this.baseRuns = [];
    this.history = new Map();
    return undefined;
  }

  /** Route `j`'s outcome in the baseline; undefined when it carries nothing. */
  baseline(j: number): { amountOut: bigint; gas: bigint } | undefined {
    return this.baseRuns[j];
  }

  /** Exact net output of `units` executed in route order (same result as a full simulation). */
  evaluate(units: readonly number[]): bigint | undefined {
    const k = units.length;
    let first = 0;
    while (first < k && units[first] === this.baseUnits[first]) first++;
    let net = 0n;
    for (let j = 0; j < first; j++) net += this.baseRuns[j]?.net ?? 0n;
    const dirty = this.dirty;
    dirty.clear();
    for (let j = first; j < k; j++) {
      const u = units[j]!;
      const changed = u !== this.baseUnits[j];
      if (u === 0) {
        // A route that no longer runs leaves its pools as the routes before it did.
        if (changed) this.restore(j);
        continue;
      }
      if (!changed && !this.readsDirty(j)) {
        net += this.baseRuns[j]!.net;
        continue;
      }
      const run = this.run(j, u, true);
      if (!run) return undefined;
      net += run.net;
      const addresses = this.addresses[j]!;
      for (let h = 0; h < addresses.length; h++) dirty.set(addresses[h]!, run.writes[h]!);
    }
    return net;
  }

  private restore(j: number): void {
    const pools = this.routes[j]!.pools;
    for (const pool of pools) {
      if (!this.dirty.has(pool.address)) this.dirty.set(pool.address, this.before(pool.address, j) ?? pool);
    }
  }

  private readsDirty(j: number): boolean {
    if (this.dirty.size === 0) return false;
    for (const address of this.addresses[j]!) if (this.dirty.has(address)) return true;
    return false;
  }

  /** The baseline state of a pool just before route `j` ran; undefined when no earlier route touched it. */
  private before(address: string, j: number): PoolState | undefined {
    const writes = this.history.get(address);
    if (!writes) return undefined;
    for (let i = writes.length - 1; i >= 0; i--) if (writes[i]!.at < j) return writes[i]!.state;
    return undefined;
  }

  /** Route `j` with `units`, reading trial states (when `trial`) over the baseline states before it. */
  private run(j: number, units: number, trial: boolean): RouteRun | undefined {
    const route = this.routes[j]!;
    const addresses = this.addresses[j]!;
    let untouched = true;
    for (const address of addresses) {
      if ((trial && this.dirty.has(address)) || this.before(address, j) !== undefined) {
        untouched = false;
        break;
      }
    }
    const cache = this.alone[j]!;
    if (untouched && cache.has(units)) return cache.get(units) ?? undefined;

    const local = this.local;
    local.clear();
    const writes: PoolState[] = [];
    let amount = this.amountOf(units);
    let gas = 0n;
    for (let h = 0; h < addresses.length; h++) {
      const address = addresses[h]!;
      // A route through one pool twice reads its own earlier hop first.
      const pool =
        local.get(address) ??
        (trial ? this.dirty.get(address) : undefined) ??
        this.before(address, j) ??
        route.pools[h]!;
      const swap = this.memo.swap(pool, route.path[h]!, amount);
      if (!swap) {
        if (untouched) cache.set(units, null);
        return undefined;
      }
      amount = swap.amountOut;
      gas += swap.gas;
      local.set(address, swap.after);
      writes.push(swap.after);
    }
    // Hop h's recorded write is the pool's final state after the route (matters for a pool used twice).
    for (let h = 0; h < addresses.length; h++) writes[h] = local.get(addresses[h]!)!;
    const run = { net: amount - gas * this.gasPrice, gas, amountOut: amount, writes };
    if (untouched) cache.set(units, run);
    return run;
  }
}
