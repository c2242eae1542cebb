import os from 'node:os';
import { processLeaseOwner } from '../shared/events/lease-owner';
import { WebhookDeliverer } from '../shared/events/webhook-deliverer';
import { secretBoxOf } from '../shared/signing/master-key';
import type { AddressInfo } from 'node:net';
import { ChainClients } from '../shared/chain/chain-clients';
import { TransferPricing } from '../shared/bridges/transfer-pricing';
import { ChainRegistry } from '../shared/chain/chain-registry';
import { RpcMetrics } from '../shared/chain/rpc-metrics';
import type { AppConfig, ChainConfig, ChainContracts } from '../shared/config/config-schema';
import { createLogger, type Logger } from '../shared/log/create-logger';
import { createAdminServer } from '../shared/metrics/admin-server';
import { registerChainFreshnessGauges } from '../shared/metrics/chain-readiness';
import { gracefulClose } from '../shared/process/graceful-close';
import { Prices } from '../shared/routing/prices/usd-prices';
import { startQuoting, type QuotingService } from '../shared/routing/quoting-service';
import type { LeaseHolder } from '../shared/store/repositories/lease-holder';
import { openStore, type Store } from '../shared/store/store';
import { StoreWatch } from '../shared/store/store-watch';
import { tokensOfChain } from '../shared/tokens/token-lists';
import { buildChainKeeper } from './build-chain-keeper';
import { DiagnosisWriter } from './diagnose/diagnosis-writer';
import type { ChainKeeper } from './chain-keeper';
import { keeperHealth } from './keeper-health';
import { TickLoop } from './tick-loop';
import { KeeperMetrics } from './keeper-metrics';
import { OrderIndex } from './select/order-index';
import { RelayStages } from './relay/build-relay-stages';
import { OrderIndexSync } from './select/order-index-sync';
import { sendPoliciesOf } from './outbox/send-policy-of-chain';
import { loadExecutorWallets } from './submit/executor-keys';

const RPC_TIMEOUT_MS = 10_000;
const SOURCE_RPC_TIMEOUT_MS = 30_000;
/** Pool state polls: faster than the api's, the keeper acts on each block. */
export const KEEPER_BLOCK_POLL_MS = 250;
const OPEN_ORDERS_GAUGE_MS = 5_000;

export interface KeeperOptions {
  log?: Logger;
  store?: Store;
  /**
   * Pool state owned by the caller (the embedded mode shares the api's, so each chain's pools are loaded and
   * followed once per process); otherwise the keeper starts its own.
   */
  quoting?: QuotingService;
  /** Executor wallets' keys when the config has none (embedded mode passes the devnet's executors). */
  executorKeys?: string[];
  now?: () => number;
}

export interface KeeperInstance {
  metrics: KeeperMetrics;
  store: Store;
  owner: string;
  /** Starts the loops and the admin server; resolves with the admin URL. */
  start(): Promise<{ adminUrl: string }>;
  /**
   * Syncs the order index with the store, then runs one tick of the chain, each after the run in flight: for a
   * driver that mines the blocks itself (a simulation run) and needs the keeper to have acted on each block.
   */
  tickNow(chainId: number): Promise<void>;
  /** Stops taking new work, waits for ticks in flight, then closes everything (SIGTERM). */
  stop(): Promise<void>;
}

/** The keeper's one wiring function: concrete objects from the validated config, passed in through constructors. */
export async function buildKeeper(config: AppConfig, options: KeeperOptions = {}): Promise<KeeperInstance> {
  const log = options.log ?? createLogger(config.logLevel, 'keeper');
  const now = options.now ?? Date.now;
  const ownStore = !options.store;
  const store = options.store ?? (await openStore(config, log));
  const owner = config.keeper.id || `${os.hostname()}:${process.pid}:${now().toString(36)}`;
  const metrics = new KeeperMetrics();
  // While the store is away every stage would fail on every tick: the loops wait for it instead, and the outage
  // is logged once when it begins and once when it ends.
  const storeWatch = new StoreWatch({ probe: () => store.knex.raw('select 1'), metrics: metrics.store, log });
  const rpcMetrics = new RpcMetrics(metrics.registry, 'tas_keeper_');
  // Webhooks are delivered by any api or keeper process; a keeper needs the key that seals their secrets, which it
  // has with MASTER_KEY or beside an embedded store (the data folder's key file). Without it the apis deliver.
  const deliverer =
    config.masterKey || !config.databaseUrl
      ? new WebhookDeliverer({
          store,
          secretBox: secretBoxOf(config),
          owner: processLeaseOwner('keeper'),
          log,
          allowInternalTargets: config.webhookPrivateTargets === 'allow',
          observer: metrics.webhooks,
          storeWatch,
        })
      : undefined;
  const chains = new ChainRegistry(config.chains);
  const listed = new Map(chains.all().map((c) => [c.chainId, tokensOfChain(c)]));
  const clients = new ChainClients(chains, {
    timeoutMs: RPC_TIMEOUT_MS,
    retries: 2,
    metrics: rpcMetrics,
    log,
  });
  const sourceClients = new ChainClients(chains, {
    timeoutMs: SOURCE_RPC_TIMEOUT_MS,
    retries: 2,
    metrics: rpcMetrics,
    log,
  });
  const quoting =
    options.quoting ??
    startQuoting({
      chains: chains.all(),
      clients: sourceClients,
      tokens: { tokensOf: (id) => listed.get(id) ?? [] },
      log,
      pollMs: KEEPER_BLOCK_POLL_MS,
      staleness: config.staleness,
      maxPriceImpactBps: config.maxPriceImpactBps,
    });
  const prices = new Prices(quoting.engine, { tokensOf: (id) => listed.get(id) ?? [] });
  const signers = await loadExecutorWallets({
    privateKeys: [...config.keeper.executorPrivateKeys, ...(options.executorKeys ?? [])],
    keystoreFiles: config.keeper.executorKeystoreFiles,
    keystorePassword: config.keeper.executorKeystorePassword,
    keystorePasswordFile: config.keeper.executorKeystorePasswordFile || undefined,
  });
  if (!signers.length) log.warn('no executor wallets configured: orders are selected but never executed');

  const index = new OrderIndex();
  const sync = new OrderIndexSync(
    index,
    async (since, afterId, limit) =>
      (await store.keeperLimitOrders.listChangedSince(since, afterId, limit)).map((o) => ({
        id: o.id,
        chainId: o.chainId,
        tokenIn: o.tokenIn,
        tokenOut: o.tokenOut,
        trigger: o.priceTrigger,
        expiresAt: o.expiresAt,
        nextAttemptAt: o.nextAttemptAt,
        version: o.version,
        status: o.status,
        updatedAt: o.updatedAt,
      })),
    {
      onUnreadable: (row, err) => {
        metrics.rowSetAside(row.chainId, 'limit', 'ERROR');
        log.warn({ err, kind: 'limit', id: row.id }, 'row set aside: the order index cannot hold it');
      },
    },
  );

  // Why pending orders have not filled: judged by the chain keepers, written by the diagnosis loop below.
  const diagnoses = new DiagnosisWriter({
    store: store.diagnoses,
    log,
    now,
    onError: (err) => storeWatch.failed(err),
  });

  // One send policy per chain, shared by every wallet that sends on it (executors, relayer, bridge admin).
  const sendPolicies = sendPoliciesOf(chains.all(), clients, config.keeper, log);

  // The cross-chain relay: stages on chains with a bridge contract, once the relayer / bridge admin keys are set.
  const tokensOf = (id: number) => listed.get(id) ?? [];
  const relay = new RelayStages({
    keeper: config.keeper,
    crossChain: config.crossChain,
    chains: chains.all(),
    clients,
    store,
    pricing: new TransferPricing({ chains, engine: quoting.engine, prices, tokensOf }),
    prices,
    tokensOf,
    sendPolicies,
    metrics,
    owner,
    log,
    now,
  });

  const keepers: ChainKeeper[] = [];
  for (const chain of chains.all()) {
    const client = clients.find(chain.chainId);
    if (!chain.contracts || !client) continue;
    const chainId = chain.chainId;
    keepers.push(
      buildChainKeeper({
        chain: chain as ChainConfig & { contracts: ChainContracts },
        client,
        engine: quoting.engine,
        prices,
        tokens: () => listed.get(chainId) ?? [],
        index,
        store,
        signers,
        sendPolicy: sendPolicies.get(chainId)!,
        keeper: config.keeper,
        metrics,
        owner,
        log: log.child({ chainId }),
        now,
        more: relay.stagesFor(chain, client),
        relayWallets: () => relay.walletsOn(chainId),
        storeWatch,
        diagnoses,
      }),
    );
  }

  const chainIds = keepers.map((k) => k.chainId);
  const countOpenOrders = async (): Promise<void> => {
    const [limit, dca, transfers] = await Promise.all([
      store.keeperLimitOrders.countOpen(),
      store.keeperDca.countOpen(),
      store.transfers.countByStatus(),
    ]);
    metrics.setTransfers(transfers);
    for (const chainId of chainIds) {
      const of = (rows: typeof limit) =>
        Object.fromEntries(rows.filter((r) => r.chainId === chainId).map((r) => [r.status, r.count]));
      metrics.setOpenLimitOrders(chainId, of(limit));
      metrics.setOpenDcaOrders(chainId, of(dca));
    }
  };

  // A keeper restarted under the same KEEPER_ID knows the orders it claimed and never sent are its own: they go
  // back to pending at once rather than after their lease (its sent transactions are followed from the store).
  const takeBackOwnClaims = async (): Promise<void> => {
    // Orders and transfers claimed and never signed alike (signed ones are followed: their rows name this owner).
    const holders: ReadonlyArray<[string, LeaseHolder]> = [
      [store.keeperLimitOrders.kind, store.keeperLimitOrders],
      [store.keeperDca.kind, store.keeperDca],
      ['transfers', store.transfers],
    ];
    const taken: Record<string, number> = {};
    for (const [name, holder] of holders) {
      taken[name] = 0;
      for (;;) {
        const released = await holder.releaseLeasesOf(owner, now());
        if (!released.length) break;
        taken[name] += released.length;
      }
    }
    if (Object.values(taken).some((n) => n > 0))
      log.info({ owner, ...taken }, 'took back the claims of a previous run of this keeper');
  };

  let stopped = false;
  let gaugeTimer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  registerChainFreshnessGauges(metrics.registry, 'tas_keeper_', quoting.engine, chainIds);
  // /healthz: the store answers and no chain's block feed is stalled past a bound; /readyz: every market is fresh.
  const health = keeperHealth({
    storeAnswers: () => storeWatch.check(),
    feeds: () => keepers.map((keeper) => keeper.feed),
    market: quoting.engine,
    chainIds,
    stopping: () => stopped,
    stalledAtMostMs: config.keeper.blockStallMs,
  });
  const admin = createAdminServer(metrics.registry, health);
  const closeAdmin = gracefulClose(admin);

  const syncLoop = new TickLoop(
    async () => {
      if (storeWatch.up) await sync.poll();
    },
    config.keeper.pollIntervalMs,
    (err) => {
      if (storeWatch.failed(err)) return;
      metrics.unhandledError('select');
      log.error({ err }, 'order index sync failed');
    },
  );
  // Diagnoses go to the store on their own loop, never on a chain's tick: a slow write delays no batch.
  const diagnosisLoop = new TickLoop(
    async () => {
      if (storeWatch.up) await diagnoses.flush();
    },
    config.keeper.pollIntervalMs,
    (err) => log.warn({ err }, 'writing order diagnoses failed'),
  );
  // Each chain ticks on its own loop: a chain stuck on a slow RPC never holds another back. A chain's tick also
  // runs as soon as its pool state is stored for a new block: a crossing is acted on without waiting out a poll.
  const tickLoops = new Map(
    keepers.map((keeper) => [
      keeper.chainId,
      new TickLoop(
        async () => {
          if (storeWatch.up) await keeper.tick();
        },
        config.keeper.pollIntervalMs,
        (err) => {
          if (storeWatch.failed(err)) return;
          metrics.unhandledError('main');
          log.error({ err, chainId: keeper.chainId }, 'keeper tick failed');
        },
      ),
    ]),
  );

  return {
    metrics,
    store,
    owner,
    async start() {
      await takeBackOwnClaims();
      await sync.poll();
      syncLoop.start();
      diagnosisLoop.start();
      for (const loop of tickLoops.values()) loop.start();
      unsubscribe = quoting.cache.subscribe((chainId) => tickLoops.get(chainId)?.wake());
      storeWatch.start();
      deliverer?.start();
      gaugeTimer = setInterval(() => {
        if (!storeWatch.up) return;
        countOpenOrders().catch((err: unknown) => {
          if (!storeWatch.failed(err)) log.error({ err }, 'counting open orders failed');
        });
      }, OPEN_ORDERS_GAUGE_MS);
      const adminUrl = await new Promise<string>((resolve, reject) => {
        admin.once('error', reject);
        admin.listen(config.keeper.adminPort, config.host, () => {
          const { port } = admin.address() as AddressInfo;
          resolve(`http://${config.host}:${port}`);
        });
      });
      log.info(
        { owner, chains: keepers.length, executors: signers.length, relayer: relay.relayerAddress ?? null },
        'keeper started',
      );
      return { adminUrl };
    },
    async tickNow(chainId) {
      await syncLoop.runNow();
      await tickLoops.get(chainId)?.runNow();
      await diagnosisLoop.runNow();
    },
    async stop() {
      stopped = true;
      storeWatch.stop();
      await deliverer?.stop();
      unsubscribe?.();
      if (gaugeTimer) clearInterval(gaugeTimer);
      // In-flight work finishes: a batch being recorded and broadcast is followed to its end by whoever holds it.
      await Promise.all([syncLoop.stop(), ...[...tickLoops.values()].map((loop) => loop.stop())]);
      // What the last ticks judged, once (a store that is away keeps nothing back: the next keeper judges again).
      await diagnosisLoop.stop();
      if (storeWatch.up) await diagnoses.flush();
      if (!options.quoting) await quoting.stop();
      clients.close();
      sourceClients.close();
      if (admin.listening) await closeAdmin();
      if (ownStore) await store.close();
      log.info('keeper stopped');
    },
  };
}
