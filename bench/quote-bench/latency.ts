/** Per-call latency of synchronous functions: throughput and percentiles, timed with hrtime. */

export interface LatencyStats {
  count: number;
  quotesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LatencyOptions {
  /** Untimed calls of each function first, so the JIT has compiled the hot paths before anything is timed. */
  warmup: number;
  /** Timed calls of each function. */
  count: number;
  /** The timed calls come in this many alternating blocks (see measureInterleaved). */
  rounds: number;
}

/** Nearest-rank percentile of ascending `sorted`: the smallest value at least p% of the samples reach. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('no samples');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

function statsOf(times: number[], loopMs: number): LatencyStats {
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    quotesPerSecond: (times.length * 1000) / loopMs,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times[times.length - 1]!,
  };
}

interface Samples {
  times: number[];
  loopMs: number;
}

/** Calls in block `round`: the blocks add up to `count` exactly. */
function blockSize(round: number, opts: LatencyOptions): number {
  return (
    Math.floor(((round + 1) * opts.count) / opts.rounds) - Math.floor((round * opts.count) / opts.rounds)
  );
}

function collect<K extends string>(names: readonly K[], samples: Map<K, Samples>): Record<K, LatencyStats> {
  const stats = {} as Record<K, LatencyStats>;
  for (const name of names) {
    const { times, loopMs } = samples.get(name)!;
    stats[name] = statsOf(times, loopMs);
  }
  return stats;
}

function timeBlock(run: () => unknown, calls: number, into: Samples): void {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    run();
    into.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  // Wall time over the loop, timer reads included: the rate a caller doing nothing else would get.
  into.loopMs += Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Times each function `count` times, in `rounds` blocks that alternate between the functions (the order
 * rotating each round), so that drift over the run (JIT tiers, GC heap growth, other load on the machine)
 * weighs on every function alike instead of on whichever ran last.
 */
export function measureInterleaved<K extends string>(
  runs: Readonly<Record<K, () => unknown>>,
  opts: LatencyOptions,
): Record<K, LatencyStats> {
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new RangeError('rounds must be >= 1');
  const names = Object.keys(runs) as K[];
  const samples = new Map<K, Samples>(names.map((n) => [n, { times: [], loopMs: 0 }]));
  for (const name of names) for (let i = 0; i < opts.warmup; i++) runs[name]();
  for (let round = 0; round < opts.rounds; round++) {
    const calls = blockSize(round, opts);
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length]!;
      timeBlock(runs[name], calls, samples.get(name)!);
    }
  }
  return collect(names, samples);
}

/** measureInterleaved for async functions: one call in flight at a time, each awaited before the next. */
export async function measureInterleavedAsync<K extends string>(
  runs: Readonly<Record<K, () => Promise<unknown>>>,
  opts: LatencyOptions,
): Promise<Record<K, LatencyStats>> {
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new RangeError('rounds must be >= 1');
  const names = Object.keys(runs) as K[];
  const samples = new Map<K, Samples>(names.map((n) => [n, { times: [], loopMs: 0 }]));
  for (const name of names) for (let i = 0; i < opts.warmup; i++) await runs[name]();
  for (let round = 0; round < opts.rounds; round++) {
    const calls = blockSize(round, opts);
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length]!;
      const into = samples.get(name)!;
      const started = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) {
        const t0 = process.hrtime.bigint();
        await runs[name]();
        into.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      into.loopMs += Number(process.hrtime.bigint() - started) / 1e6;
    }
  }
  return collect(names, samples);
}
