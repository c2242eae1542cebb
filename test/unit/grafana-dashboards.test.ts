import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { ApiMetrics } from '../../api/metrics';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { RpcMetrics } from '../../shared/chain/rpc-metrics';
import { ENV_DEFAULTS } from '../../shared/config/load-config';
import {
  GRAFANA_DIR,
  dashboardFiles,
  exposedSeries,
  isObject,
  labelNamesOf,
  loadDashboard,
  objects,
  panelsOf,
  parsePromQl,
  queriesOf,
  variableQuery,
  variablesOf,
} from '../helpers/grafana-queries';

const DATASOURCE_UID = 'tas-prometheus';

/** `key: value` of a YAML line, without quotes or a trailing comment. */
function yamlValues(text: string, key: string): string[] {
  const pattern = new RegExp(`^\\s*-?\\s*${key}:\\s*(.+?)\\s*(?:#.*)?$`, 'gm');
  return [...text.matchAll(pattern)].map((m) => m[1]!.replace(/^['"]|['"]$/g, ''));
}

function readGrafanaFile(relative: string): string {
  const file = path.join(GRAFANA_DIR, relative);
  expect(existsSync(file)).toBe(true);
  return readFileSync(file, 'utf8');
}

function yamlFiles(relativeDir: string): string[] {
  const dir = path.join(GRAFANA_DIR, relativeDir);
  return readdirSync(dir)
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => path.join(relativeDir, file));
}

/** Every registry a dashboard may query, with the metrics the processes put on them (RPC metrics included). */
function processRegistries(): Registry[] {
  const keeper = new KeeperMetrics();
  new RpcMetrics(keeper.registry, 'tas_keeper_');
  const api = new ApiMetrics();
  new RpcMetrics(api.registry, 'tas_api_');
  return [keeper.registry, api.registry];
}

describe('PromQL metric extraction', () => {
  it('finds the series of selectors, functions, aggregations and arithmetic, and skips keywords and numbers', () => {
    const parsed = parsePromQl(
      'histogram_quantile(0.99, sum by (le, chain_id) (rate(a_seconds_bucket{chain_id=~"$chain_id",x!="by"}[$__rate_interval]))) ' +
        '/ on (chain_id) group_left (stage) (time() - max(b_timestamp)) * 1e3 + c_total offset 5m',
    );
    expect(parsed.selectors).toEqual([
      { metric: 'a_seconds_bucket', labels: ['chain_id', 'x'] },
      { metric: 'b_timestamp', labels: [] },
      { metric: 'c_total', labels: [] },
    ]);
    expect(parsed.groupingLabels).toEqual(['le', 'chain_id', 'chain_id', 'stage']);
  });

  it('reports a selector that names no metric', () => {
    expect(parsePromQl('{__name__="x"}').selectors).toEqual([
      { metric: '<selector without a metric name>', labels: ['__name__'] },
    ]);
  });
});

describe('Grafana provisioning', () => {
  it('provisions the Prometheus data source under the uid every panel uses', () => {
    const files = yamlFiles('provisioning/datasources');
    expect(files.length).toBeGreaterThan(0);
    const text = files.map(readGrafanaFile).join('\n');
    expect(yamlValues(text, 'apiVersion')).toContain('1');
    expect(yamlValues(text, 'uid')).toEqual([DATASOURCE_UID]);
    expect(yamlValues(text, 'type')).toEqual(['prometheus']);
    expect(yamlValues(text, 'url')).toEqual(['http://prometheus:9090']);
  });

  it('provisions a file provider for the dashboards folder', () => {
    const files = yamlFiles('provisioning/dashboards');
    expect(files.length).toBeGreaterThan(0);
    const text = files.map(readGrafanaFile).join('\n');
    expect(yamlValues(text, 'apiVersion')).toContain('1');
    expect(yamlValues(text, 'type')).toEqual(['file']);
    const [dashboardsPath] = yamlValues(text, 'path');
    expect(dashboardsPath).toMatch(/^\/[\w/.-]+$/);
    // The provider reads a container path: the README mounts grafana/dashboards there.
    expect(readGrafanaFile('README.md')).toContain(`grafana/dashboards:${dashboardsPath!}`);
    expect(dashboardFiles().length).toBeGreaterThan(0);
  });

  it('scrapes both processes on their default admin ports, under the job names the dashboards query', () => {
    const text = readGrafanaFile('prometheus.yml');
    expect(yamlValues(text, 'job_name').sort()).toEqual(['tas-api', 'tas-keeper']);
    // The defaults keep clear of Prometheus's own 9090 and Grafana's 3000 on an operator's machine.
    expect([ENV_DEFAULTS.ADMIN_PORT, ENV_DEFAULTS.KEEPER_ADMIN_PORT]).toEqual(['9464', '9465']);
    expect(text).toMatch(/- job_name: tas-api\n(?:[ \t]+[^\n]*\n)*?[ \t]+- targets: \['[\w.-]+:9464'\]/);
    expect(text).toMatch(/- job_name: tas-keeper\n(?:[ \t]+[^\n]*\n)*?[ \t]+- targets: \['[\w.-]+:9465'\]/);
    expect(readGrafanaFile('README.md')).toContain('`ADMIN_PORT`, default\n  9464');
    // The alert rules load from beside this file.
    const ruleFiles = [...text.matchAll(/^rule_files:\n((?:[ \t]+- .+\n)+)/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/- (\S+)/g)].map((f) => f[1]!),
    );
    expect(ruleFiles).toEqual(['alerts/tas-alerts.yml']);
    for (const file of ruleFiles) readGrafanaFile(file);
    const jobs = new Set(yamlValues(text, 'job_name'));
    const unknownJobs = dashboardFiles().flatMap((file) =>
      queriesOf(loadDashboard(file)).flatMap((query) =>
        [...query.expr.matchAll(/\bjob="([^"]*)"/g)]
          .filter((match) => !jobs.has(match[1]!))
          .map((match) => `${file} ${query.panel}: job ${match[1]!} is not scraped by prometheus.yml`),
      ),
    );
    expect(unknownJobs).toEqual([]);
  });
});

describe('Grafana dashboards', () => {
  let series: Map<string, Set<string>>;
  beforeAll(async () => {
    series = await exposedSeries(processRegistries());
  });

  it('are the keeper and api dashboards, with distinct uids and titles', () => {
    const dashboards = dashboardFiles().map(loadDashboard);
    expect(dashboards.map((d) => d.title)).toEqual(expect.arrayContaining(['TAS api', 'TAS keeper']));
    expect(new Set(dashboards.map((d) => d.uid)).size).toBe(dashboards.length);
    expect(new Set(dashboards.map((d) => d.title)).size).toBe(dashboards.length);
  });

  describe.each(dashboardFiles())('%s', (file) => {
    const dashboard = loadDashboard(file);

    it('is a dashboard model Grafana loads', () => {
      expect(dashboard.uid).toEqual(expect.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/));
      expect(dashboard.title).toEqual(expect.stringMatching(/\S/));
      expect(dashboard.schemaVersion).toEqual(expect.any(Number));
      expect(dashboard.schemaVersion as number).toBeGreaterThanOrEqual(36);
      expect(Array.isArray(dashboard.panels)).toBe(true);
      expect(panelsOf(dashboard).length).toBeGreaterThan(0);
      expect(isObject(dashboard.time)).toBe(true);
    });

    it('gives every panel a unique id, a type, a title and a place on the grid no other panel takes', () => {
      const problems: string[] = [];
      const ids = panelsOf(dashboard).map((panel) => panel.id);
      if (!ids.every((id) => Number.isInteger(id) && (id as number) > 0))
        problems.push('a panel id is not a positive integer');
      if (new Set(ids).size !== ids.length) problems.push('panel ids repeat');
      const taken = new Map<string, string>();
      for (const panel of panelsOf(dashboard)) {
        const title = typeof panel.title === 'string' ? panel.title.trim() : '';
        if (title === '') problems.push(`panel ${String(panel.id)} has no title`);
        if (typeof panel.type !== 'string' || panel.type === '')
          problems.push(`panel "${title}" has no type`);
        const grid = isObject(panel.gridPos) ? panel.gridPos : {};
        const [x, y, w, h] = [grid.x, grid.y, grid.w, grid.h];
        if (![x, y, w, h].every(Number.isInteger)) {
          problems.push(`panel "${title}" has no integer gridPos x, y, w, h`);
          continue;
        }
        const [left, top, width, height] = [x, y, w, h] as number[];
        if (left! < 0 || width! <= 0 || height! <= 0 || left! + width! > 24) {
          problems.push(`panel "${title}" does not fit the 24-column grid`);
        }
        // Panels inside a collapsed row are laid out for when it opens: they may sit where later rows do.
        if (!objects(dashboard.panels).includes(panel)) continue;
        for (let row = top!; row < top! + height!; row += 1) {
          for (let column = left!; column < left! + width!; column += 1) {
            const other = taken.get(`${column},${row}`);
            if (other !== undefined) problems.push(`panel "${title}" overlaps panel "${other}"`);
            taken.set(`${column},${row}`, title);
          }
        }
      }
      expect([...new Set(problems)]).toEqual([]);
    });

    it('queries the provisioned Prometheus data source in every panel and target', () => {
      const problems: string[] = [];
      const uidOf = (value: unknown): unknown => (isObject(value) ? value.uid : undefined);
      for (const panel of panelsOf(dashboard)) {
        const title = String(panel.title);
        if (panel.type === 'row') {
          if (panel.targets !== undefined) problems.push(`row "${title}" has targets`);
          continue;
        }
        const targets = objects(panel.targets);
        if (targets.length === 0) problems.push(`panel "${title}" has no targets`);
        if (uidOf(panel.datasource) !== DATASOURCE_UID)
          problems.push(`panel "${title}" has another data source`);
        const refIds = targets.map((target) => target.refId);
        if (new Set(refIds).size !== refIds.length) problems.push(`panel "${title}" repeats a refId`);
        for (const target of targets) {
          if (typeof target.expr !== 'string' || target.expr.trim() === '') {
            problems.push(`panel "${title}" has a target without expr`);
          }
          if (target.datasource !== undefined && uidOf(target.datasource) !== DATASOURCE_UID) {
            problems.push(`panel "${title}" has a target on another data source`);
          }
        }
      }
      for (const variable of variablesOf(dashboard)) {
        if (variable.type !== 'query') continue;
        if (uidOf(variable.datasource) !== DATASOURCE_UID) {
          problems.push(`variable ${String(variable.name)} has another data source`);
        }
        // The one form the metric check below reads.
        if (!/^label_values\(.+,\s*\w+\s*\)$/.test(variableQuery(variable).trim())) {
          problems.push(`variable ${String(variable.name)} is not a label_values(metric, label) query`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('has a chain_id variable that every query of a per-chain metric filters by', () => {
      expect(variablesOf(dashboard).map((variable) => variable.name)).toContain('chain_id');
      const problems: string[] = [];
      for (const query of queriesOf(dashboard)) {
        if (query.requiredLabels.length > 0) continue;
        for (const selector of parsePromQl(query.expr).selectors) {
          if (series.get(selector.metric)?.has('chain_id') && !selector.labels.includes('chain_id')) {
            problems.push(`${query.panel}: ${selector.metric} is not filtered by chain_id`);
          }
        }
        const uses = query.expr.match(/\$\{?chain_id\b/g)?.length ?? 0;
        const filters = query.expr.match(/chain_id=~"\$chain_id"/g)?.length ?? 0;
        if (uses !== filters)
          problems.push(`${query.panel}: $chain_id used other than as chain_id=~"$chain_id"`);
      }
      expect(problems).toEqual([]);
    });

    it('queries only metrics that exist in the code, with the labels the queries use', () => {
      const problems: string[] = [];
      for (const query of queriesOf(dashboard)) {
        const parsed = parsePromQl(query.expr);
        if (parsed.selectors.length === 0) problems.push(`${query.panel}: no metric in ${query.expr}`);
        const labelsOfQuery = new Set<string>();
        for (const selector of parsed.selectors) {
          const labels = series.get(selector.metric);
          if (!labels) {
            problems.push(`${query.panel}: metric ${selector.metric} does not exist in the code`);
            continue;
          }
          labels.forEach((label) => labelsOfQuery.add(label));
          for (const label of selector.labels) {
            if (!labels.has(label))
              problems.push(`${query.panel}: metric ${selector.metric} has no label ${label}`);
          }
        }
        // Past an unknown metric the labels of the query are unknown too: that one problem is enough.
        if (parsed.selectors.some((selector) => !series.has(selector.metric))) continue;
        for (const label of [...parsed.groupingLabels, ...query.requiredLabels]) {
          if (!labelsOfQuery.has(label))
            problems.push(`${query.panel}: no metric of the query has the label ${label}`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  it.each([
    ['tas-keeper.json', 'tas_keeper_'],
    ['tas-api.json', 'tas_api_'],
  ])('%s charts every %s metric of the code (process defaults aside)', (file, prefix) => {
    const family = (name: string): string => name.replace(/_(?:bucket|sum|count)$/, '');
    const families = new Set(
      [...series.keys()]
        .filter((name) => name.startsWith(prefix) && !/^tas_(?:keeper|api)_(?:process|nodejs)_/.test(name))
        .map(family),
    );
    const queried = new Set(
      queriesOf(loadDashboard(file)).flatMap((query) =>
        parsePromQl(query.expr).selectors.map((selector) => family(selector.metric)),
      ),
    );
    expect([...families].filter((name) => !queried.has(name)).sort()).toEqual([]);
  });
});

describe('KeeperMetrics', () => {
  it('exports values in the units the dashboards chart', async () => {
    const metrics = new KeeperMetrics();
    metrics.setOpenLimitOrders(1, { pending: 3, executing: 1 });
    metrics.setOpenLimitOrders(1, { pending: 2 });
    metrics.observeSelection(1, 0.0042);
    metrics.receipt(137, {
      status: 'success',
      gasUsed: 500_000n,
      effectiveGasPrice: 30_000_000_000n,
      orders: 5,
    });
    metrics.walletBalance(137, '0xAbC', 2_500_000_000_000_000_000n, true);
    metrics.feedStall(1);
    metrics.blockSeen(1, 1234, 1_767_225_600_500);
    metrics.executionFee(1, 1_000_000_000_000_000n);
    metrics.orderFailure(1, 'limit', 'expired', 'final');
    const text = await metrics.registry.metrics();
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        // A status that emptied reads 0, not its last count.
        'tas_keeper_open_limit_orders{chain_id="1",status="pending"} 2',
        'tas_keeper_open_limit_orders{chain_id="1",status="executing"} 0',
        'tas_keeper_open_limit_orders{chain_id="1",status="submitted"} 0',
        // 4.2 ms is inside the 5 ms target bucket.
        'tas_keeper_selection_duration_seconds_bucket{le="0.004",chain_id="1"} 0',
        'tas_keeper_selection_duration_seconds_bucket{le="0.005",chain_id="1"} 1',
        'tas_keeper_gas_used_total{chain_id="137"} 500000',
        // 500,000 gas at 30 gwei is 0.015 of the native coin; one per-order observation per order of the batch.
        'tas_keeper_gas_cost_native_total{chain_id="137"} 0.015',
        'tas_keeper_gas_per_order_bucket{le="100000",chain_id="137"} 5',
        'tas_keeper_gas_per_order_bucket{le="75000",chain_id="137"} 0',
        'tas_keeper_gas_per_order_count{chain_id="137"} 5',
        'tas_keeper_receipts_total{chain_id="137",status="success"} 1',
        'tas_keeper_wallet_balance_native{chain_id="137",wallet="0xAbC"} 2.5',
        'tas_keeper_wallet_balance_low{chain_id="137",wallet="0xAbC"} 1',
        'tas_keeper_feed_stalls_total{chain_id="1"} 1',
        // A new block clears the stall.
        'tas_keeper_feed_stalled{chain_id="1"} 0',
        'tas_keeper_head_block{chain_id="1"} 1234',
        'tas_keeper_last_block_seen_timestamp_seconds{chain_id="1"} 1767225600.5',
        'tas_keeper_execution_fee_native_sum{chain_id="1"} 0.001',
        'tas_keeper_order_failures_total{chain_id="1",kind="limit",reason="expired",disposition="final"} 1',
      ]),
    );
    expect(metrics.contentType).toBe(metrics.registry.contentType);
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('registers on its own registry, beside the RPC metrics under the same prefix', async () => {
    const first = new KeeperMetrics();
    const second = new KeeperMetrics();
    new RpcMetrics(first.registry, 'tas_keeper_');
    first.unhandledError('settle');
    const names = (await first.registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(names).toEqual(
      expect.arrayContaining(['tas_keeper_rpc_requests_total', 'tas_keeper_process_cpu_seconds_total']),
    );
    expect(names.every((name) => name.startsWith('tas_keeper_'))).toBe(true);
    expect(await second.registry.metrics()).not.toContain(
      'tas_keeper_unhandled_errors_total{stage="settle"} 1',
    );
    expect(await first.registry.metrics()).toContain('tas_keeper_unhandled_errors_total{stage="settle"} 1');
  });
});

describe('series that exist before their first event', () => {
  /** Readings that have no value until measured (a head block of 0 would be a lie). */
  const MEASURED_ONLY = new Set([
    'tas_keeper_head_block',
    'tas_keeper_last_block_seen_timestamp_seconds',
    'tas_keeper_price_lag_blocks',
  ]);

  it('KeeperMetrics.initChain starts every per-chain series of the keeper at 0, once', async () => {
    const metrics = new KeeperMetrics();
    metrics.initChain(5);
    metrics.orderFailure(5, 'limit', 'BAD_SIGNATURE', 'final');
    metrics.observeSelection(5, 0.001);
    // A second call (a chain keeper rebuilt) zeroes nothing.
    metrics.initChain(5);
    const missing: string[] = [];
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      const labels = labelNamesOf(metrics.registry, metric.name);
      if (!labels.includes('chain_id') || labels.includes('wallet') || MEASURED_ONLY.has(metric.name))
        continue;
      if (!metric.values.some((v) => v.labels.chain_id === '5')) missing.push(metric.name);
    }
    expect(missing).toEqual([]);
    const lines = (await metrics.registry.metrics()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'tas_keeper_order_failures_total{chain_id="5",kind="limit",reason="BAD_SIGNATURE",disposition="final"} 1',
        'tas_keeper_order_failures_total{chain_id="5",kind="dca",reason="INSUFFICIENT_ALLOWANCE",disposition="final"} 0',
        'tas_keeper_order_failures_total{chain_id="5",kind="limit",reason="expired",disposition="final"} 0',
        'tas_keeper_order_failures_total{chain_id="5",kind="limit",reason="RPC_ERROR",disposition="backoff"} 0',
        'tas_keeper_executions_total{chain_id="5",kind="dca",result="executed"} 0',
        'tas_keeper_receipts_total{chain_id="5",status="reverted"} 0',
        'tas_keeper_dca_iterations_total{chain_id="5",result="expired"} 0',
        'tas_keeper_tick_duration_seconds_count{chain_id="5",stage="settle"} 0',
        'tas_keeper_selection_duration_seconds_count{chain_id="5"} 1',
        'tas_keeper_feed_stalled{chain_id="5"} 0',
        'tas_keeper_open_dca_orders{chain_id="5",status="executing"} 0',
        'tas_keeper_unhandled_errors_total{stage="main"} 0',
        'tas_keeper_unhandled_errors_total{stage="track"} 0',
      ]),
    );
    expect(lines.some((line) => line.startsWith('tas_keeper_head_block{'))).toBe(false);
  });

  it("starts a wallet's nonce resyncs at 0 with its first balance read, and keeps its count on the next", async () => {
    const metrics = new KeeperMetrics();
    metrics.walletBalance(5, '0xAbC', 10n ** 18n, false);
    expect(await metrics.registry.metrics()).toContain(
      'tas_keeper_nonce_resyncs_total{chain_id="5",wallet="0xAbC"} 0',
    );
    metrics.nonceResync(5, '0xAbC');
    metrics.walletBalance(5, '0xAbC', 10n ** 18n, false);
    expect(await metrics.registry.metrics()).toContain(
      'tas_keeper_nonce_resyncs_total{chain_id="5",wallet="0xAbC"} 1',
    );
  });

  it('ApiMetrics starts the authentication failure reasons, the label-less counters and a served route at 0', async () => {
    const metrics = new ApiMetrics();
    metrics.initRoute('/api/v1/quotes', 'POST');
    const lines = (await metrics.registry.metrics()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'tas_api_auth_failures_total{reason="signature"} 0',
        'tas_api_auth_failures_total{reason="missing-header"} 0',
        'tas_api_rate_limited_total 0',
        'tas_api_unhandled_errors_total 0',
        'tas_api_http_requests_total{route="/api/v1/quotes",method="POST",status="200"} 0',
        'tas_api_http_requests_total{route="/api/v1/quotes",method="POST",status="500"} 0',
      ]),
    );
  });
});
