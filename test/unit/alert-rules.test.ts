import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Registry } from 'prom-client';
import { ApiMetrics } from '../../api/metrics';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { RpcMetrics } from '../../shared/chain/rpc-metrics';
import { registerChainFreshnessGauges, type MarketFeed } from '../../shared/metrics/chain-readiness';
import { GRAFANA_DIR, exposedSeries, parsePromQl } from '../helpers/grafana-queries';
import { describeWithTool } from '../helpers/prometheus-tools';

const RULES = path.join(GRAFANA_DIR, 'alerts/tas-alerts.yml');
const RULE_TESTS = path.join(GRAFANA_DIR, 'alerts/tas-alerts.test.yml');
const run = promisify(execFile);

/** The alerts the issue asks for, by the name operators will see. */
const REQUIRED_ALERTS = [
  'TasApiDown',
  'TasKeeperDown',
  'TasKeeperFeedStalled',
  'TasExecutorBalanceLow',
  'TasOrdersFailedFinal',
  'TasRpcErrorRatioHigh',
  'TasApiErrorRatioHigh',
  'TasApiUnhandledErrors',
  'TasKeeperUnhandledErrors',
  'TasOrdersPastTrigger',
  'TasTransactionsStuck',
];

interface AlertRule {
  alert: string;
  expr: string;
}

/**
 * The alerting rules of a rules file: `- alert: Name` and its `expr`, inline or a block scalar (`>-`, `|`) whose
 * lines are indented under it. A reader for this file's plain layout, not a YAML parser: promtool reads it as YAML
 * (and fails the tests below on anything this reader would misread).
 */
function alertRules(text: string): AlertRule[] {
  const lines = text.split('\n');
  const rules: AlertRule[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const alert = /^\s*- alert:\s*(\S+)\s*$/.exec(lines[i]!)?.[1];
    if (alert === undefined) continue;
    let expr = '';
    for (let j = i + 1; j < lines.length && !/^\s*- (?:alert|record|name):/.test(lines[j]!); j += 1) {
      const match = /^(\s*)expr:\s*(.*)$/.exec(lines[j]!);
      if (!match) continue;
      const [, indent, value] = match;
      if (!/^[>|][-+]?$/.test(value!)) {
        expr = value!;
        break;
      }
      const body: string[] = [];
      for (let k = j + 1; k < lines.length; k += 1) {
        const line = lines[k]!;
        if (line.trim() !== '' && line.search(/\S/) <= indent!.length) break;
        body.push(line.trim());
      }
      expr = body.join(' ').trim();
      break;
    }
    rules.push({ alert, expr });
  }
  return rules;
}

/** Per alert, the test cases of a promtool test file: how many expect it firing and how many expect silence. */
function alertCases(text: string): Map<string, { firing: number; quiet: number }> {
  const cases = new Map<string, { firing: number; quiet: number }>();
  for (const match of text.matchAll(/^\s*alertname:\s*(\S+)\s*\n\s*exp_alerts:[ \t]*(\[\])?/gm)) {
    const counts = cases.get(match[1]!) ?? { firing: 0, quiet: 0 };
    if (match[2] === '[]') counts.quiet += 1;
    else counts.firing += 1;
    cases.set(match[1]!, counts);
  }
  return cases;
}

/** Every series the processes expose, the chain-state gauges both register beside their metrics included. */
function processRegistries(): Registry[] {
  const market: MarketFeed = {
    isQuotable: () => true,
    blockNumber: () => 1,
    freshness: () => ({ stale: false, ageMs: 0, blocksBehind: 0 }),
  };
  const keeper = new KeeperMetrics();
  new RpcMetrics(keeper.registry, 'tas_keeper_');
  registerChainFreshnessGauges(keeper.registry, 'tas_keeper_', market, [1]);
  const api = new ApiMetrics();
  new RpcMetrics(api.registry, 'tas_api_');
  registerChainFreshnessGauges(api.registry, 'tas_api_', market, [1]);
  return [keeper.registry, api.registry];
}

describe('alert rules (grafana/alerts)', () => {
  const rules = alertRules(readFileSync(RULES, 'utf8'));
  const cases = alertCases(readFileSync(RULE_TESTS, 'utf8'));

  it('reads the alerts and their expressions', () => {
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.filter((rule) => rule.expr === '').map((rule) => rule.alert)).toEqual([]);
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });

  it('has every alert the operators need', () => {
    expect(rules.map((rule) => rule.alert)).toEqual(expect.arrayContaining(REQUIRED_ALERTS));
  });

  it('tests every alert firing and quiet, and only alerts that exist', () => {
    const names = new Set(rules.map((rule) => rule.alert));
    const untested = rules
      .filter((rule) => !(cases.get(rule.alert)?.firing && cases.get(rule.alert)?.quiet))
      .map((rule) => `${rule.alert}: ${JSON.stringify(cases.get(rule.alert) ?? { firing: 0, quiet: 0 })}`);
    expect(untested).toEqual([]);
    expect([...cases.keys()].filter((name) => !names.has(name))).toEqual([]);
  });

  it('queries only metrics the processes export, with the labels they carry', async () => {
    const series = await exposedSeries(processRegistries());
    const problems: string[] = [];
    for (const rule of rules) {
      const parsed = parsePromQl(rule.expr);
      if (parsed.selectors.length === 0) problems.push(`${rule.alert}: no metric in ${rule.expr}`);
      const labelsOfRule = new Set<string>();
      for (const selector of parsed.selectors) {
        const labels = series.get(selector.metric);
        if (!labels) {
          problems.push(`${rule.alert}: metric ${selector.metric} does not exist in the code`);
          continue;
        }
        labels.forEach((label) => labelsOfRule.add(label));
        for (const label of selector.labels)
          if (!labels.has(label)) problems.push(`${rule.alert}: ${selector.metric} has no label ${label}`);
      }
      for (const label of parsed.groupingLabels)
        if (!labelsOfRule.has(label)) problems.push(`${rule.alert}: no metric of it has the label ${label}`);
    }
    expect(problems).toEqual([]);
  });
});

describeWithTool('promtool', 'alert rules under promtool', (promtool) => {
  it('pass `promtool check rules`', async () => {
    const { stdout } = await run(promtool, ['check', 'rules', RULES]);
    expect(stdout).toContain(`SUCCESS: ${alertRules(readFileSync(RULES, 'utf8')).length} rules found`);
  });

  it('pass `promtool test rules`: every case of the test file', async () => {
    const { stdout } = await run(promtool, ['test', 'rules', RULE_TESTS]);
    expect(stdout).toMatch(/^\s+SUCCESS$/m);
    expect(stdout).not.toContain('FAILED');
  });

  it('load from the example Prometheus configuration (`promtool check config`)', async () => {
    const { stdout } = await run(promtool, ['check', 'config', path.join(GRAFANA_DIR, 'prometheus.yml')]);
    expect(stdout).toContain('SUCCESS: 1 rule files found');
    expect(stdout).toContain(`SUCCESS: ${alertRules(readFileSync(RULES, 'utf8')).length} rules found`);
  });
});
