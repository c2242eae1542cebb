/**
 * Keeper selection time per block at 1k, 10k and 100k open limit orders. Target: at most 5 ms per block at
 * 100k (crossed() for every pair with open orders plus expired()). Run: npx tsx bench/keeper-selection-bench.ts
 *
 * Orders are spread over 2 chains × 20 pairs with a Zipf-like weight (a chain's first pair holds about a third
 * of its orders, as WETH/USDC would), triggers mostly just above the market (open orders are the ones that have
 * not crossed yet), 1% below the market but backing off after a retryable failure, and expiries from minutes to
 * weeks. Each block moves every price by a random walk (σ = 0.2%), runs the selection (timed), then applies
 * what the pipeline would: crossed orders claimed (removed) or 10% of them backed off, expired ones settled
 * (removed), and about 50 incremental changes (new orders, trigger patches, cancels), timed separately.
 * A last scenario puts 100k orders on a single pair with 5% of them crossed and backing off: the longest scan.
 */
import { cpus, loadavg } from 'node:os';
import { OrderIndex, type IndexedOrder } from '../keeper/select/order-index';

export interface Row {
  scenario: string;
  openOrders: number;
  pairs: number;
  blocks: number;
  /** Orders crossed() returned per block, average. */
  crossedPerBlock: number;
  selectP50Ms: number;
  selectP99Ms: number;
  selectMaxMs: number;
  /** The ~50 incremental upserts/removes of one block. */
  updateP50Ms: number;
  updateMaxMs: number;
  /** Versus the 5 ms target on p99 (null below 100k, where no target is set). */
  pass: boolean | null;
}

export interface SelectionBenchOptions {
  sizes?: number[];
  blocks?: number;
  seed?: number;
  /** Include the single-pair worst case at the largest size. */
  worstCase?: boolean;
}

export const SELECTION_TARGET_MS = 5;
const BLOCK_MS = 2000;
const CHANGES_PER_BLOCK = 50;
const CROSSED_LIMIT = 500;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Market {
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  price: number;
  weight: number;
}

interface Scenario {
  name: string;
  size: number;
  markets: Market[];
  /** Share of orders placed below the market, in back-off. */
  backedOffShare: number;
}

function address(rand: () => number): string {
  let s = '0x';
  for (let i = 0; i < 40; i++) s += Math.floor(rand() * 16).toString(16);
  return s;
}

function spreadMarkets(rand: () => number, chains: number[], pairsPerChain: number): Market[] {
  const out: Market[] = [];
  for (const chainId of chains) {
    for (let i = 0; i < pairsPerChain; i++) {
      out.push({
        chainId,
        tokenIn: address(rand),
        tokenOut: address(rand),
        price: Math.exp((rand() - 0.5) * 20),
        weight: 1 / (i + 1),
      });
    }
  }
  return out;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function runScenario(scenario: Scenario, blocks: number, seed: number): Row {
  const rand = mulberry32(seed);
  const { markets } = scenario;
  const totalWeight = markets.reduce((s, m) => s + m.weight, 0);
  const pickMarket = (): Market => {
    let r = rand() * totalWeight;
    for (const m of markets) if ((r -= m.weight) <= 0) return m;
    return markets[markets.length - 1]!;
  };
  let now = Date.UTC(2026, 0, 1);
  let nextId = 0;
  const open: string[] = [];
  const openAt = new Map<string, number>();
  const track = (id: string) => {
    openAt.set(id, open.length);
    open.push(id);
  };
  const untrack = (id: string) => {
    const at = openAt.get(id);
    if (at === undefined) return;
    const last = open.pop()!;
    if (last !== id) {
      open[at] = last;
      openAt.set(last, at);
    }
    openAt.delete(id);
  };
  const newOrder = (): IndexedOrder => {
    const m = pickMarket();
    const backedOff = rand() < scenario.backedOffShare;
    const distance = Math.abs(gaussian(rand)) * 0.05 + 0.001;
    return {
      id: `o-${(nextId++).toString().padStart(8, '0')}`,
      chainId: m.chainId,
      tokenIn: m.tokenIn,
      tokenOut: m.tokenOut,
      trigger: m.price * (backedOff ? 1 - distance : 1 + distance),
      expiresAt: now + 60_000 + Math.floor(rand() * 30 * 86_400_000),
      nextAttemptAt: backedOff ? now + Math.floor(rand() * 3_600_000) : 0,
      version: 0,
    };
  };

  const index = new OrderIndex();
  for (let i = 0; i < scenario.size; i++) {
    const o = newOrder();
    index.upsert(o);
    track(o.id);
  }
  const chains = [...new Set(markets.map((m) => m.chainId))];
  const priceOf = new Map(markets.map((m) => [`${m.chainId}:${m.tokenIn}:${m.tokenOut}`, m]));

  const warmUp = Math.min(100, Math.floor(blocks / 5));
  const select: number[] = [];
  const update: number[] = [];
  let crossedTotal = 0;
  for (let b = 0; b < warmUp + blocks; b++) {
    now += BLOCK_MS;
    for (const m of markets) m.price *= Math.exp(gaussian(rand) * 0.002);

    const t0 = performance.now();
    const crossed: Readonly<IndexedOrder>[] = [];
    for (const chainId of chains) {
      for (const p of index.pairs(chainId)) {
        const price = priceOf.get(p.key)!.price;
        if (price < p.lowestTrigger) continue;
        for (const o of index.crossed(chainId, p.tokenIn, p.tokenOut, price, now, CROSSED_LIMIT))
          crossed.push(o);
      }
    }
    const expired = index.expired(now);
    const t1 = performance.now();

    let removed = 0;
    for (const o of crossed) {
      if (rand() < 0.1) {
        index.upsert({ ...o, nextAttemptAt: now + 30_000, version: o.version + 1 });
      } else {
        index.remove(o.id);
        untrack(o.id);
        removed++;
      }
    }
    for (const o of expired) {
      if (index.remove(o.id)) {
        untrack(o.id);
        removed++;
      }
    }
    for (let c = 0; c < CHANGES_PER_BLOCK; c++) {
      const r = rand();
      if ((r < 0.4 || open.length === 0 || removed > 0) && open.length < scenario.size) {
        const o = newOrder();
        index.upsert(o);
        track(o.id);
        if (removed > 0) removed--;
      } else if (r < 0.7) {
        const id = open[Math.floor(rand() * open.length)]!;
        const o = index.get(id)!;
        const m = priceOf.get(`${o.chainId}:${o.tokenIn}:${o.tokenOut}`)!;
        index.upsert({
          ...o,
          trigger: m.price * (1 + Math.abs(gaussian(rand)) * 0.05 + 0.001),
          version: o.version + 1,
        });
      } else {
        const id = open[Math.floor(rand() * open.length)]!;
        index.remove(id);
        untrack(id);
      }
    }
    const t2 = performance.now();

    if (b >= warmUp) {
      select.push(t1 - t0);
      update.push(t2 - t1);
      crossedTotal += crossed.length;
    }
  }
  select.sort((x, y) => x - y);
  update.sort((x, y) => x - y);
  const row = (v: number) => Math.round(v * 1000) / 1000;
  const p99 = quantile(select, 0.99);
  return {
    scenario: scenario.name,
    openOrders: scenario.size,
    pairs: markets.length,
    blocks,
    crossedPerBlock: Math.round((crossedTotal / blocks) * 10) / 10,
    selectP50Ms: row(quantile(select, 0.5)),
    selectP99Ms: row(p99),
    selectMaxMs: row(select[select.length - 1]!),
    updateP50Ms: row(quantile(update, 0.5)),
    updateMaxMs: row(update[update.length - 1]!),
    pass: scenario.size >= 100_000 ? p99 <= SELECTION_TARGET_MS : null,
  };
}

export async function runSelectionBench(options: SelectionBenchOptions = {}): Promise<Row[]> {
  const sizes = options.sizes ?? [1_000, 10_000, 100_000];
  const blocks = options.blocks ?? 500;
  const seed = options.seed ?? 42;
  const rows: Row[] = [];
  for (const size of sizes) {
    const markets = spreadMarkets(mulberry32(seed), [1, 137], 20);
    rows.push(
      runScenario({ name: '2 chains × 20 pairs', size, markets, backedOffShare: 0.01 }, blocks, seed + size),
    );
    // Lets timers and I/O run between scenarios when a combined bench awaits this.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (options.worstCase ?? true) {
    const size = Math.max(...sizes);
    const markets = spreadMarkets(mulberry32(seed), [1], 1);
    rows.push(
      runScenario(
        { name: '1 pair, 5% crossed in back-off', size, markets, backedOffShare: 0.05 },
        blocks,
        seed + 1,
      ),
    );
  }
  return rows;
}

/** One table line per scenario, PASS/FAIL where a target applies. */
export function printSelectionTable(rows: Row[]): void {
  console.table(
    rows.map((r) => ({
      scenario: r.scenario,
      'open orders': r.openOrders,
      pairs: r.pairs,
      blocks: r.blocks,
      'crossed/block': r.crossedPerBlock,
      'select p50 ms': r.selectP50Ms,
      'select p99 ms': r.selectP99Ms,
      'select max ms': r.selectMaxMs,
      'updates p50 ms': r.updateP50Ms,
      'updates max ms': r.updateMaxMs,
      result: r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
    })),
  );
}

if (require.main === module) {
  runSelectionBench()
    .then((rows) => {
      console.log(
        `keeper selection per block (crossed() on every pair + expired()); target <= ${SELECTION_TARGET_MS} ms at 100k (p99)`,
      );
      // Wall-clock tails on a shared machine are mostly other processes' time slices: show how busy it was.
      const load = loadavg().map((l) => l.toFixed(2));
      console.log(`${cpus().length} CPUs, load average ${load.join(' ')} at the end of the run`);
      printSelectionTable(rows);
      if (rows.some((r) => r.pass === false)) process.exitCode = 1;
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
