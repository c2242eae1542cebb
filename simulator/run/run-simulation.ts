import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseUnits } from 'ethers';
import { devnetKeys, simulationMakers } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import type { ChainHandle } from '../../devnet/engine/devnet-chain';
import { buildReport } from '../report/build-report';
import { renderHtml } from '../report/render-html';
import type {
  ObservedExecution,
  PlacedDca,
  PlacedLimitOrder,
  SimulationFacts,
  SimulationReport,
} from '../report/report-types';
import { expandOrders } from '../scenario/expand-orders';
import { loadScenario } from '../scenario/load-scenario';
import type { PlannedOrders, ResolvedScenario } from '../scenario/scenario-types';
import { ChainObserver } from './chain-observer';
import {
  ExecutableOrders,
  headGasPrice,
  priceBoundReader,
  type ChainTerms,
  type OpenLimitOrder,
} from './executable-orders';
import { crossCheck } from './cross-check';
import { interruptible, RunInterrupted } from './interruptible';
import { MarketDriver } from './market-driver';
import { maxFeeBps, prepareMakers, type PairSignatures } from './makers';
import { PhaseTimer } from './phase-timer';
import {
  dcaOnchainId,
  placeOrders,
  type PlacedLimit,
  type PlacedStrategy,
  type PlacementContext,
} from './place-orders';
import type { RunProgress } from './run-progress';
import { SimApiClient } from './sim-api-client';
import { startSimulationService, type SimulationService } from './sim-service';
import { TokenFunding } from './token-funding';
import { succeeded } from './mined-receipt';

export interface SimulationOptions {
  scenarioFile: string;
  /** Where report.json and report.html go; default the run's data folder. */
  outDir?: string;
  seed?: number;
  /** Default process.env: DATA_DIR (the runs' parent folder), DEVNET_FORK_URL, DEVNET_EXECUTORS, keeper tuning. */
  env?: Partial<Record<string, string | undefined>>;
  onProgress?: (progress: RunProgress) => void;
  onLine?: (line: string) => void;
  /** Aborting stops the run after the current block; nothing is written. */
  signal?: AbortSignal;
}

export interface SimulationResult {
  report: SimulationReport;
  outDir: string;
  dataDir: string;
}

interface ChainRun {
  chainId: number;
  handle: ChainHandle;
  manifest: ManifestChain;
  driver: MarketDriver;
  observer: ChainObserver;
  /** Indexes into scenario.markets of this chain's markets, in the driver's order. */
  markets: number[];
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'scenario'
  );
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
}

/**
 * One simulation run: the real service on its own devnet, driven block by block through its public API. Before
 * each block the market is traded to the path's price; the block is mined at `blockTimeSeconds` after the last; the
 * run reads the block's executions from the chain (checking the makers' balances), lets the service's pool state
 * and keeper act on the block, then places the orders due at that block through the API. At the
 * end it reads every order's status from the API and writes the report.
 */
export async function runSimulation(opts: SimulationOptions): Promise<SimulationResult> {
  const env = opts.env ?? process.env;
  const line = opts.onLine ?? (() => undefined);
  const timer = new PhaseTimer();
  const started = new Date();
  const scenario = loadScenario(opts.scenarioFile, opts.seed === undefined ? {} : { seed: opts.seed });
  const plan = expandOrders(scenario);
  const dataDir = path.resolve(
    env.DATA_DIR || './data',
    'simulations',
    `${slug(scenario.name)}-${stamp(started)}`,
  );
  const outDir = path.resolve(opts.outDir ?? dataDir);
  line(
    `scenario ${scenario.name}: ${scenario.blocks} blocks of ${scenario.blockTimeSeconds} s on chain(s) ` +
      `${scenario.chains.join(', ')}, ${plan.limit.length} limit orders, ${plan.dca.length} DCA strategies, seed ${scenario.seed}`,
  );
  line(`data: ${dataDir}`);
  const service = await timer.time('setup', () =>
    startSimulationService({
      chains: scenario.chains,
      blockTimeSeconds: scenario.blockTimeSeconds,
      dataDir,
      env,
      progress: line,
      signal: opts.signal,
    }),
  );
  try {
    const prepared = await timer.time('setup', () =>
      interruptible(prepareChains(service, scenario, plan), opts.signal),
    );
    const facts = await drive(service, scenario, plan, prepared, timer, opts);
    const finished = new Date();
    const report: SimulationReport = buildReport({
      ...facts,
      timings: {
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        wallSeconds: Math.round(finished.getTime() - started.getTime()) / 1000,
        phases: timer.seconds(),
      },
    });
    report.discrepancies = crossCheck(facts);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(outDir, 'report.html'), renderHtml(report));
    return { report, outDir, dataDir };
  } finally {
    await service.stop();
    // The chains' state is large and of no use once the report is written; the store stays for inspection.
    rmSync(path.join(dataDir, 'devnet'), { recursive: true, force: true });
  }
}

async function prepareChains(
  service: SimulationService,
  scenario: ResolvedScenario,
  plan: PlannedOrders,
): Promise<{
  runs: ChainRun[];
  signatures: Map<number, PairSignatures>;
  makers: ReturnType<typeof simulationMakers>;
  api: SimApiClient;
}> {
  const mover = devnetKeys().mover.address;
  const makers = simulationMakers(plan.makers);
  // The run's integrator account: every order goes in with its key, so the makers grant their pairs to it.
  const api = await SimApiClient.createAccount(service.baseUrl, `simulation ${scenario.name}`.slice(0, 64));
  const runs: ChainRun[] = [];
  const signatures = new Map<number, PairSignatures>();
  for (const chainId of scenario.chains) {
    const handle = service.devnet.handles.find((h) => h.chainId === chainId);
    const manifest = service.devnet.manifest.chains.find((c) => c.chainId === chainId);
    if (!handle || !manifest) throw new Error(`chain ${chainId} did not start`);
    const funding = new TokenFunding(handle, manifest.contracts.weth);
    const markets = scenario.markets.flatMap((m, i) => (m.chainId === chainId ? [i] : []));
    const driver = await MarketDriver.create(
      handle,
      manifest,
      markets.map((i) => scenario.markets[i]),
      mover,
      funding,
    );
    // The market starts at the path's first price; the instant-mining chain mines each trade.
    const { trades } = await driver.move(markets.map((i) => scenario.markets[i].prices[0]));
    for (const hash of trades) {
      if (!(await succeeded(handle.provider, hash)))
        throw new Error(`moving the market of chain ${chainId} to its start failed`);
    }
    signatures.set(chainId, await prepareMakers(handle, manifest, plan, makers, funding, api.apiKey));
    const observer = new ChainObserver(chainId, handle.provider, manifest.contracts.orderExecutor, mover);
    runs.push({ chainId, handle, manifest, driver, observer, markets });
  }
  return { runs, signatures, makers, api };
}

async function drive(
  service: SimulationService,
  scenario: ResolvedScenario,
  plan: PlannedOrders,
  prepared: Awaited<ReturnType<typeof prepareChains>>,
  timer: PhaseTimer,
  opts: SimulationOptions,
): Promise<Omit<SimulationFacts, 'timings'>> {
  const { runs, signatures, makers, api } = prepared;
  const { blocks, blockTimeSeconds } = scenario;
  const realized: number[][] = scenario.markets.map(() => []);
  const executions: ObservedExecution[] = [];
  const placedLimit: PlacedLimit[] = [];
  const placedDca: PlacedStrategy[] = [];
  // From here on the run mines every block, at its own clock.
  for (const run of runs) await run.handle.pauseMining();
  const heads = await Promise.all(runs.map((r) => r.handle.provider.getBlock('latest')));
  const t0 = Math.max(...heads.map((b) => b?.timestamp ?? 0)) + blockTimeSeconds;
  const timestampOf = (block: number): number => t0 + block * blockTimeSeconds;
  const ctx: PlacementContext = {
    api,
    chains: new Map(runs.map((r) => [r.chainId, r.manifest])),
    makers,
    signatures,
    blockTimeSeconds,
  };
  const executable = new ExecutableOrders(service.api.quoting.engine, await chainTerms(service, runs));
  const filledKeys = new Set<string>();
  const startedAt = Date.now();
  let filled = 0;
  let failed = 0;
  for (let block = 0; block <= blocks; block++) {
    if (opts.signal?.aborted) throw new RunInterrupted();
    const timestamp = timestampOf(block);
    await timer.time('move', () =>
      Promise.all(
        runs.map(async (run) => {
          const { before } = await run.driver.move(run.markets.map((i) => scenario.markets[i].prices[block]));
          if (block > 0) run.markets.forEach((m, j) => (realized[m][block - 1] = before[j]));
        }),
      ),
    );
    const mined = await timer.time('mine', () =>
      Promise.all(
        runs.map(async (run) => {
          await run.handle.setNextBlockTimestamp(timestamp);
          await run.handle.mine(1);
          return run.handle.provider.getBlockNumber();
        }),
      ),
    );
    service.clock.advanceTo(timestamp);
    await timer.time('observe', () =>
      Promise.all(
        runs.map(async (run, i) => {
          const seen = await run.observer.observe(mined[i], block);
          executions.push(...seen.executions);
          for (const e of seen.executions)
            if (e.executed) filledKeys.add(`${e.chainId}:${e.onchainId.toLowerCase()}`);
          filled += seen.executions.filter((e) => e.executed).length;
          failed += seen.executions.filter((e) => !e.executed).length;
          if (seen.moverFailures) {
            service.log.warn(
              { chainId: run.chainId, block, count: seen.moverFailures },
              'market trades reverted',
            );
          }
        }),
      ),
    );
    for (const run of runs) {
      await timer.time('follow', () => service.api.quoting.followNow(run.chainId));
      await timer.time('keeper', () => service.keeper.tickNow(run.chainId));
    }
    // The orders the keeper could act on at this close (placed before it, open, and still unexpired in the next
    // block, which the run must still mine) that the market can fill on their own terms, judged on the pool state
    // the service now holds. Not only those whose trigger the path reached: a route through pools the market does
    // not move (USDC to WETH through USDT, say) can pay an order before its own market does.
    if (block < blocks) {
      await timer.time('judge', () =>
        Promise.all(
          runs.map((run) =>
            executable.judge(
              block,
              run.chainId,
              placedLimit.flatMap((placed) =>
                placed.plan.chainId === run.chainId &&
                placed.placedAtBlock < block &&
                timestampOf(block + 1) * 1000 < placed.expiresAt &&
                !filledKeys.has(`${run.chainId}:${placed.onchainId.toLowerCase()}`)
                  ? [openOrder(run.manifest, placed)]
                  : [],
              ),
            ),
          ),
        ),
      );
    }
    // Placed once the keeper has published the block's reference prices; it acts on them from the next block.
    const dueLimit = plan.limit.filter((o) => o.atBlock === block);
    const dueDca = plan.dca.filter((d) => d.atBlock === block);
    if (dueLimit.length || dueDca.length) {
      const placed = await timer.time('place', () =>
        placeOrders(ctx, block, timestampOf, timestampOf(blocks), dueLimit, dueDca),
      );
      placedLimit.push(...placed.limit);
      placedDca.push(...placed.dca);
    }
    opts.onProgress?.({
      block,
      blocks,
      prices: runs.flatMap((run) =>
        run.markets.map((m) => {
          const market = scenario.markets[m];
          return `${market.chainId}:${market.pair} ${Number(market.prices[block].toPrecision(6))}`;
        }),
      ),
      placed: placedLimit.length + placedDca.length,
      filled,
      failed,
      elapsedSeconds: (Date.now() - startedAt) / 1000,
    });
  }
  await Promise.all(
    runs.map(async (run) => {
      const after = await run.driver.prices();
      run.markets.forEach((m, j) => (realized[m][blocks] = after[j]));
    }),
  );
  const collected = await timer.time('collect', () => collect(ctx, placedLimit, placedDca));
  return {
    scenario,
    seed: scenario.seed,
    tokens: Object.fromEntries(
      runs.map((r) => [
        r.chainId,
        Object.fromEntries(
          r.manifest.tokens.map((t) => [
            t.symbol,
            { symbol: t.symbol, address: t.address.toLowerCase(), decimals: t.decimals },
          ]),
        ),
      ]),
    ),
    realized,
    limitOrders: collected.limit,
    executable: executable.result(filledAtById(placedLimit, executions)),
    dca: collected.dca,
    executions,
    forked: Boolean((opts.env ?? process.env).DEVNET_FORK_URL),
  };
}

interface LimitOrderJson {
  id: string;
  status: string;
  txHash: string;
  reasonFail: string[];
  diagnosis?: { code: string; message: string };
}

/** The block each filled limit order filled at, by its service id. */
function filledAtById(
  placed: readonly PlacedLimit[],
  executions: readonly ObservedExecution[],
): Map<string, number> {
  const byKey = new Map(placed.map((p) => [`${p.plan.chainId}:${p.onchainId.toLowerCase()}`, p.id]));
  const filled = new Map<string, number>();
  for (const e of executions) {
    const id = byKey.get(`${e.chainId}:${e.onchainId.toLowerCase()}`);
    if (e.executed && id !== undefined && !filled.has(id)) filled.set(id, e.block);
  }
  return filled;
}

/** How each chain's execution fee is priced and its price bounds read, for judging which orders were executable. */
async function chainTerms(
  service: SimulationService,
  runs: readonly ChainRun[],
): Promise<Map<number, ChainTerms>> {
  const terms = new Map<number, ChainTerms>();
  for (const run of runs) {
    const chain = service.devnet.chains.find((c) => c.chainId === run.chainId);
    if (!chain) throw new Error(`chain ${run.chainId} has no configuration`);
    terms.set(run.chainId, {
      wrappedNative: chain.wrappedNative,
      nativeDecimals: chain.nativeDecimals,
      maxFeeBps: await maxFeeBps(run.handle, run.manifest.contracts.orderExecutor),
      gasPrice: () => headGasPrice(run.handle.provider),
      priceBound: priceBoundReader(run.handle.provider, run.manifest.contracts.orderExecutor),
    });
  }
  return terms;
}

const openOrders = new WeakMap<PlacedLimit, OpenLimitOrder>();

/** The order as the judgment of executable orders takes it (built once per order). */
function openOrder(manifest: ManifestChain, placed: PlacedLimit): OpenLimitOrder {
  const known = openOrders.get(placed);
  if (known) return known;
  const token = (symbol: string) => {
    const found = manifest.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`token ${symbol} is not on chain ${manifest.chainId}`);
    return { address: found.address, decimals: found.decimals };
  };
  const tokenIn = token(placed.plan.sell);
  const order = {
    id: placed.id,
    tokenIn,
    tokenOut: token(placed.plan.buy),
    amountIn: parseUnits(placed.plan.amount, tokenIn.decimals),
    trigger: placed.plan.trigger,
  };
  openOrders.set(placed, order);
  return order;
}

interface DcaStrategyJson {
  id: string;
  status: string;
  orders?: Array<{
    id: string;
    amount: number;
    status: string;
    transactionHash?: string;
    errorMessage?: string;
  }>;
}

/**
 * Every order's and strategy's end state, as the API answers an integrator's list calls. A strategy lists its
 * orders oldest first, one per iteration: the k-th is iteration k, whose amount its on-chain id is bound to.
 */
async function collect(
  ctx: PlacementContext,
  limit: readonly PlacedLimit[],
  dca: readonly PlacedStrategy[],
): Promise<{ limit: PlacedLimitOrder[]; dca: PlacedDca[] }> {
  const { api } = ctx;
  const [orders, strategies] = await Promise.all([
    api.get<LimitOrderJson[]>('/limit-order'),
    api.get<DcaStrategyJson[]>('/dca-order/strategies'),
  ]);
  const orderById = new Map(orders.map((o) => [o.id, o]));
  const strategyById = new Map(strategies.map((s) => [s.id, s]));
  return {
    limit: limit.map((placed) => {
      const order = orderById.get(placed.id);
      if (!order) throw new Error(`limit order ${placed.id} is missing from GET /limit-order`);
      return {
        plan: placed.plan,
        id: placed.id,
        onchainId: placed.onchainId,
        placedAtBlock: placed.placedAtBlock,
        expiresAt: placed.expiresAt,
        status: order.status,
        txHash: order.txHash.toLowerCase(),
        reasonFail: order.reasonFail,
        diagnosis: order.diagnosis ? `${order.diagnosis.code}: ${order.diagnosis.message}` : null,
      };
    }),
    dca: dca.map((placed) => {
      const strategy = strategyById.get(placed.strategyId);
      if (!strategy)
        throw new Error(`DCA strategy ${placed.strategyId} is missing from GET /dca-order/strategies`);
      return {
        plan: placed.plan,
        strategyId: placed.strategyId,
        placedAtBlock: placed.placedAtBlock,
        status: strategy.status,
        orders: (strategy.orders ?? []).map((o, k) => ({
          id: o.id,
          amount: o.amount,
          onchainId: dcaOnchainId(ctx, placed.plan, k, o.id),
          status: o.status,
          transactionHash: (o.transactionHash ?? '').toLowerCase(),
          errorMessage: o.errorMessage ?? '',
        })),
      };
    }),
  };
}
