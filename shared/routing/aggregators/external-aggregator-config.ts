/**
 * The operator's settings for the external aggregators, read from environment-like strings:
 * AGGREGATOR_<ID>_URL, AGGREGATOR_<ID>_API_KEY, AGGREGATOR_<ID>_CHAINS (comma-separated chain ids) with ID one of
 * ZEROX, ONEINCH, PARASWAP, ODOS, KYBERSWAP, and EXTERNAL_QUOTE_BUDGET_MS. An aggregator is enabled when its URL
 * is set; it then quotes on exactly the chains listed.
 */
import type { ExternalAggregatorId } from './external-aggregator';

export interface ExternalAggregatorConfig {
  id: ExternalAggregatorId;
  /** e.g. https://api.0x.org; a path prefix (a proxy) is kept. */
  apiUrl: string;
  /** A secret (for KyberSwap: the x-client-id); empty when the API needs none. */
  apiKey: string;
  /** The chains the operator enables this aggregator on. */
  chainIds: number[];
}

export interface ExternalAggregatorsConfig {
  /** The enabled aggregators only, in the order of EXTERNAL_AGGREGATOR_ENV. */
  aggregators: ExternalAggregatorConfig[];
  /** How long a quote waits for the aggregators; the slower ones are left out of that quote. */
  quoteBudgetMs: number;
}

export const DEFAULT_EXTERNAL_QUOTE_BUDGET_MS = 400;

/** Bounds of EXTERNAL_QUOTE_BUDGET_MS: below 50 ms no aggregator can answer; above 10 s a quote is useless. */
export const MIN_EXTERNAL_QUOTE_BUDGET_MS = 50;
export const MAX_EXTERNAL_QUOTE_BUDGET_MS = 10_000;

/** The <ID> of each aggregator in its variable names, and whether its API refuses requests without a key. */
export const EXTERNAL_AGGREGATOR_ENV: readonly {
  id: ExternalAggregatorId;
  env: string;
  keyRequired: boolean;
}[] = [
  { id: '0x', env: 'ZEROX', keyRequired: true },
  { id: '1inch', env: 'ONEINCH', keyRequired: true },
  { id: 'paraswap', env: 'PARASWAP', keyRequired: false },
  { id: 'odos', env: 'ODOS', keyRequired: false },
  { id: 'kyberswap', env: 'KYBERSWAP', keyRequired: false },
];

/** Every variable the parser reads, for the lead's ENV_DEFAULTS and the README's table. */
export const EXTERNAL_AGGREGATOR_ENV_NAMES: readonly string[] = [
  ...EXTERNAL_AGGREGATOR_ENV.flatMap(({ env }) => [
    `AGGREGATOR_${env}_URL`,
    `AGGREGATOR_${env}_API_KEY`,
    `AGGREGATOR_${env}_CHAINS`,
  ]),
  'EXTERNAL_QUOTE_BUDGET_MS',
];

export class ExternalAggregatorConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalAggregatorConfigError';
  }
}

/**
 * Reads the settings from `env` (process.env or any map of the same names). Every message names the variable
 * at fault and never repeats an API key.
 */
export function parseExternalAggregatorsConfig(
  env: Readonly<Record<string, string | undefined>>,
): ExternalAggregatorsConfig {
  const aggregators: ExternalAggregatorConfig[] = [];
  for (const { id, env: name, keyRequired } of EXTERNAL_AGGREGATOR_ENV) {
    const apiUrl = (env[`AGGREGATOR_${name}_URL`] ?? '').trim();
    if (apiUrl === '') continue;
    if (!/^https?:\/\/[^\s/]+/.test(apiUrl)) {
      throw new ExternalAggregatorConfigError(
        `AGGREGATOR_${name}_URL must be an http(s) URL, got "${apiUrl}"`,
      );
    }
    const apiKey = (env[`AGGREGATOR_${name}_API_KEY`] ?? '').trim();
    if (keyRequired && apiKey === '') {
      throw new ExternalAggregatorConfigError(
        `AGGREGATOR_${name}_API_KEY must be set when AGGREGATOR_${name}_URL is: the ${id} API refuses requests without a key`,
      );
    }
    const chainIds = parseChainIds(`AGGREGATOR_${name}_CHAINS`, env[`AGGREGATOR_${name}_CHAINS`] ?? '');
    if (chainIds.length === 0) {
      throw new ExternalAggregatorConfigError(
        `AGGREGATOR_${name}_CHAINS must list the chain ids ${id} quotes on (e.g. "1,10,8453") when AGGREGATOR_${name}_URL is set`,
      );
    }
    aggregators.push({ id, apiUrl, apiKey, chainIds });
  }
  return { aggregators, quoteBudgetMs: parseBudget(env.EXTERNAL_QUOTE_BUDGET_MS) };
}

function parseChainIds(variable: string, value: string): number[] {
  const chainIds: number[] = [];
  for (const part of value.split(',').map((item) => item.trim())) {
    if (part === '') continue;
    const chainId = Number(part);
    if (!/^\d+$/.test(part) || !Number.isSafeInteger(chainId) || chainId <= 0) {
      throw new ExternalAggregatorConfigError(
        `${variable} must be a comma-separated list of chain ids, got "${part}"`,
      );
    }
    if (!chainIds.includes(chainId)) chainIds.push(chainId);
  }
  return chainIds;
}

function parseBudget(value: string | undefined): number {
  const text = (value ?? '').trim();
  if (text === '') return DEFAULT_EXTERNAL_QUOTE_BUDGET_MS;
  const budget = Number(text);
  if (
    !/^\d+$/.test(text) ||
    !Number.isSafeInteger(budget) ||
    budget < MIN_EXTERNAL_QUOTE_BUDGET_MS ||
    budget > MAX_EXTERNAL_QUOTE_BUDGET_MS
  ) {
    throw new ExternalAggregatorConfigError(
      `EXTERNAL_QUOTE_BUDGET_MS must be an integer from ${MIN_EXTERNAL_QUOTE_BUDGET_MS} to ${MAX_EXTERNAL_QUOTE_BUDGET_MS}, got "${text}"`,
    );
  }
  return budget;
}
