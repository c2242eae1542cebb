import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonRpcProvider, Wallet } from 'ethers';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { devnetBridgeEnv } from '../../devnet/bridge-keys';
import { buildKeeper, KEEPER_BLOCK_POLL_MS, type KeeperInstance } from '../../keeper/build-keeper';
import { createLogger } from '../../shared/log/create-logger';
import { limitOrderBody, limitOrderTokens } from '../factories/limit-orders';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { startApi, testConfig, type RunningApi } from '../helpers/api-harness';
import {
  dashboardFiles,
  loadDashboard,
  objects,
  panelsOf,
  variablesOf,
  type Json,
} from '../helpers/grafana-queries';
import {
  approveExecutor,
  baseUnits,
  createLimitOrder,
  feeCap,
  makerWallets,
  marketPrice,
  maxFeeBps,
  priceString,
  signPair,
  token,
  waitForLimitOrder,
  waitUntilPairAccepted,
  type LimitOrderJson,
} from '../helpers/maker';
import { startPrometheus, type PrometheusServer, type PromSample } from '../helpers/prometheus-server';
import { describeWithTool } from '../helpers/prometheus-tools';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { createStoreTarget, type StoreTarget } from '../helpers/store-targets';

/**
 * The dashboards against a real Prometheus: the api and a keeper on a devnet chain, scraped every second on their
 * admin ports under the jobs of grafana/prometheus.yml, go through a short script (quotes, a 404, orders executed,
 * one failure of each final kind a maker can cause, an RPC outage that makes quotes answer 500); then every panel
 * expression of both dashboards is queried as Grafana would send it and must return data, and the panels that count
 * say what the script did. The chain's RPC runs through a proxy so the outage can be switched on and off.
 */

jest.setTimeout(150_000);

const CHAIN_ID = 1;
const STALE_AFTER_SECONDS = 3;
/** The dashboards' variables are "All": Grafana sends their allValue. */
const ALL = '.*';
/**
 * Grafana's `$__rate_interval` for the dashboards over "Last 24 hours" on a 1,440-point panel: `$__interval` 1m, and
 * max($__interval + scrape interval, 4 × scrape interval) with the 1 s scrape interval of this Prometheus.
 */
const GRAFANA_INTERVAL_SECONDS = 60;
const BELOW = 0.97;
const ABOVE = 1.03;

interface PanelQuery {
  dashboard: string;
  panel: string;
  refId: string;
  expr: string;
}

/** Every panel target of a dashboard with its variables replaced as Grafana replaces them. */
function panelQueries(file: string, rateInterval: string): PanelQuery[] {
  const dashboard = loadDashboard(file);
  const values = new Map<string, string>(
    variablesOf(dashboard).map((v) => [String(v.name), typeof v.allValue === 'string' ? v.allValue : ALL]),
  );
  values.set('__rate_interval', rateInterval);
  values.set('__interval', `${GRAFANA_INTERVAL_SECONDS}s`);
  values.set('__range', '24h');
  const substitute = (expr: string): string =>
    expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
      const value = values.get(name);
      if (value === undefined) throw new Error(`${file}: no value for the variable ${whole} in ${expr}`);
      return value;
    });
  return panelsOf(dashboard)
    .filter((panel) => panel.type !== 'row')
    .flatMap((panel: Json) =>
      objects(panel.targets).map((target) => ({
        dashboard: String(dashboard.title),
        panel: String(panel.title),
        refId: String(target.refId),
        expr: substitute(String(target.expr)),
      })),
    );
}

describeWithTool('prometheus', 'dashboards on a real Prometheus', (prometheusBinary) => {
  let dataDir: string;
  let devnet: RunningDevnet;
  let chain: ManifestChain;
  let provider: JsonRpcProvider;
  let proxy: RpcProxy;
  let target: StoreTarget;
  let api: RunningApi;
  let keeper: KeeperInstance | undefined;
  let prometheus: PrometheusServer | undefined;
  let client: ApiClient;
  let makers: Wallet[];
  let weth: ManifestToken;
  let usdc: ManifestToken;
  let scriptStartedAt: number;

  /** What the script did, to compare with the panels. */
  const done = { executed: 0, finalFailures: new Map<string, number>(), quotes: new Map<number, number>() };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-prometheus-e2e-'));
    devnet = await startDevnet(
      loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: String(CHAIN_ID), DEVNET_PORTS: '0' }),
      createLogger('silent', 'test'),
    );
    chain = devnet.manifest.chains[0]!;
    provider = devnet.handles[0]!.provider;
    proxy = await startRpcProxy(chain.rpcUrl);
    // The api and the keeper reach the chain only through the proxy; the test's own transactions go direct.
    const chains = devnet.chains.map((c) => ({ ...c, rpcUrls: [proxy.url] }));
    target = await createStoreTarget('sqlite');
    const env = {
      KEEPER_POLL_MS: '100',
      KEEPER_LEASE_MS: '10000',
      KEEPER_ADMIN_PORT: '0',
      STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS),
      // As `npm start` runs: the keeper relays with the devnet's relayer, so its inventory is on the dashboard.
      ...devnetBridgeEnv({}),
    };
    api = await startApi(target, env, { chains }, { blockPollMs: KEEPER_BLOCK_POLL_MS });
    const config = testConfig(target, env, { chains });
    keeper = await buildKeeper(config, {
      store: api.store,
      quoting: api.api.quoting,
      log: createLogger('silent', 'keeper'),
      executorKeys: [devnetKeys(1).executors[0]!.privateKey],
    });
    const { adminUrl: keeperAdmin } = await keeper.start();
    prometheus = await startPrometheus({
      binary: prometheusBinary,
      jobs: { 'tas-api': [new URL(api.adminUrl).host], 'tas-keeper': [new URL(keeperAdmin).host] },
    });
    // Prometheus hands its first targets to the scrapers up to 5 s after it starts: the script waits for both
    // targets' first scrape, so every series is stored at 0 before the event that moves it.
    await scraped('count(up{job=~"tas-api|tas-keeper"} == 1)', (v) => v === 2, 'both targets up');
    await scraped('count(tas_keeper_executions_total)', (v) => v > 0, 'the keeper series');
    client = await newAccountClient(api.baseUrl);
    makers = makerWallets(chain, provider);
    weth = token(chain, 'WETH');
    usdc = token(chain, 'USDC');
    await waitUntilPairAccepted(client, chain, makers[0]!, weth, usdc);
  }, 120_000);

  afterAll(async () => {
    await prometheus?.close();
    await keeper?.stop();
    await api?.close();
    await target?.cleanup();
    await proxy?.close();
    await devnet?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const quoteBody = () => ({
    mode: 'single-chain',
    params: {
      chainId: CHAIN_ID,
      inTokenAddress: weth.address,
      outTokenAddress: usdc.address,
      amount: '1',
      gasPrice: '30',
      slippage: '0.5',
    },
  });

  async function quote(): Promise<number> {
    const { status } = await client.post('/quotes', quoteBody());
    done.quotes.set(status, (done.quotes.get(status) ?? 0) + 1);
    return status;
  }

  async function order(
    maker: Wallet,
    trigger: number,
    over: { signature?: string; expiresAt?: number } = {},
  ) {
    return createLimitOrder(
      client,
      limitOrderBody({
        accountTo: maker.address,
        chainId: chain.chainId,
        ...limitOrderTokens(weth, usdc),
        amount: '1',
        priceTrigger: priceString(trigger),
        price: priceString(trigger),
        expired: String(over.expiresAt ?? Date.now() + 3_600_000),
        gasPrice: '1',
        slippage: '1',
        signature:
          over.signature ??
          (await signPair(
            maker,
            chain,
            maker.address,
            weth.address,
            usdc.address,
            client.credentials.apiKey,
          )),
      }),
    );
  }

  /** Polls Prometheus until `expr` has one sample that `ok` accepts. */
  async function scraped(expr: string, ok: (value: number) => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    let last: PromSample[] = [];
    for (;;) {
      last = await prometheus!.query(expr);
      if (last.length === 1 && ok(last[0]!.value)) return;
      if (Date.now() > deadline)
        throw new Error(`Prometheus never showed ${what}: ${expr} = ${JSON.stringify(last)}`);
      await sleep(250);
    }
  }

  it('runs the script: quotes, a 404, orders executed, each final failure a maker can cause, an outage', async () => {
    scriptStartedAt = Date.now();
    for (let i = 0; i < 3; i++) expect(await quote()).toBe(200);
    expect((await client.get('/limit-order/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const amountIn = baseUnits('1', weth);
    const capBps = await maxFeeBps(provider, chain);
    const [first, second, badSignature, shortAllowance] = makers;
    for (const maker of [first!, second!, badSignature!])
      await approveExecutor(maker, chain, weth.address, amountIn + feeCap(amountIn, capBps));
    // Covers the amount but not the fee.
    await approveExecutor(shortAllowance!, chain, weth.address, amountIn - 1n);
    const market = await marketPrice(provider, chain, weth, usdc);
    const crossing = market * BELOW;
    const usdt = token(chain, 'USDT');
    const orders = await Promise.all([
      order(first!, crossing),
      order(second!, crossing),
      order(badSignature!, crossing, {
        signature: await signPair(
          badSignature!,
          chain,
          badSignature!.address,
          weth.address,
          usdt.address,
          client.credentials.apiKey,
        ),
      }),
      // Crossed, but waits for an approval that never comes (ALLOWANCE_SHORT) until it expires in 5 s.
      order(shortAllowance!, crossing, { expiresAt: Date.now() + 5_000 }),
      // Never crosses; expires in 3 s.
      order(first!, market * ABOVE, { expiresAt: Date.now() + 3_000 }),
    ]);
    const settled: LimitOrderJson[] = [];
    for (const o of orders)
      settled.push(await waitForLimitOrder(client, o.id, ['completed', 'failed'], 30_000));
    expect(settled.map((o) => [o.status, o.reasonFail])).toEqual([
      ['completed', []],
      ['completed', []],
      ['failed', ['BAD_SIGNATURE']],
      ['failed', ['expired']],
      ['failed', ['expired']],
    ]);
    done.executed = 2;
    done.finalFailures.set('BAD_SIGNATURE', 1);
    done.finalFailures.set('expired', 2);

    // The node stops answering: once the pool state is older than STALE_AFTER_SECONDS, quotes answer 500.
    proxy.setFailure({ failEvery: 1 });
    const deadline = Date.now() + (STALE_AFTER_SECONDS + 15) * 1000;
    while ((await quote()) !== 500) {
      if (Date.now() > deadline) throw new Error('quotes never refused while the RPC was down');
      await sleep(250);
    }
    proxy.setFailure({ failEvery: 0 });
    const recovery = Date.now() + 20_000;
    while ((await quote()) !== 200) {
      if (Date.now() > recovery) throw new Error('quotes never recovered');
      await sleep(250);
    }
    expect(done.quotes.get(500)).toBeGreaterThanOrEqual(1);

    // Prometheus has scraped the end of it: settled counts, the open-orders gauge (counted every 5 s), claims again.
    await scraped('sum(tas_keeper_executions_total{result="executed"})', (v) => v === 2, 'the executions');
    await scraped(
      'sum(tas_keeper_order_failures_total{disposition="final"})',
      (v) => v === 3,
      'the final failures',
    );
    await scraped('sum(tas_keeper_open_limit_orders)', (v) => v === 0, 'no open order');
    await scraped('max(tas_keeper_claims_held)', (v) => v === 0, 'claims resumed');
    await scraped(
      `sum(tas_api_http_requests_total{route="/api/v1/quotes"})`,
      (v) => v === [...done.quotes.values()].reduce((a, b) => a + b, 0),
      'every quote',
    );
    // Two more scrapes of every target (each `up` sample is stamped with its scrape's time): every series has its
    // last value in.
    const since = Date.now() / 1000;
    await scraped(
      'min(timestamp(up))',
      (v) => v >= since + prometheus!.scrapeIntervalSeconds,
      'two more scrapes of every target',
    );
  });

  it.each(dashboardFiles())('%s: every panel expression returns data', async (file) => {
    const rateInterval = `${GRAFANA_INTERVAL_SECONDS + prometheus!.scrapeIntervalSeconds}s`;
    const queries = panelQueries(file, rateInterval);
    expect(queries.length).toBeGreaterThan(10);
    const empty: string[] = [];
    for (const q of queries) {
      const result = await prometheus!.query(q.expr);
      if (result.length === 0) empty.push(`"${q.panel}" ${q.refId}: ${q.expr}`);
    }
    expect(empty).toEqual([]);
  });

  /** The panel's single value (stat panels), its expression as Grafana sends it. */
  async function stat(file: string, title: string, rateInterval = '61s'): Promise<number> {
    const queries = panelQueries(file, rateInterval).filter((q) => q.panel === title);
    expect(queries).toHaveLength(1);
    const result = await prometheus!.query(queries[0]!.expr);
    expect(result).toHaveLength(1);
    return result[0]!.value;
  }

  /** The panel's series over the script's span (the operator zoomed onto it), keyed by their labels. */
  async function seriesOverScript(file: string, title: string): Promise<Map<string, number>> {
    const window = `${Math.ceil((Date.now() - scriptStartedAt) / 1000) + 5}s`;
    const values = new Map<string, number>();
    for (const q of panelQueries(file, window).filter((p) => p.panel === title)) {
      for (const s of await prometheus!.query(q.expr))
        values.set(
          Object.entries(s.metric)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
          s.value,
        );
    }
    return values;
  }

  it('counts on the keeper dashboard what the script did, the first event of each kind included', async () => {
    expect(await stat('tas-keeper.json', 'Keeper up')).toBe(1);
    // increase() extrapolates to the end of its window by at most half a scrape interval: a count within 1%.
    expect(Math.round(await stat('tas-keeper.json', 'Executed orders (1h)'))).toBe(done.executed);
    expect(Math.round(await stat('tas-keeper.json', 'Final failures (1h)'))).toBe(3);
    expect(await stat('tas-keeper.json', 'Open limit orders')).toBe(0);
    // An idle instant-mining devnet makes no blocks between transactions: that is no stalled feed.
    expect(await stat('tas-keeper.json', 'Stalled feeds')).toBe(0);
    expect(await stat('tas-keeper.json', 'Low-balance wallets')).toBe(0);
    expect(await stat('tas-keeper.json', 'Unhandled errors (1h)')).toBe(0);

    const failures = await seriesOverScript('tas-keeper.json', 'Failures by reason');
    for (const reason of done.finalFailures.keys())
      expect({ reason, failing: (failures.get(`disposition=final,reason=${reason}`) ?? 0) > 0 }).toEqual({
        reason,
        failing: true,
      });
    expect(failures.get('disposition=final,reason=INSUFFICIENT_BALANCE')).toBe(0);
    const executions = await seriesOverScript('tas-keeper.json', 'Executions by result');
    expect(executions.get(`chain_id=${CHAIN_ID},kind=limit,result=executed`)).toBeGreaterThan(0);
    expect(executions.get(`chain_id=${CHAIN_ID},kind=limit,result=reverted`)).toBe(0);
    // The outage: the keeper's RPC calls failed through the proxy.
    const rpcErrors = await seriesOverScript('tas-keeper.json', 'RPC error ratio');
    expect(rpcErrors.get(`chain_id=${CHAIN_ID}`)).toBeGreaterThan(0);
  });

  it('counts on the api dashboard what the script did', async () => {
    expect(await stat('tas-api.json', 'Api instances up')).toBe(1);
    expect(await stat('tas-api.json', 'Unhandled errors (1h)')).toBe(0);
    expect(await stat('tas-api.json', 'Rate-limited (1h)')).toBe(0);
    const byStatus = await seriesOverScript('tas-api.json', 'Error responses by route');
    expect(byStatus.get('route=/api/v1/limit-order/:id,status=404')).toBeGreaterThan(0);
    expect(byStatus.get('route=/api/v1/quotes,status=500')).toBeGreaterThan(0);
    const ratio = await seriesOverScript('tas-api.json', '5xx ratio');
    expect([...ratio.values()][0]).toBeGreaterThan(0);
    // Exact counts, the first request of each route and status included: the counters started at 0 with the api.
    // increase() over the hour counts them too; it extrapolates to the query's time from a window of a few dozen
    // seconds, so it may read a little more than the exact count, never less.
    const count = async (selector: string): Promise<{ total: number; increase: number }> => {
      const [total] = await prometheus!.query(`sum(tas_api_http_requests_total{${selector}})`);
      const [increase] = await prometheus!.query(
        `sum(increase(tas_api_http_requests_total{${selector}}[1h]))`,
      );
      return { total: total?.value ?? NaN, increase: increase?.value ?? NaN };
    };
    for (const [selector, expected] of [
      ['route="/api/v1/quotes",status="200"', done.quotes.get(200)!],
      ['route="/api/v1/quotes",status="500"', done.quotes.get(500)!],
      ['route="/api/v1/limit-order/:id",method="GET",status="404"', 1],
    ] as const) {
      const { total, increase } = await count(selector);
      expect({ selector, total }).toEqual({ selector, total: expected });
      expect(increase).toBeGreaterThanOrEqual(expected - 0.5);
      expect(increase).toBeLessThanOrEqual(expected * 1.25 + 0.5);
    }
  });
});
