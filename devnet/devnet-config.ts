import path from 'node:path';
import Ajv, { type SchemaObject } from 'ajv';
import { ConfigError } from '../shared/config/load-config';

/** The local chains `npm start` runs in embedded mode. */
export interface DevnetConfig {
  /** Off: no local chains; the api serves the chains of CHAINS_FILE. */
  enabled: boolean;
  chainIds: number[];
  /** One RPC port per chain id, same order. */
  ports: number[];
  /** Seconds between blocks; 0 mines each transaction at once. */
  blockTime: number;
  executorCount: number;
  dataDir: string;
  /** Forked mode: fork this RPC URL (one chain) and deploy only the service's contracts there. */
  forkUrl: string;
  forkBlockNumber: number | null;
}

export const DEVNET_ENV_DEFAULTS = {
  DEVNET: 'on',
  DEVNET_CHAINS: '1,137',
  DEVNET_PORTS: '8545,8546',
  DEVNET_BLOCK_TIME: '0',
  DEVNET_EXECUTORS: '2',
  DEVNET_FORK_URL: '',
  DEVNET_FORK_BLOCK: '',
} as const;

const schema: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: [
    'enabled',
    'chainIds',
    'ports',
    'blockTime',
    'executorCount',
    'dataDir',
    'forkUrl',
    'forkBlockNumber',
  ],
  properties: {
    enabled: { type: 'boolean' },
    chainIds: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1 } },
    ports: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0, maximum: 65535 } },
    blockTime: { type: 'number', minimum: 0 },
    executorCount: { type: 'integer', minimum: 1, maximum: 32 },
    dataDir: { type: 'string', minLength: 1 },
    forkUrl: { type: 'string', pattern: '^$|^(https?|wss?)://' },
    forkBlockNumber: { type: 'integer', minimum: 0, nullable: true },
  },
};

const list = (value: string): number[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map(Number);

/** Devnet settings from the environment, validated once (the api's own settings come from loadConfig). */
export function loadDevnetConfig(
  env: Partial<Record<string, string | undefined>> = process.env,
): DevnetConfig {
  const get = (name: keyof typeof DEVNET_ENV_DEFAULTS): string => env[name] ?? DEVNET_ENV_DEFAULTS[name];
  const raw: DevnetConfig = {
    enabled: !/^(off|false|0|no)$/i.test(get('DEVNET')),
    chainIds: list(get('DEVNET_CHAINS')),
    ports: list(get('DEVNET_PORTS')),
    blockTime: Number(get('DEVNET_BLOCK_TIME')),
    executorCount: Number(get('DEVNET_EXECUTORS')),
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    forkUrl: get('DEVNET_FORK_URL'),
    forkBlockNumber: get('DEVNET_FORK_BLOCK') === '' ? null : Number(get('DEVNET_FORK_BLOCK')),
  };
  const ajv = new Ajv({ allErrors: true });
  if (!ajv.validate(schema, raw)) {
    const problems = (ajv.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new ConfigError(`Invalid devnet configuration: ${problems.join('; ')}`);
  }
  if (raw.ports.length !== raw.chainIds.length) {
    throw new ConfigError(
      'Invalid devnet configuration: DEVNET_PORTS needs one port per DEVNET_CHAINS entry',
    );
  }
  if (raw.forkUrl && raw.chainIds.length !== 1) {
    throw new ConfigError('Invalid devnet configuration: forked mode runs exactly one chain (DEVNET_CHAINS)');
  }
  return Object.freeze(raw);
}
