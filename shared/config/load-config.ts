import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../domain/protocol-fee';
import {
  DEFAULT_EXTERNAL_QUOTE_BUDGET_MS,
  EXTERNAL_AGGREGATOR_ENV_NAMES,
  ExternalAggregatorConfigError,
  parseExternalAggregatorsConfig,
  type ExternalAggregatorsConfig,
} from '../routing/aggregators/external-aggregator-config';
import { configSchema, type AppConfig, type ChainConfig } from './config-schema';
import { isHttpUrl, parsePrivateRpcUrls, PrivateRpcUrlsError, type PrivateRpcUrls } from './private-rpc-urls';

/** Every environment variable the service reads, with its default. The README's configuration table mirrors this. */
export const ENV_DEFAULTS = {
  HOST: '127.0.0.1',
  PORT: '8080',
  // Beside the keeper's 9465; clear of Prometheus (9090) and Grafana (3000) on an operator's machine.
  ADMIN_PORT: '9464',
  DATA_DIR: './data',
  DATABASE_URL: '',
  MASTER_KEY: '',
  MASTER_KEY_PREVIOUS: '',
  CHAINS_FILE: 'config/chains.json',
  RATE_LIMIT_PER_SECOND: '1000',
  RATE_LIMIT_BURST: '2000',
  AUTH_FAILURE_LIMIT_PER_SECOND: '10',
  AUTH_FAILURE_LIMIT_BURST: '50',
  BODY_LIMIT_BYTES: '1048576',
  GATEWAY_TIMEOUT_MS: '30000',
  ACCOUNT_CACHE_TTL_MS: '2000',
  PROTOCOL_FEE_PIPS: String(DEFAULT_PROTOCOL_FEE_PIPS),
  REDIS_URL: '',
  REDIS_KEY_PREFIX: 'tas:',
  WEBHOOK_PRIVATE_TARGETS: 'deny',
  STALE_AFTER_SECONDS: '30',
  STALE_AFTER_BLOCKS: '20',
  MAX_PRICE_IMPACT_BPS: '1500',
  LIST_CONCURRENCY_PER_KEY: '2',
  LOG_LEVEL: 'info',
  KEEPER_ADMIN_PORT: '9465',
  KEEPER_ID: '',
  EXECUTOR_PRIVATE_KEYS: '',
  EXECUTOR_KEYSTORE_FILES: '',
  EXECUTOR_KEYSTORE_PASSWORD: '',
  EXECUTOR_KEYSTORE_PASSWORD_FILE: '',
  KEEPER_LEASE_MS: '60000',
  KEEPER_MAX_FEE_GWEI: '1000',
  KEEPER_CONFIRMATIONS: '',
  KEEPER_REPLACE_AFTER_BLOCKS: '3',
  KEEPER_LOW_BALANCE_WEI: '100000000000000000',
  KEEPER_MAX_BATCH_ORDERS: '400',
  KEEPER_MAX_IN_FLIGHT: '8',
  KEEPER_BATCH_GAS_CAP: '12000000',
  KEEPER_POLL_MS: '250',
  KEEPER_BLOCK_STALL_MS: '30000',
  RELAYER_PRIVATE_KEY: '',
  BRIDGE_ADMIN_PRIVATE_KEY: '',
  KEEPER_PRIVATE_RPC_URLS: '',
  KEEPER_PRIVATE_FALLBACK_BLOCKS: '10',
  KEEPER_PRIVATE_FALLBACK_PUBLIC: 'false',
  RELAYER_ADDRESS: '',
  CROSS_CHAIN_FILL_DEADLINE_SECONDS: '600',
  CROSS_CHAIN_EXCLUSIVITY_SECONDS: '30',
  RELAYER_FEE_BPS: '5',
  RELAYER_MIN_PROFIT_BPS: '-50',
  RELAYER_MAX_PRICE_DEVIATION_BPS: '200',
  RELAYER_MAX_FILL_USD: '250000',
  RELAYER_MAX_HOURLY_USD: '1000000',
  RELAYER_INVENTORY_FLOOR_USD: '0',
  INTENT_CONFIRMATIONS: '1',
  LOCK_RELEASE_FEE_BPS: '2',
  LOCK_RELEASE_CONFIRMATIONS: '3',
  LIFI_API_URL: '',
  LIFI_API_KEY: '',
  LIFI_INTEGRATOR: 'tas',
  LIFI_TIMEOUT_MS: '2500',
  AGGREGATOR_ZEROX_URL: '',
  AGGREGATOR_ZEROX_API_KEY: '',
  AGGREGATOR_ZEROX_CHAINS: '',
  AGGREGATOR_ONEINCH_URL: '',
  AGGREGATOR_ONEINCH_API_KEY: '',
  AGGREGATOR_ONEINCH_CHAINS: '',
  AGGREGATOR_PARASWAP_URL: '',
  AGGREGATOR_PARASWAP_API_KEY: '',
  AGGREGATOR_PARASWAP_CHAINS: '',
  AGGREGATOR_ODOS_URL: '',
  AGGREGATOR_ODOS_API_KEY: '',
  AGGREGATOR_ODOS_CHAINS: '',
  AGGREGATOR_KYBERSWAP_URL: '',
  AGGREGATOR_KYBERSWAP_API_KEY: '',
  AGGREGATOR_KYBERSWAP_CHAINS: '',
  EXTERNAL_QUOTE_BUDGET_MS: String(DEFAULT_EXTERNAL_QUOTE_BUDGET_MS),
} as const;

export type EnvName = keyof typeof ENV_DEFAULTS;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

interface ChainsFile {
  chains: ChainConfig[];
}

function readChainsFile(file: string): ChainConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`CHAINS_FILE ${file} cannot be read: ${(err as Error).message}`);
  }
  const chains = (parsed as Partial<ChainsFile>).chains;
  if (!Array.isArray(chains)) throw new ConfigError(`CHAINS_FILE ${file} must hold {"chains": [...]}`);
  const dir = path.dirname(file);
  // Token list paths are relative to the chains file so the pair can be moved together.
  return chains.map((c: ChainConfig) =>
    c.tokenList ? { ...c, tokenList: path.resolve(dir, c.tokenList) } : c,
  );
}

/** A comma-separated list; blanks dropped. */
function list(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function toNumber(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value);
}

/**
 * true/false (or 1/0, yes/no, on/off). Anything else is passed on as the string it is, so that the schema names
 * the variable and its value (`…="maybe" must be boolean`) as it does for every other bad value.
 */
function toBoolean(value: string): boolean {
  if (/^(true|1|yes|on)$/i.test(value.trim())) return true;
  if (/^(false|0|no|off)$/i.test(value.trim())) return false;
  return value as unknown as boolean;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Which variable sets each field, by the field's JSON pointer in AppConfig. */
export const ENV_OF_FIELD: Readonly<Record<string, EnvName>> = {
  '/host': 'HOST',
  '/port': 'PORT',
  '/adminPort': 'ADMIN_PORT',
  '/dataDir': 'DATA_DIR',
  '/databaseUrl': 'DATABASE_URL',
  '/masterKey': 'MASTER_KEY',
  '/masterKeyPrevious': 'MASTER_KEY_PREVIOUS',
  '/webhookPrivateTargets': 'WEBHOOK_PRIVATE_TARGETS',
  '/chainsFile': 'CHAINS_FILE',
  '/rateLimit/perSecond': 'RATE_LIMIT_PER_SECOND',
  '/rateLimit/burst': 'RATE_LIMIT_BURST',
  '/authFailureLimit/perSecond': 'AUTH_FAILURE_LIMIT_PER_SECOND',
  '/authFailureLimit/burst': 'AUTH_FAILURE_LIMIT_BURST',
  '/bodyLimitBytes': 'BODY_LIMIT_BYTES',
  '/gatewayTimeoutMs': 'GATEWAY_TIMEOUT_MS',
  '/accountCacheTtlMs': 'ACCOUNT_CACHE_TTL_MS',
  '/protocolFeePips': 'PROTOCOL_FEE_PIPS',
  '/redisUrl': 'REDIS_URL',
  '/redisKeyPrefix': 'REDIS_KEY_PREFIX',
  '/staleness/afterSeconds': 'STALE_AFTER_SECONDS',
  '/staleness/afterBlocks': 'STALE_AFTER_BLOCKS',
  '/maxPriceImpactBps': 'MAX_PRICE_IMPACT_BPS',
  '/listConcurrencyPerKey': 'LIST_CONCURRENCY_PER_KEY',
  '/logLevel': 'LOG_LEVEL',
  '/keeper/adminPort': 'KEEPER_ADMIN_PORT',
  '/keeper/id': 'KEEPER_ID',
  '/keeper/executorPrivateKeys': 'EXECUTOR_PRIVATE_KEYS',
  '/keeper/executorKeystoreFiles': 'EXECUTOR_KEYSTORE_FILES',
  '/keeper/executorKeystorePassword': 'EXECUTOR_KEYSTORE_PASSWORD',
  '/keeper/executorKeystorePasswordFile': 'EXECUTOR_KEYSTORE_PASSWORD_FILE',
  '/keeper/leaseMs': 'KEEPER_LEASE_MS',
  '/keeper/maxFeePerGasGwei': 'KEEPER_MAX_FEE_GWEI',
  '/keeper/confirmations': 'KEEPER_CONFIRMATIONS',
  '/keeper/replaceAfterBlocks': 'KEEPER_REPLACE_AFTER_BLOCKS',
  '/keeper/lowBalanceWei': 'KEEPER_LOW_BALANCE_WEI',
  '/keeper/maxBatchOrders': 'KEEPER_MAX_BATCH_ORDERS',
  '/keeper/maxInFlightPerWallet': 'KEEPER_MAX_IN_FLIGHT',
  '/keeper/batchGasCap': 'KEEPER_BATCH_GAS_CAP',
  '/keeper/pollIntervalMs': 'KEEPER_POLL_MS',
  '/keeper/blockStallMs': 'KEEPER_BLOCK_STALL_MS',
  '/keeper/relayerPrivateKey': 'RELAYER_PRIVATE_KEY',
  '/keeper/bridgeAdminPrivateKey': 'BRIDGE_ADMIN_PRIVATE_KEY',
  '/keeper/privateRpcUrls': 'KEEPER_PRIVATE_RPC_URLS',
  '/keeper/privateFallbackBlocks': 'KEEPER_PRIVATE_FALLBACK_BLOCKS',
  '/keeper/privateFallbackPublic': 'KEEPER_PRIVATE_FALLBACK_PUBLIC',
  '/crossChain/relayerAddress': 'RELAYER_ADDRESS',
  '/crossChain/fillDeadlineSeconds': 'CROSS_CHAIN_FILL_DEADLINE_SECONDS',
  '/crossChain/exclusivitySeconds': 'CROSS_CHAIN_EXCLUSIVITY_SECONDS',
  '/crossChain/relayerFeeBps': 'RELAYER_FEE_BPS',
  '/crossChain/relayerMinProfitBps': 'RELAYER_MIN_PROFIT_BPS',
  '/crossChain/relayerMaxPriceDeviationBps': 'RELAYER_MAX_PRICE_DEVIATION_BPS',
  '/crossChain/relayerMaxFillUsd': 'RELAYER_MAX_FILL_USD',
  '/crossChain/relayerMaxHourlyUsd': 'RELAYER_MAX_HOURLY_USD',
  '/crossChain/relayerInventoryFloorUsd': 'RELAYER_INVENTORY_FLOOR_USD',
  '/crossChain/intentConfirmations': 'INTENT_CONFIRMATIONS',
  '/crossChain/lockReleaseFeeBps': 'LOCK_RELEASE_FEE_BPS',
  '/crossChain/lockReleaseConfirmations': 'LOCK_RELEASE_CONFIRMATIONS',
  '/crossChain/lifi/apiUrl': 'LIFI_API_URL',
  '/crossChain/lifi/apiKey': 'LIFI_API_KEY',
  '/crossChain/lifi/integrator': 'LIFI_INTEGRATOR',
  '/crossChain/lifi/timeoutMs': 'LIFI_TIMEOUT_MS',
  '/externalAggregators/quoteBudgetMs': 'EXTERNAL_QUOTE_BUDGET_MS',
};

/** Values never repeated in an error: keys, passwords, and URLs that may carry credentials. */
const SECRET_ENV: ReadonlySet<EnvName> = new Set([
  'MASTER_KEY',
  'MASTER_KEY_PREVIOUS',
  'EXECUTOR_PRIVATE_KEYS',
  'EXECUTOR_KEYSTORE_PASSWORD',
  'DATABASE_URL',
  'REDIS_URL',
  'RELAYER_PRIVATE_KEY',
  'BRIDGE_ADMIN_PRIVATE_KEY',
  // Private transaction endpoints take an API key in their URL (a path segment or a query parameter).
  'KEEPER_PRIVATE_RPC_URLS',
  'LIFI_API_KEY',
  'AGGREGATOR_ZEROX_API_KEY',
  'AGGREGATOR_ONEINCH_API_KEY',
  'AGGREGATOR_PARASWAP_API_KEY',
  'AGGREGATOR_ODOS_API_KEY',
  'AGGREGATOR_KYBERSWAP_API_KEY',
]);

/**
 * One problem in the operator's words: the variable and the value it was given (`PORT="abc" must be integer`),
 * or the chains file's entry for a field that comes from there. A secret's value is never repeated.
 */
function problemOf(
  pointer: string,
  message: string | undefined,
  env: Partial<Record<string, string | undefined>>,
) {
  const rule = message ?? 'is invalid';
  if (pointer.startsWith('/chains')) {
    const [, index, ...rest] = pointer.split('/').slice(1);
    return `CHAINS_FILE chains[${index ?? ''}]${rest.length ? `.${rest.join('.')}` : ''} ${rule}`;
  }
  // A list variable's item (/keeper/executorPrivateKeys/1) is reported as the variable.
  const field = Object.keys(ENV_OF_FIELD).find((f) => pointer === f || pointer.startsWith(`${f}/`));
  const name = field ? ENV_OF_FIELD[field] : undefined;
  if (!name) return `${pointer || '/'} ${rule}`;
  if (SECRET_ENV.has(name)) return `${name} (value not shown) ${rule}`;
  return `${name}=${JSON.stringify(env[name] ?? ENV_DEFAULTS[name])} ${rule}`;
}

/** The operator's external aggregators: each enabled by its URL, on the chains it lists. */
function externalAggregatorsOf(get: (name: EnvName) => string): ExternalAggregatorsConfig {
  try {
    return parseExternalAggregatorsConfig(
      Object.fromEntries(EXTERNAL_AGGREGATOR_ENV_NAMES.map((name) => [name, get(name as EnvName)])),
    );
  } catch (err) {
    if (err instanceof ExternalAggregatorConfigError)
      throw new ConfigError(`Invalid configuration: ${err.message}`);
    throw err;
  }
}

/** KEEPER_PRIVATE_RPC_URLS read per chain; its value is never repeated (its URLs may hold API keys). */
function privateRpcUrlsOf(value: string): PrivateRpcUrls[] {
  try {
    return parsePrivateRpcUrls(value);
  } catch (err) {
    if (err instanceof PrivateRpcUrlsError)
      throw new ConfigError(
        `Invalid configuration: KEEPER_PRIVATE_RPC_URLS (value not shown): ${err.message}`,
      );
    throw err;
  }
}

/**
 * The schema only sees that a chain entry's private URL starts with http(s)://; one that does not parse as a URL
 * would fail at the first send, so it stops the start instead. The URL itself is not shown (it may hold a key).
 */
function checkChainPrivateRpcUrls(chains: readonly ChainConfig[]): void {
  for (const [index, chain] of chains.entries()) {
    for (const [k, url] of (chain.privateRpcUrls ?? []).entries()) {
      if (!isHttpUrl(url))
        throw new ConfigError(
          `Invalid configuration: CHAINS_FILE chains[${index}].privateRpcUrls[${k}] must be an http(s) URL (value not shown)`,
        );
    }
  }
}

/**
 * Builds the one config object of a process from its environment, validates it once and freezes it.
 * `overrides` lets tests and tools change single fields without touching the environment.
 */
export function loadConfig(
  env: Partial<Record<string, string | undefined>> = process.env,
  overrides: Partial<AppConfig> = {},
): AppConfig {
  const get = (name: EnvName): string => env[name] ?? ENV_DEFAULTS[name];
  const chainsFile = path.resolve(get('CHAINS_FILE'));
  const raw: AppConfig = {
    host: get('HOST'),
    port: toNumber(get('PORT')),
    adminPort: toNumber(get('ADMIN_PORT')),
    dataDir: path.resolve(get('DATA_DIR')),
    databaseUrl: get('DATABASE_URL'),
    masterKey: get('MASTER_KEY'),
    masterKeyPrevious: get('MASTER_KEY_PREVIOUS'),
    webhookPrivateTargets: get('WEBHOOK_PRIVATE_TARGETS') as AppConfig['webhookPrivateTargets'],
    chainsFile,
    chains: overrides.chains ?? readChainsFile(chainsFile),
    rateLimit: {
      perSecond: toNumber(get('RATE_LIMIT_PER_SECOND')),
      burst: toNumber(get('RATE_LIMIT_BURST')),
    },
    authFailureLimit: {
      perSecond: toNumber(get('AUTH_FAILURE_LIMIT_PER_SECOND')),
      burst: toNumber(get('AUTH_FAILURE_LIMIT_BURST')),
    },
    bodyLimitBytes: toNumber(get('BODY_LIMIT_BYTES')),
    gatewayTimeoutMs: toNumber(get('GATEWAY_TIMEOUT_MS')),
    accountCacheTtlMs: toNumber(get('ACCOUNT_CACHE_TTL_MS')),
    protocolFeePips: toNumber(get('PROTOCOL_FEE_PIPS')),
    redisUrl: get('REDIS_URL'),
    redisKeyPrefix: get('REDIS_KEY_PREFIX'),
    staleness: {
      afterSeconds: toNumber(get('STALE_AFTER_SECONDS')),
      afterBlocks: toNumber(get('STALE_AFTER_BLOCKS')),
    },
    maxPriceImpactBps: toNumber(get('MAX_PRICE_IMPACT_BPS')),
    listConcurrencyPerKey: toNumber(get('LIST_CONCURRENCY_PER_KEY')),
    logLevel: get('LOG_LEVEL') as AppConfig['logLevel'],
    keeper: {
      adminPort: toNumber(get('KEEPER_ADMIN_PORT')),
      id: get('KEEPER_ID'),
      executorPrivateKeys: list(get('EXECUTOR_PRIVATE_KEYS')),
      executorKeystoreFiles: list(get('EXECUTOR_KEYSTORE_FILES')).map((f) => path.resolve(f)),
      executorKeystorePassword: get('EXECUTOR_KEYSTORE_PASSWORD'),
      executorKeystorePasswordFile:
        get('EXECUTOR_KEYSTORE_PASSWORD_FILE') && path.resolve(get('EXECUTOR_KEYSTORE_PASSWORD_FILE')),
      leaseMs: toNumber(get('KEEPER_LEASE_MS')),
      maxFeePerGasGwei: toNumber(get('KEEPER_MAX_FEE_GWEI')),
      ...(get('KEEPER_CONFIRMATIONS').trim() === ''
        ? {}
        : { confirmations: toNumber(get('KEEPER_CONFIRMATIONS')) }),
      replaceAfterBlocks: toNumber(get('KEEPER_REPLACE_AFTER_BLOCKS')),
      lowBalanceWei: get('KEEPER_LOW_BALANCE_WEI'),
      maxBatchOrders: toNumber(get('KEEPER_MAX_BATCH_ORDERS')),
      maxInFlightPerWallet: toNumber(get('KEEPER_MAX_IN_FLIGHT')),
      batchGasCap: toNumber(get('KEEPER_BATCH_GAS_CAP')),
      pollIntervalMs: toNumber(get('KEEPER_POLL_MS')),
      blockStallMs: toNumber(get('KEEPER_BLOCK_STALL_MS')),
      relayerPrivateKey: get('RELAYER_PRIVATE_KEY'),
      bridgeAdminPrivateKey: get('BRIDGE_ADMIN_PRIVATE_KEY'),
      privateRpcUrls: privateRpcUrlsOf(get('KEEPER_PRIVATE_RPC_URLS')),
      privateFallbackBlocks: toNumber(get('KEEPER_PRIVATE_FALLBACK_BLOCKS')),
      privateFallbackPublic: toBoolean(get('KEEPER_PRIVATE_FALLBACK_PUBLIC')),
    },
    crossChain: {
      relayerAddress: get('RELAYER_ADDRESS'),
      fillDeadlineSeconds: toNumber(get('CROSS_CHAIN_FILL_DEADLINE_SECONDS')),
      exclusivitySeconds: toNumber(get('CROSS_CHAIN_EXCLUSIVITY_SECONDS')),
      relayerFeeBps: toNumber(get('RELAYER_FEE_BPS')),
      relayerMinProfitBps: toNumber(get('RELAYER_MIN_PROFIT_BPS')),
      relayerMaxPriceDeviationBps: toNumber(get('RELAYER_MAX_PRICE_DEVIATION_BPS')),
      relayerMaxFillUsd: toNumber(get('RELAYER_MAX_FILL_USD')),
      relayerMaxHourlyUsd: toNumber(get('RELAYER_MAX_HOURLY_USD')),
      relayerInventoryFloorUsd: toNumber(get('RELAYER_INVENTORY_FLOOR_USD')),
      intentConfirmations: toNumber(get('INTENT_CONFIRMATIONS')),
      lockReleaseFeeBps: toNumber(get('LOCK_RELEASE_FEE_BPS')),
      lockReleaseConfirmations: toNumber(get('LOCK_RELEASE_CONFIRMATIONS')),
      lifi: {
        apiUrl: get('LIFI_API_URL'),
        apiKey: get('LIFI_API_KEY'),
        integrator: get('LIFI_INTEGRATOR'),
        timeoutMs: toNumber(get('LIFI_TIMEOUT_MS')),
      },
    },
    externalAggregators: externalAggregatorsOf(get),
    ...overrides,
  };
  const ajv = new Ajv({ allErrors: true });
  if (!ajv.validate(configSchema, raw)) {
    const problems = (ajv.errors ?? []).map((e) => problemOf(e.instancePath, e.message, env));
    throw new ConfigError(`Invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  checkChainPrivateRpcUrls(raw.chains);
  const ids = new Set<number>();
  for (const chain of raw.chains) {
    if (ids.has(chain.chainId))
      throw new ConfigError(`Invalid configuration: chain ${chain.chainId} listed twice`);
    ids.add(chain.chainId);
  }
  return deepFreeze(raw);
}

/** Stands in for the chains while the environment alone is checked; never used to serve anything. */
const CHECK_ONLY_CHAIN: ChainConfig = {
  chainId: 1,
  name: 'environment check',
  rpcUrls: [],
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  wrappedNative: `0x${'0'.repeat(40)}`,
  crossChainSource: false,
};

/**
 * Checks every variable before anything starts (`npm start` brings up the local chains first, and only they
 * provide the chains): a bad value stops the process at once, named, instead of after the chains are up.
 */
export function checkEnvironment(
  env: Partial<Record<string, string | undefined>> = process.env,
): Pick<AppConfig, 'dataDir' | 'host' | 'port' | 'adminPort' | 'keeper'> {
  const { dataDir, host, port, adminPort, keeper } = loadConfig(env, { chains: [CHECK_ONLY_CHAIN] });
  return { dataDir, host, port, adminPort, keeper };
}
