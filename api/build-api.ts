import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { ChainClients } from '../shared/chain/chain-clients';
import { ChainRegistry } from '../shared/chain/chain-registry';
import { RpcMetrics } from '../shared/chain/rpc-metrics';
import type { AppConfig } from '../shared/config/config-schema';
import { createLogger, type Logger } from '../shared/log/create-logger';
import { openStore, type Store } from '../shared/store/store';
import { StoreWatch } from '../shared/store/store-watch';
import { createExternalAggregators } from '../shared/routing/aggregators/create-external-aggregators';
import { MetaQuoter } from '../shared/routing/meta-quoter';
import { startQuoting, type QuotingService } from '../shared/routing/quoting-service';
import { Prices } from '../shared/routing/prices/usd-prices';
import { buildCrossChainProviders } from '../shared/bridges/provider-registry';
import { TransferPricing } from '../shared/bridges/transfer-pricing';
import { GasPriceReader } from '../shared/chain/gas-price-reader';
import { tokensOfChain } from '../shared/tokens/token-lists';
import { createAdminServer } from '../shared/metrics/admin-server';
import { gracefulClose } from '../shared/process/graceful-close';
import { readiness, registerChainFreshnessGauges } from '../shared/metrics/chain-readiness';
import { createApp } from './app';
import { AccountAuthenticator } from './gateway/account-authenticator';
import { secretBoxOf } from '../shared/signing/master-key';
import { openGatewayLimits } from './gateway/gateway-limits';
import { ApiMetrics } from './metrics';
import { serviceRoutes } from './routes';
import { EventFeed } from './routes/events/event-feed';
import { processLeaseOwner } from '../shared/events/lease-owner';
import { WebhookDeliverer } from '../shared/events/webhook-deliverer';
import type { ApiState } from './http/api-state';
import { BASE_PATH } from './http/mount-routes';
import { KeyConcurrency } from './http/key-concurrency';
import { RequestValidator } from './http/validator';

const NONCE_PURGE_INTERVAL_MS = 60_000;
const API_RPC_TIMEOUT_MS = 2_500;
const SOURCE_RPC_TIMEOUT_MS = 30_000;
const SWAP_RPC_TIMEOUT_MS = 10_000;

export interface ApiOptions {
  log?: Logger;
  /** A store the caller owns (tests share one between two api instances); otherwise opened from config. */
  store?: Store;
  /** Block polling of the pool state (default 1 s); the embedded mode shares the api's with the keeper. */
  blockPollMs?: number;
  /**
   * The service clock of the resources (orders' and strategies' times, expiry checks, DCA schedules) and of the pool
   * state's age: a simulation run passes its chain clock. Request signatures are always checked on the wall clock.
   */
  now?: () => number;
}

export interface ApiInstance {
  app: Koa<ApiState>;
  store: Store;
  metrics: ApiMetrics;
  log: Logger;
  /** Pool state and quotes; the embedded mode hands it to the keeper so a chain's pools are loaded once. */
  quoting: QuotingService;
  /** Starts the public and admin servers; resolves with their base URLs. */
  listen(): Promise<{ baseUrl: string; adminUrl: string }>;
  /** Stops accepting requests, answers those in flight, then closes the pool state, the clients and the store. */
  close(): Promise<void>;
}

function listenOn(server: http.Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address() as AddressInfo;
      resolve(`http://${host}:${actual}`);
    });
  });
}

/** The api's one wiring function: concrete objects from the validated config, passed in through constructors. */
export async function buildApi(config: AppConfig, options: ApiOptions = {}): Promise<ApiInstance> {
  const log = options.log ?? createLogger(config.logLevel, 'api');
  const store = options.store ?? (await openStore(config, log));
  const chains = new ChainRegistry(config.chains);
  const listedTokens = new Map(chains.all().map((chain) => [chain.chainId, tokensOfChain(chain)]));
  for (const [chainId, tokens] of listedTokens) await store.tokens.replaceChainTokens(chainId, tokens);

  const metrics = new ApiMetrics();
  const storeWatch = new StoreWatch({ probe: () => store.knex.raw('select 1'), metrics: metrics.store, log });
  const secretBox = secretBoxOf(config);
  const validator = new RequestValidator();
  const limits = await openGatewayLimits(config, store, log, metrics);
  const authenticator = new AccountAuthenticator({
    accounts: store.accounts,
    nonces: limits.nonces,
    secretBox,
    cacheTtlMs: config.accountCacheTtlMs,
  });
  // Reads answered inside a request: a hung node must give up well before the gateway's timeout.
  const rpcMetrics = new RpcMetrics(metrics.registry, 'tas_api_');
  const chainClients = new ChainClients(chains, {
    timeoutMs: API_RPC_TIMEOUT_MS,
    retries: 1,
    metrics: rpcMetrics,
    log,
  });
  // Pool loading runs in the background, and a first V3 tick load is one large multicall: it gets its own
  // clients with a timeout no request waits on.
  const sourceClients = new ChainClients(chains, {
    timeoutMs: SOURCE_RPC_TIMEOUT_MS,
    retries: 2,
    metrics: rpcMetrics,
    log,
  });
  // The swap's dry run and gas estimate run the route in the node's EVM (several times for eth_estimateGas): a
  // longer budget than plain reads, still well inside the gateway's timeout.
  const swapClients = new ChainClients(chains, {
    timeoutMs: SWAP_RPC_TIMEOUT_MS,
    retries: 1,
    metrics: rpcMetrics,
    log,
  });
  const transactionStatus = { forChain: (chainId: number) => chainClients.find(chainId) };
  // Pool states follow each chain's blocks in the background; quotes read them from memory only.
  const quoting = startQuoting({
    chains: chains.all(),
    clients: sourceClients,
    tokens: { tokensOf: (chainId) => listedTokens.get(chainId) ?? [] },
    log,
    pollMs: options.blockPollMs,
    staleness: config.staleness,
    maxPriceImpactBps: config.maxPriceImpactBps,
    now: options.now,
  });
  const tokensOf = (chainId: number) => listedTokens.get(chainId) ?? [];
  const prices = new Prices(quoting.engine, { tokensOf });
  const gasPrices = new GasPriceReader(chainClients);
  // Cross-chain providers read the chains within a request (balances, receipts, logs): the api's request clients.
  const crossChainProviders = buildCrossChainProviders({
    crossChain: config.crossChain,
    chains,
    clients: chainClients,
    pricing: new TransferPricing({ chains, engine: quoting.engine, prices, tokensOf }),
    gasPrices,
    refunds: store.transfers,
    log,
  });
  const eventFeed = new EventFeed(store.events, log, storeWatch);
  const deliverer = new WebhookDeliverer({
    store,
    secretBox,
    owner: processLeaseOwner('api'),
    log,
    allowInternalTargets: config.webhookPrivateTargets === 'allow',
    observer: metrics.webhooks,
    storeWatch,
  });
  const routes = serviceRoutes({
    eventFeed,
    store,
    chains,
    secretBox,
    validator,
    now: options.now ?? Date.now,
    transactionStatus,
    quotes: {
      engine: quoting.engine,
      quoter: new MetaQuoter(quoting.engine, {
        aggregators: createExternalAggregators(config.externalAggregators, {
          decimalsOf: (chainId, address) =>
            tokensOf(chainId).find((t) => t.address.toLowerCase() === address.toLowerCase())?.decimals,
        }),
        budgetMs: config.externalAggregators.quoteBudgetMs,
        maxPriceImpactBps: config.maxPriceImpactBps,
      }),
      protocolFeePips: config.protocolFeePips,
      prices,
      gasPrices,
    },
    readClients: chainClients,
    chainClients: swapClients,
    crossChain: { providers: crossChainProviders },
  });
  const app = createApp({
    log,
    metrics,
    authenticator,
    rateLimiter: limits.rateLimiter,
    authFailureLimiter: limits.authFailureLimiter,
    oneTrip: limits.oneTrip,
    validator,
    routes,
    bodyLimitBytes: config.bodyLimitBytes,
    gatewayTimeoutMs: config.gatewayTimeoutMs,
    listConcurrency: new KeyConcurrency(config.listConcurrencyPerKey),
    storeWatch,
  });

  const housekeeping = setInterval(() => {
    limits.prune();
    store.nonces.purgeExpired(Date.now()).catch((err: unknown) => {
      if (!storeWatch.failed(err)) log.warn({ err }, 'nonce purge failed');
    });
  }, NONCE_PURGE_INTERVAL_MS);
  housekeeping.unref();

  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  const closeServer = gracefulClose(server);
  const chainIds = chains.all().map((c) => c.chainId);
  registerChainFreshnessGauges(metrics.registry, 'tas_api_', quoting.engine, chainIds);
  // Liveness and readiness both ask the store: one probe serves both, and its answer moves the store watch.
  const admin = createAdminServer(metrics.registry, {
    healthy: () => storeWatch.check(),
    ready: (only) => readiness(quoting.engine, chainIds, only),
    storeAnswers: () => storeWatch.check(),
  });
  const closeAdmin = gracefulClose(admin);

  return {
    app,
    store,
    metrics,
    log,
    quoting,
    async listen() {
      const origin = await listenOn(server, config.host, config.port);
      const adminUrl = await listenOn(admin, config.host, config.adminPort);
      storeWatch.start();
      deliverer.start();
      return { baseUrl: `${origin}${BASE_PATH}`, adminUrl };
    },
    async close() {
      clearInterval(housekeeping);
      storeWatch.stop();
      eventFeed.stop();
      await deliverer.stop();
      // Requests in flight are answered first: the store and the clients they use close after.
      await Promise.all([closeServer(), closeAdmin()]);
      await quoting.stop();
      chainClients.close();
      sourceClients.close();
      swapClients.close();
      limits.close();
      if (!options.store) await store.close();
    },
  };
}
