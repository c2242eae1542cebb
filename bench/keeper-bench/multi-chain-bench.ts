import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, MaxUint256, Wallet, id } from 'ethers';
import type { MetricValue, Registry } from 'prom-client';
import { devnetKeys } from '../../devnet/keys';
import { WETH_ABI } from '../../devnet/world/abis';
import { startService, type RunningService } from '../../test/helpers/service-harness';
import { batchReport, type BatchReport } from './batch-report';
import { startBenchKeeper } from './bench-keeper';
import { BlockClock } from './block-clock';
import { MarketCrossing } from './market-crossing';
import { placeLimitOrders } from './place-limit-orders';

export interface MultiChainOptions {
  chainIds: number[];
  /** Crossing orders per chain: one batch's worth, so that each chain's first block can hold them all. */
  ordersPerChain: number;
  blockIntervalMs: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface ChainOutcome {
  chainId: number;
  crossingBlock: number;
  report: BatchReport;
  completed: number;
  /** The keeper's own tas_keeper_trigger_to_inclusion_blocks for the chain: orders observed, and within 1 block. */
  histogram: { count: number; withinOneBlock: number };
}

export interface MultiChainResult {
  chainIds: number[];
  ordersPerChain: number;
  blockIntervalMs: number;
  /** From the first crossing block until every order of every chain was completed; null if that never happened. */
  seconds: number | null;
  chains: ChainOutcome[];
  problems: Record<string, number>;
}

const AMOUNT = '0.02';
const MOVE_BY = 0.1;
const EXECUTORS = [0, 1, 2, 3];
const KEEPER_ENV = { KEEPER_POLL_MS: '250', KEEPER_LEASE_MS: '60000' };

interface ChainSetup {
  chainId: number;
  service: RunningService;
  index: number;
  clock: BlockClock;
  market: MarketCrossing;
  makers: Wallet[];
}

async function completedOn(service: RunningService, chainId: number, sinceMs: number): Promise<number> {
  const [row] = (await service.api.store
    .knex('limit_orders')
    .where('created_at', '>=', sinceMs)
    .andWhere({ chain_id: chainId, status: 'completed' })
    .count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
}

/**
 * Issue 27: trigger to inclusion with several chains followed at once. One service (api + one keeper with 4
 * executor wallets on SQLite, production poll settings) on `chainIds` devnet chains mined every
 * `blockIntervalMs`; on each chain `ordersPerChain` WETH → USDC limit orders whose triggers lie 1–3 % above every
 * WETH/USDC pool, then every chain's pools moved by +10 % in one block of that chain, all chains at the same moment.
 * Per chain: how many of its orders were mined in the block right after its crossing block.
 */
export async function runMultiChainBench(opts: MultiChainOptions): Promise<MultiChainResult> {
  const log = opts.log ?? (() => undefined);
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const service = await startService({
    storeKind: 'sqlite',
    chainIds: opts.chainIds,
    keepers: 0,
    executorsPerKeeper: [EXECUTORS],
    env: KEEPER_ENV,
  });
  const setups: ChainSetup[] = [];
  try {
    for (const [index, chainId] of opts.chainIds.entries()) {
      const handle = service.devnet.handles[index]!;
      const manifest = service.devnet.manifest.chains[index]!;
      const makers = manifest.accounts.map((a) => new Wallet(a.privateKey, handle.provider));
      const weth = manifest.tokens.find((t) => t.symbol === 'WETH')!.address;
      for (const maker of makers) {
        const token = new Contract(weth, WETH_ABI, maker);
        await (await token.getFunction('approve')(manifest.contracts.orderExecutor, MaxUint256)).wait();
      }
      const helpers = [1, 2].map((i) => new Wallet(id(`keeper-bench/mover-helper/${i}`), handle.provider));
      const market = new MarketCrossing(handle.provider, manifest, devnetKeys().mover, helpers);
      await market.prepare();
      setups.push({ chainId, service, index, clock: new BlockClock(handle), market, makers });
    }
    log(`devnet chains ${opts.chainIds.join(', ')} up, makers approved, market movers ready`);
    const bench = await startBenchKeeper(service, { executorIndexes: EXECUTORS });
    try {
      for (const { chainId } of setups) {
        const deadline = Date.now() + 60_000;
        while (!(await service.api.store.referencePrices.findPair(chainId, 'WETH', 'USDC'))) {
          if (Date.now() > deadline)
            throw new Error(`no WETH/USDC reference price on chain ${chainId} in 60 s`);
          await sleep(100);
        }
      }
      await Promise.all(setups.map((s) => s.clock.setInterval(opts.blockIntervalMs)));
      const since = Date.now();
      for (const s of setups) {
        const top = Math.max(...(await s.market.spotPrices()));
        await placeLimitOrders({
          client: service.client,
          manifest: service.devnet.manifest.chains[s.index]!,
          makers: s.makers,
          count: opts.ordersPerChain,
          amount: AMOUNT,
          triggerOf: (i) => top * (1.01 + (0.02 * i) / Math.max(1, opts.ordersPerChain - 1)),
          slippage: '1',
          concurrency: 16,
        });
      }
      log(`${opts.ordersPerChain} orders placed on each of ${setups.length} chains`);
      // Two index syncs and a block or two of ticks: the keeper has seen every order and left it pending.
      await sleep(2 * Number(KEEPER_ENV.KEEPER_POLL_MS) + Math.max(1_000, opts.blockIntervalMs));
      for (const s of setups) {
        if ((await completedOn(service, s.chainId, since)) !== 0)
          throw new Error(`orders on chain ${s.chainId} filled before the market moved`);
      }
      const crossings = await Promise.all(setups.map((s) => s.market.moveAll(s.clock, MOVE_BY)));
      // When the last chain's crossing block was mined: each chain's times below count from here.
      const crossedAtMs = Date.now();
      const crossedAt = performance.now();
      log(
        `crossing blocks: ${setups.map((s, i) => `chain ${s.chainId} #${crossings[i]!.block}`).join(', ')}`,
      );
      const total = opts.ordersPerChain * setups.length;
      let seconds: number | null = null;
      for (;;) {
        const done = await Promise.all(setups.map((s) => completedOn(service, s.chainId, since)));
        if (done.reduce((a, b) => a + b, 0) === total) {
          seconds = (performance.now() - crossedAt) / 1000;
          break;
        }
        if (performance.now() - crossedAt > timeoutMs) break;
        await sleep(100);
      }
      const histograms = await inclusionHistograms(bench.keeper.metrics.registry);
      const chains: ChainOutcome[] = [];
      for (const [i, s] of setups.entries()) {
        chains.push({
          chainId: s.chainId,
          crossingBlock: crossings[i]!.block,
          report: await batchReport(
            service.api.store.knex,
            service.devnet.handles[s.index]!.provider,
            since,
            crossings[i]!.block,
            crossedAtMs,
            s.chainId,
          ),
          completed: await completedOn(service, s.chainId, since),
          histogram: histograms.get(String(s.chainId)) ?? { count: 0, withinOneBlock: 0 },
        });
      }
      return {
        chainIds: opts.chainIds,
        ordersPerChain: opts.ordersPerChain,
        blockIntervalMs: opts.blockIntervalMs,
        seconds,
        chains,
        problems: bench.problems(),
      };
    } finally {
      await bench.stop();
    }
  } finally {
    for (const s of setups) await s.clock.stop().catch(() => undefined);
    await service.close();
  }
}

/** Per chain id: the keeper's trigger-to-inclusion observations, and how many were at most one block. */
async function inclusionHistograms(
  registry: Registry,
): Promise<Map<string, { count: number; withinOneBlock: number }>> {
  const out = new Map<string, { count: number; withinOneBlock: number }>();
  const metric = (await registry.getMetricsAsJSON()).find(
    (m) => m.name === 'tas_keeper_trigger_to_inclusion_blocks',
  );
  // prom-client lists a histogram's buckets cumulatively: le=1 counts every observation of at most one block.
  for (const v of (metric?.values ?? []) as Array<MetricValue<string> & { metricName?: string }>) {
    const chain = String(v.labels.chain_id);
    const entry = out.get(chain) ?? { count: 0, withinOneBlock: 0 };
    if (v.metricName?.endsWith('_count')) entry.count = v.value;
    if (v.metricName?.endsWith('_bucket') && Number(v.labels.le) === 1) entry.withinOneBlock = v.value;
    out.set(chain, entry);
  }
  return out;
}
