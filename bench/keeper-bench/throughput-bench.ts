import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, MaxUint256, Wallet, id } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { WETH_ABI } from '../../devnet/world/abis';
import { startService, type RunningService } from '../../test/helpers/service-harness';
import { batchReport, type BatchReport } from './batch-report';
import { startBenchKeeper } from './bench-keeper';
import { BlockClock } from './block-clock';
import { startKnownTxRpcProxy, type KnownTxRpcProxy } from './known-tx-rpc-proxy';
import { MarketCrossing } from './market-crossing';
import { placeLimitOrders } from './place-limit-orders';

export interface PhaseSpec {
  /** 0 = instant mining (the devnet's default: a block per transaction), else milliseconds between blocks. */
  blockIntervalMs: number;
  /** Put the keeper behind a proxy that answers a re-sent raw transaction "already known" (known-tx-rpc-proxy.ts). */
  knownTxProxy: boolean;
  /** Orders crossing in this phase (default: ThroughputOptions.orders). */
  orders?: number;
  /** WETH per order (default 0.02): a large wave sells less each, so that its own price impact leaves it crossed. */
  amount?: string;
}

export interface ThroughputOptions {
  orders?: number;
  phases?: PhaseSpec[];
  /** How long a phase may wait for every order to complete. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface ThroughputPhase extends PhaseSpec {
  mode: string;
  orders: number;
  /** Seconds to create the orders through the API. */
  placeSeconds: number;
  /** Spot prices of the pools before and after the crossing block. */
  poolsBefore: number[];
  poolsAfter: number[];
  triggerRange: [number, number];
  crossingBlock: number;
  /** From the crossing block (mined) until the store shows every order completed; null when that never happened. */
  seconds: number | null;
  ordersPerSecond: number | null;
  /** Final statuses of the phase's orders. */
  statuses: Record<string, number>;
  /** Completed orders of the phase listed by GET /limit-order?status=completed. */
  apiCompleted: number;
  /** Orders not completed, by status and reasonFail. */
  reasons: Record<string, number>;
  report: BatchReport;
  /** The phase keeper's counters and its warning/error log lines. */
  counters: Record<string, number>;
  problems: Record<string, number>;
  /** Where the keeper's time went from the crossing block to the end: RPC methods and tick stages, busiest first. */
  timeSpent: Array<{ what: string; seconds: number; count: number }>;
  /** Raw transactions the proxy answered "already known" (0 without the proxy). */
  duplicateSendsRefused: number;
}

export interface ThroughputResult {
  /** The devnet engine the chain ran on. */
  engine: string;
  executors: number;
  maxBatchOrders: number;
  maxInFlightPerWallet: number;
  batchGasCap: number;
  pollMs: number;
  confirmations: number;
  amount: string;
  phases: ThroughputPhase[];
}

const AMOUNT = '0.02';
const SLIPPAGE = '1';
const MOVE_BY = 0.1;
const EXECUTORS = [0, 1, 2, 3];
/** Production defaults (the harness shortens these for tests): the bench measures what operators run. */
const KEEPER_ENV = { KEEPER_POLL_MS: '250', KEEPER_LEASE_MS: '60000' };
const OPEN_STATUSES = ['pending', 'executing', 'submitted'];
const COUNTERS = [
  'tas_keeper_unhandled_errors_total',
  'tas_keeper_order_failures_total',
  'tas_keeper_claims_lost_total',
  'tas_keeper_lease_reclaims_total',
  'tas_keeper_nonce_resyncs_total',
  'tas_keeper_transaction_replacements_total',
  'tas_keeper_transactions_dropped_total',
  'tas_keeper_transactions_sent_total',
  'tas_keeper_reorgs_total',
];

async function statusCounts(service: RunningService, sinceMs: number): Promise<Record<string, number>> {
  const rows = (await service.api.store
    .knex('limit_orders')
    .where('created_at', '>=', sinceMs)
    .select('status')
    .count({ n: '*' })
    .groupBy('status')) as Array<{ status: string; n: number | string }>;
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function failureReasons(service: RunningService, sinceMs: number): Promise<Record<string, number>> {
  const rows = (await service.api.store
    .knex('limit_orders')
    .where('created_at', '>=', sinceMs)
    .whereNot('status', 'completed')
    .select('status', 'reason_fail')) as Array<{ status: string; reason_fail: string }>;
  const out: Record<string, number> = {};
  for (const r of rows) {
    const key = `${r.status}: ${r.reason_fail || '(none)'}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

function spentSince(
  before: Map<string, { seconds: number; count: number }>,
  after: Map<string, { seconds: number; count: number }>,
): Array<{ what: string; seconds: number; count: number }> {
  return [...after]
    .map(([what, a]) => {
      const b = before.get(what) ?? { seconds: 0, count: 0 };
      return { what, seconds: a.seconds - b.seconds, count: a.count - b.count };
    })
    .filter((x) => x.count > 0)
    .sort((x, y) => y.seconds - x.seconds);
}

async function waitForReferencePrice(service: RunningService): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await service.api.store.referencePrices.findPair(service.manifest.chainId, 'WETH', 'USDC'))) {
    if (Date.now() > deadline) throw new Error('the keeper published no WETH/USDC reference price in 60 s');
    await sleep(100);
  }
}

/**
 * Orders executed per second on one devnet chain with `orders` limit orders crossing in the same block: the
 * service (api + keeper on SQLite, 4 executor wallets, default batch settings), orders created through the public
 * API with triggers above every WETH/USDC pool, then every pool moved over all triggers in one block, timed until
 * the store shows every order completed. One phase per spec, on the same chain, each with a fresh keeper.
 */
export async function runThroughputBench(opts: ThroughputOptions = {}): Promise<ThroughputResult> {
  const defaultCount = opts.orders ?? 1_000;
  const specs = opts.phases ?? [
    { blockIntervalMs: 0, knownTxProxy: false },
    { blockIntervalMs: 2_000, knownTxProxy: true },
  ];
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const log = opts.log ?? (() => undefined);
  const service = await startService({
    storeKind: 'sqlite',
    chainId: 1,
    keepers: 0,
    executorsPerKeeper: [EXECUTORS],
    env: KEEPER_ENV,
  });
  const clock = new BlockClock(service.chain);
  let proxy: KnownTxRpcProxy | undefined;
  try {
    const { provider, manifest } = service;
    const makers = manifest.accounts.map((a) => new Wallet(a.privateKey, provider));
    const weth = manifest.tokens.find((t) => t.symbol === 'WETH')!.address;
    for (const maker of makers) {
      const token = new Contract(weth, WETH_ABI, maker);
      await (await token.getFunction('approve')(manifest.contracts.orderExecutor, MaxUint256)).wait();
    }
    const helpers = [1, 2].map((i) => new Wallet(id(`keeper-bench/mover-helper/${i}`), provider));
    const market = new MarketCrossing(provider, manifest, devnetKeys().mover, helpers);
    await market.prepare();
    log(`devnet chain ${manifest.chainId} up, makers approved, market mover ready`);

    const phases: ThroughputPhase[] = [];
    for (const spec of specs) {
      const count = spec.orders ?? defaultCount;
      // anvil answers a raw transaction it already holds "already imported" itself: the proxy (which runs in this
      // process, on the keeper's CPU) stands in for that on ganache only.
      proxy =
        spec.knownTxProxy && service.chain.engine !== 'anvil'
          ? await startKnownTxRpcProxy(manifest.rpcUrl)
          : undefined;
      const bench = await startBenchKeeper(service, { executorIndexes: EXECUTORS, rpcUrl: proxy?.url });
      try {
        await waitForReferencePrice(service);
        await clock.setInterval(spec.blockIntervalMs);
        const poolsBefore = await market.spotPrices();
        const top = Math.max(...poolsBefore);
        // Spread 1 %–3 % above the highest pool: nothing crosses before the move, everything after it.
        const triggerOf = (i: number) => top * (1.01 + (0.02 * i) / Math.max(1, count - 1));
        const since = Date.now();
        const placeStarted = performance.now();
        const ids = await placeLimitOrders({
          client: service.client,
          manifest,
          makers,
          count,
          amount: spec.amount ?? AMOUNT,
          triggerOf,
          slippage: SLIPPAGE,
          concurrency: 16,
        });
        const placeSeconds = (performance.now() - placeStarted) / 1000;
        log(`[${clock.mode}] ${ids.length} orders placed through the API in ${placeSeconds.toFixed(1)} s`);
        // Two index syncs and a block or two of ticks: the keeper has seen every order and left it pending.
        await sleep(2 * Number(KEEPER_ENV.KEEPER_POLL_MS) + Math.max(1_000, spec.blockIntervalMs));
        const before = await statusCounts(service, since);
        if ((before.pending ?? 0) !== count) {
          throw new Error(`orders moved before the market did: ${JSON.stringify(before)}`);
        }

        const durationsBefore = await bench.durations();
        const crossing = await market.moveAll(clock, MOVE_BY);
        const crossedAt = performance.now();
        const crossedAtMs = Date.now();
        const poolsAfter = await market.spotPrices();
        log(
          `[${clock.mode}] block ${crossing.block}: every pool moved from ` +
            `${poolsBefore.map((p) => p.toFixed(0)).join('/')} to ${poolsAfter.map((p) => p.toFixed(0)).join('/')} USDC`,
        );
        let seconds: number | null = null;
        let statuses: Record<string, number> = {};
        for (;;) {
          statuses = await statusCounts(service, since);
          if ((statuses.completed ?? 0) === count) {
            seconds = (performance.now() - crossedAt) / 1000;
            break;
          }
          const open = OPEN_STATUSES.reduce((s, k) => s + (statuses[k] ?? 0), 0);
          if (open === 0 || performance.now() - crossedAt > timeoutMs) break;
          // The count scans the phase's orders in the keeper's own process: a large wave is polled less often, so
          // the bench does not take the CPU the keeper is measured on (the blocks are read from the chain anyway).
          await sleep(Math.max(25, count / 20));
        }
        const listed = await service.client.get<Array<{ id: string }>>('/limit-order?status=completed');
        const mine = new Set(ids);
        const apiCompleted = (listed.body.data ?? []).filter((o) => mine.has(o.id)).length;
        phases.push({
          ...spec,
          mode: clock.mode,
          orders: count,
          placeSeconds,
          poolsBefore,
          poolsAfter,
          triggerRange: [triggerOf(0), triggerOf(count - 1)],
          crossingBlock: crossing.block,
          seconds,
          ordersPerSecond: seconds === null ? null : count / seconds,
          statuses,
          apiCompleted,
          reasons: await failureReasons(service, since),
          report: await batchReport(service.api.store.knex, provider, since, crossing.block, crossedAtMs),
          counters: await bench.counters(COUNTERS),
          problems: bench.problems(),
          timeSpent: spentSince(durationsBefore, await bench.durations()),
          knownTxProxy: proxy !== undefined,
          duplicateSendsRefused: proxy?.refused() ?? 0,
        });
        log(
          `[${clock.mode}] ${statuses.completed ?? 0}/${count} completed` +
            (seconds === null
              ? ` (stopped waiting: ${JSON.stringify(statuses)})`
              : ` ${seconds.toFixed(2)} s after the crossing block`),
        );
      } finally {
        await bench.stop();
        await proxy?.close();
        proxy = undefined;
      }
    }
    return {
      engine: service.chain.engine,
      executors: EXECUTORS.length,
      maxBatchOrders: service.config.keeper.maxBatchOrders,
      maxInFlightPerWallet: service.config.keeper.maxInFlightPerWallet,
      batchGasCap: service.config.keeper.batchGasCap,
      pollMs: service.config.keeper.pollIntervalMs,
      confirmations: service.devnet.chains[0]?.confirmations ?? service.config.keeper.confirmations ?? 1,
      amount: AMOUNT,
      phases,
    };
  } finally {
    await clock.stop().catch(() => undefined);
    await service.close();
  }
}
