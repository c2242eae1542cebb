import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Registry } from 'prom-client';

/**
 * The dashboards' queries and the series the processes expose, for the tests that check one against the other: the
 * dashboards and alert rules unit tests (metric and label names) and the real-Prometheus dashboard test.
 */

export const GRAFANA_DIR = path.join(__dirname, '../../grafana');
export const DASHBOARDS_DIR = path.join(GRAFANA_DIR, 'dashboards');
/** Series Prometheus itself writes for every scrape target. */
const SCRAPE_SERIES = ['up'];
/** Labels Prometheus puts on every scraped series. */
const TARGET_LABELS = ['job', 'instance'];
const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

export type Json = Record<string, unknown>;

export interface Selector {
  metric: string;
  /** Label names of the selector's matchers. */
  labels: string[];
}

export interface ParsedQuery {
  selectors: Selector[];
  /** Labels of `by`, `without`, `on`, `ignoring` and `group_*` clauses. */
  groupingLabels: string[];
}

export interface Query {
  panel: string;
  expr: string;
  /** Labels the query needs on its metrics besides those it names (a templating variable's label). */
  requiredLabels: string[];
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * The metric names and label names a PromQL expression uses. Not a full parser: enough for the dashboards' queries
 * (selectors, functions, aggregations with grouping, binary operators, numbers and Grafana variables).
 */
export function parsePromQl(expr: string): ParsedQuery {
  const selectors: Selector[] = [];
  const groupingLabels: string[] = [];
  let rest = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{?\w+\}?/g, '')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:offset\s+-?|@\s*)[\w.]+/g, ' ');
  rest = rest.replace(
    /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
    (_match, labels) => {
      groupingLabels.push(
        ...String(labels)
          .split(',')
          .map((label) => label.trim())
          .filter(Boolean),
      );
      return ' ';
    },
  );
  rest = rest.replace(
    /([a-zA-Z_:][\w:]*)?\s*\{([^}]*)\}/g,
    (_match, metric: string | undefined, body: string) => {
      const labels = [...body.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!);
      // A selector by __name__ alone has no name left once its string is stripped: reported as such.
      selectors.push({ metric: metric ?? '<selector without a metric name>', labels });
      return ' ';
    },
  );
  rest = rest.replace(/\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g, ' ');
  for (const match of rest.matchAll(/([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const name = match[1]!;
    if (match[2] !== undefined || PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    selectors.push({ metric: name, labels: [] });
  }
  return { selectors, groupingLabels };
}

export function labelNamesOf(registry: Registry, name: string): string[] {
  const metric: unknown = registry.getSingleMetric(name);
  if (isObject(metric) && Array.isArray(metric.labelNames)) return metric.labelNames.map(String);
  return [];
}

/**
 * Every series name the registries expose, with its label names: a histogram `h` is `h_bucket` (with `le`), `h_sum`
 * and `h_count` (never `h` itself), a summary is `s` (with `quantile`), `s_sum` and `s_count`.
 */
export async function exposedSeries(registries: Registry[]): Promise<Map<string, Set<string>>> {
  const series = new Map<string, Set<string>>();
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      const labels = labelNamesOf(registry, metric.name);
      const add = (name: string, extra: string[] = []): void => {
        series.set(name, new Set([...labels, ...extra, ...TARGET_LABELS]));
      };
      if (String(metric.type) === 'histogram') {
        add(`${metric.name}_bucket`, ['le']);
        add(`${metric.name}_sum`);
        add(`${metric.name}_count`);
      } else if (String(metric.type) === 'summary') {
        add(metric.name, ['quantile']);
        add(`${metric.name}_sum`);
        add(`${metric.name}_count`);
      } else {
        add(metric.name);
      }
    }
  }
  for (const name of SCRAPE_SERIES) series.set(name, new Set(TARGET_LABELS));
  return series;
}

export function dashboardFiles(): string[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort();
}

export function loadDashboard(file: string): Json {
  const parsed: unknown = JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, file), 'utf8'));
  if (!isObject(parsed)) throw new Error(`${file} is not a JSON object`);
  return parsed;
}

/** Panels at the top level and inside collapsed rows. */
export function panelsOf(dashboard: Json): Json[] {
  return objects(dashboard.panels).flatMap((panel) => [panel, ...objects(panel.panels)]);
}

export function variablesOf(dashboard: Json): Json[] {
  return isObject(dashboard.templating) ? objects(dashboard.templating.list) : [];
}

/** The `label_values(selector, label)` query of a templating variable (string or Grafana 10's object form). */
export function variableQuery(variable: Json): string {
  const query = variable.query;
  if (typeof query === 'string') return query;
  if (isObject(query) && typeof query.query === 'string') return query.query;
  return '';
}

export function queriesOf(dashboard: Json): Query[] {
  const queries: Query[] = [];
  for (const panel of panelsOf(dashboard)) {
    for (const target of objects(panel.targets)) {
      if (typeof target.expr === 'string') {
        queries.push({ panel: `panel "${String(panel.title)}"`, expr: target.expr, requiredLabels: [] });
      }
    }
  }
  for (const variable of variablesOf(dashboard)) {
    const match = /^label_values\((.+),\s*(\w+)\s*\)$/.exec(variableQuery(variable).trim());
    if (match) {
      queries.push({
        panel: `variable ${String(variable.name)}`,
        expr: match[1]!,
        requiredLabels: [match[2]!],
      });
    }
  }
  return queries;
}
