import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { BlockFeedWatch, type BlockFeedWatchOptions } from '../../keeper/watch/block-feed-watch';
import { createLogger } from '../../shared/log/create-logger';

const CHAIN = 31337;
const STALL_MS = 30_000;
const TICK_MS = 250;

interface LogLine {
  level: number;
  msg: string;
}

/** A watch on real metrics and a logger whose lines the test reads. */
function watchOf(options: Partial<BlockFeedWatchOptions> = {}) {
  const metrics = new KeeperMetrics();
  metrics.initChain(CHAIN);
  const lines: LogLine[] = [];
  const log = createLogger('info', 'test', {
    write: (line: string) => void lines.push(JSON.parse(line) as LogLine),
  });
  const watch = new BlockFeedWatch(CHAIN, metrics, log, { stallMs: STALL_MS, ...options });
  const series = async () => {
    const text = await metrics.registry.metrics();
    const value = (name: string): number =>
      Number(new RegExp(`^${name}\\{chain_id="${CHAIN}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    return {
      stalls: value('tas_keeper_feed_stalls_total'),
      stalled: value('tas_keeper_feed_stalled'),
    };
  };
  const warnings = () => lines.filter((l) => l.level === 40).map((l) => l.msg);
  return { watch, series, warnings, lines };
}

/** Ticks every TICK_MS from `from` to `to` (ms), with the head and pending count the callback gives. */
function run(
  watch: BlockFeedWatch,
  from: number,
  to: number,
  state: (now: number) => { head: number; pending: number },
): void {
  for (let now = from; now <= to; now += TICK_MS) {
    const { head, pending } = state(now);
    watch.observe(now, head, pending);
  }
}

describe('BlockFeedWatch', () => {
  it('never reports an idle instant-mining chain stalled, however long no block comes', async () => {
    const { watch, series, warnings } = watchOf();
    // Five minutes without a block or a transaction: the chain has nothing to mine.
    run(watch, 0, 300_000, () => ({ head: 7, pending: 0 }));
    expect(watch.stalled).toBe(false);
    expect(watch.stalledFor(300_000)).toBe(0);
    expect(await series()).toEqual({ stalls: 0, stalled: 0 });
    expect(warnings()).toEqual([]);
  });

  it('reports a chain with a block time stalled once when its blocks stop, and clears it when they come again', async () => {
    const { watch, series, warnings, lines } = watchOf({ expectedBlockTimeMs: 2_000 });
    // A block every 2 s for a minute: never stalled.
    run(watch, 0, 60_000, (now) => ({ head: 100 + Math.floor(now / 2_000), pending: 0 }));
    expect(watch.stalled).toBe(false);
    const lastHead = 130;

    // Blocks stop at 60 s. Stalled only past max(stallMs, 3 × 2 s) = 30 s of silence.
    run(watch, 60_250, 90_000, () => ({ head: lastHead, pending: 0 }));
    expect(watch.stalled).toBe(false);
    run(watch, 90_250, 150_000, () => ({ head: lastHead, pending: 0 }));
    expect(watch.stalled).toBe(true);
    expect(watch.stalledFor(150_000)).toBe(150_000 - 90_250);
    // Reported once for the whole stall.
    expect(await series()).toEqual({ stalls: 1, stalled: 1 });
    expect(warnings()).toEqual(['block feed stalled: the chain makes blocks on a clock and none came']);

    watch.observe(150_250, lastHead + 1, 0);
    expect(watch.stalled).toBe(false);
    expect(watch.stalledFor(150_250)).toBe(0);
    expect(await series()).toEqual({ stalls: 1, stalled: 0 });
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'block feed delivering again' });

    // A second stall is a second report.
    run(watch, 150_500, 200_000, () => ({ head: lastHead + 1, pending: 0 }));
    expect(await series()).toEqual({ stalls: 2, stalled: 1 });
    expect(warnings()).toHaveLength(2);
  });

  it('waits several block times on a slow chain rather than the stall window alone', () => {
    const { watch } = watchOf({ expectedBlockTimeMs: 12_000 });
    watch.observe(0, 1, 0);
    // 3 × 12 s = 36 s > 30 s: a silence of 35 s is within the chain's habits.
    watch.observe(35_000, 1, 0);
    expect(watch.stalled).toBe(false);
    watch.observe(36_001, 1, 0);
    expect(watch.stalled).toBe(true);
  });

  it('reports an instant-mining chain stalled when our transactions wait for a block that does not come', async () => {
    const { watch, series, warnings } = watchOf();
    // Idle for ten minutes: not stalled.
    run(watch, 0, 600_000, () => ({ head: 50, pending: 0 }));
    expect(watch.stalled).toBe(false);
    // A batch is sent at 600 s and no block includes it: the clock starts at the sending, not at the last block.
    run(watch, 600_250, 630_000, () => ({ head: 50, pending: 1 }));
    expect(watch.stalled).toBe(false);
    run(watch, 630_250, 640_000, () => ({ head: 50, pending: 1 }));
    expect(watch.stalled).toBe(true);
    expect(await series()).toEqual({ stalls: 1, stalled: 1 });
    expect(warnings()).toEqual(['block feed stalled: our transactions wait and no block comes']);

    // The block comes: delivering again.
    watch.observe(640_250, 51, 0);
    expect(watch.stalled).toBe(false);
    expect(await series()).toEqual({ stalls: 1, stalled: 0 });
  });

  it('clears a stall when the transactions it waited for are no longer pending (dropped), without a block', async () => {
    const { watch, series } = watchOf();
    run(watch, 0, 40_000, () => ({ head: 9, pending: 2 }));
    expect(watch.stalled).toBe(true);
    watch.observe(40_250, 9, 0);
    expect(watch.stalled).toBe(false);
    expect(await series()).toEqual({ stalls: 1, stalled: 0 });
  });

  it('counts a pending transaction from the last block when it was already waiting then', () => {
    const { watch } = watchOf();
    // Sent at 0; a block at 20 s does not include it; no block after: stalled 30 s after that block.
    run(watch, 0, 20_000, (now) => ({ head: now < 20_000 ? 1 : 2, pending: 1 }));
    run(watch, 20_250, 50_000, () => ({ head: 2, pending: 1 }));
    expect(watch.stalled).toBe(false);
    watch.observe(50_250, 2, 1);
    expect(watch.stalled).toBe(true);
  });
});
