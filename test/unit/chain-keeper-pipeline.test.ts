import { ChainKeeper, type ChainStages, type TickStage } from '../../keeper/chain-keeper';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import type { BatchPlan } from '../../keeper/plan/plan-stage';
import type { ExecutionOrder } from '../../keeper/plan/execution-order';
import type { Selection } from '../../keeper/select/select-stage';
import { StageTimer } from '../../keeper/stage-timer';
import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import type { ExecutorWallet } from '../../keeper/outbox/executor-wallet';
import { ChainAvailability } from '../../keeper/watch/chain-availability';
import { createLogger } from '../../shared/log/create-logger';
import type { ChainFreshness } from '../../shared/routing/sources/pool-state-cache';

const log = createLogger('silent', 'test');
const HEAD = 120;

interface Harness {
  keeper: ChainKeeper;
  calls: string[];
  metrics: KeeperMetrics;
  setStale(stale: boolean): void;
}

/** A chain keeper over recording stages: one wallet, one order selected per batch while `ready` lasts. */
function harness(
  opts: { ready?: number; more?: TickStage[]; sent?: boolean; claimThrows?: boolean } = {},
): Harness {
  const calls: string[] = [];
  let ready = opts.ready ?? 1;
  let freshness: ChainFreshness = { stale: false, ageMs: 0, blocksBehind: 0 };
  const metrics = new KeeperMetrics();
  const order = { kind: 'limit', id: 'o1' } as ExecutionOrder;
  const wallet = { address: '0xexecutor' } as ExecutorWallet;
  let free = true;
  const stages: ChainStages = {
    track: {
      run: async (head) => {
        calls.push(`track ${head}`);
        return true;
      },
      followLatest: async () => void calls.push('follow'),
    },
    settle: { run: async (head) => void calls.push(`settle ${head}`) },
    select: {
      prepare: async () => void calls.push('prepare'),
      next: async (): Promise<Selection> => {
        calls.push('select');
        if (ready <= 0) return new Map();
        ready -= 1;
        return new Map([['limit', [{ id: 'o1', version: 1 }]]]);
      },
    },
    claim: {
      run: async () => {
        if (opts.claimThrows) throw new Error('store went away');
        calls.push('claim');
        return [order];
      },
    },
    plan: {
      run: async () => (
        calls.push('plan'),
        { planned: [], call: { gasLimit: 1_000_000n } } as unknown as BatchPlan
      ),
      done: () => undefined,
    },
    submit: { run: async () => (calls.push('submit'), opts.sent ?? true) },
    more: opts.more ?? [],
    publish: { run: async (head, newBlock) => void calls.push(`publish ${head} ${newBlock}`) },
  };
  const keeper = new ChainKeeper({
    chainId: 1,
    stages,
    engine: { blockNumber: () => HEAD },
    availability: new ChainAvailability(1, { freshness: () => freshness }),
    feed: { chainId: 1, stalledFor: () => 0 },
    pool: {
      wallets: [wallet, { address: '0xsecond' } as ExecutorWallet],
      acquire: () => (free ? ((free = false), wallet) : undefined),
      free: () => {
        calls.push('free');
        free = true;
      },
    },
    timer: new StageTimer(1, metrics, log),
    metrics,
    budget: {
      onHead: () => undefined,
      nextBatchOrders: () => 50,
      reserve: () => ({ gasLimit: 0n }),
      settle: () => undefined,
    },
    blockGasLimit: async () => 30_000_000n,
    log,
    now: () => 1_000,
  });
  return {
    keeper,
    calls,
    metrics,
    setStale: (stale) => {
      freshness = stale ? { stale: true, reason: 'age', ageMs: 60_000, blocksBehind: 0 } : freshness;
    },
  };
}

describe('ChainKeeper: one tick is the pipeline', () => {
  it('runs track → select → claim → plan → submit → (follow the sent batch) → settle → publish, batches while orders are ready', async () => {
    const { keeper, calls } = harness({ ready: 1 });
    await keeper.tick();
    expect(calls).toEqual([
      `track ${HEAD}`,
      'prepare',
      'select',
      'claim',
      'plan',
      // While the first batch plans, the next is selected: nothing more is ready.
      'select',
      'submit',
      'follow',
      `settle ${HEAD}`,
      `publish ${HEAD} true`,
    ]);
  });

  it('frees the wallet and stops batching when a batch is not sent', async () => {
    const { keeper, calls } = harness({ ready: 2, sent: false });
    await keeper.tick();
    expect(calls).toEqual([
      `track ${HEAD}`,
      'prepare',
      'select',
      'claim',
      'plan',
      // The next order is selected while the first plans, but no wallet is free for it: nothing more is claimed.
      'select',
      'submit',
      'free',
      `settle ${HEAD}`,
      `publish ${HEAD} true`,
    ]);
  });

  it('claims nothing while the chain is unavailable, but still tracks and publishes', async () => {
    const { keeper, calls, setStale } = harness({ ready: 1 });
    setStale(true);
    await keeper.tick();
    expect(calls).toEqual([`track ${HEAD}`, 'prepare', `settle ${HEAD}`, `publish ${HEAD} true`]);
  });

  it('runs a plugged-in kind of work after the batches and before publishing; its throw is counted, not fatal', async () => {
    const relayed: number[] = [];
    const relay: TickStage = {
      name: 'settle',
      run: async (head) => {
        relayed.push(head);
        throw new Error('relayer down');
      },
    };
    const { keeper, calls, metrics } = harness({ ready: 0, more: [relay] });
    await keeper.tick();
    expect(relayed).toEqual([HEAD]);
    expect(calls).toEqual([`track ${HEAD}`, 'prepare', 'select', `settle ${HEAD}`, `publish ${HEAD} true`]);
    const errors = await metrics.unhandledErrorsTotal.get();
    expect(errors.values.find((v) => v.labels.stage === 'settle')?.value).toBe(1);
  });

  it("does not count a plugged-in stage's RPC outage as an unhandled error, and goes on to publish", async () => {
    const relay: TickStage = {
      name: 'relay_fill',
      run: () => Promise.reject(new RpcUnavailableError(1, 'eth_call', 3, new Error('503'))),
    };
    const { keeper, calls, metrics } = harness({ ready: 0, more: [relay] });
    await keeper.tick();
    expect(calls).toEqual([`track ${HEAD}`, 'prepare', 'select', `settle ${HEAD}`, `publish ${HEAD} true`]);
    const errors = await metrics.unhandledErrorsTotal.get();
    expect(errors.values.find((v) => v.labels.stage === 'relay_fill')?.value).toBe(0);
  });

  it('times each stage of the batch run under its own name: select, claim, plan, submit, then publish', async () => {
    const { keeper, metrics } = harness({ ready: 1 });
    await keeper.tick();
    const histogram = await metrics.tickDuration.get();
    const counted = (stage: string): number =>
      histogram.values.find((v) => v.metricName?.endsWith('_count') && v.labels.stage === stage)?.value ?? 0;
    // One batch went out, then the second wallet's turn selected nothing.
    expect(['select', 'claim', 'plan', 'submit', 'publish'].map((s) => [s, counted(s)])).toEqual([
      ['select', 2],
      ['claim', 1],
      ['plan', 1],
      ['submit', 1],
      ['publish', 1],
    ]);
    // Publishing is not watching, and the batches are not one "submit" lump.
    expect(counted('watch')).toBe(0);
  });

  it('a claim that throws is counted under claim, frees the wallet, and the tick goes on to publish', async () => {
    const { keeper, calls, metrics } = harness({ ready: 1, claimThrows: true });
    await keeper.tick();
    expect(calls).toEqual([
      `track ${HEAD}`,
      'prepare',
      'select',
      'free',
      `settle ${HEAD}`,
      `publish ${HEAD} true`,
    ]);
    const errors = await metrics.unhandledErrorsTotal.get();
    expect(errors.values.find((v) => v.labels.stage === 'claim')?.value).toBe(1);
  });
});
