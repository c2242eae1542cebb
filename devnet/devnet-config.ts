import path from 'node:path';
import Ajv, { type SchemaObject } from 'ajv';
import { ConfigError } from '../shared/config/load-config';
import { DEVNET_ENGINES, type DevnetEngineName } from './engine/devnet-chain';

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
  /** The local EVM: anvil (a child process per chain) or ganache (in this process). */
  engine: DevnetEngineName;
}

/** The devnet's variables with their defaults ('' = unset); the README's devnet table lists them. */
export const DEVNET_ENV_DEFAULTS = {
  DEVNET: 'on',
  DEVNET_CHAINS: '1,137',
  /** Unset: consecutive ports from FIRST_DEVNET_PORT, one per chain. */
  DEVNET_PORTS: '',
  DEVNET_BLOCK_TIME: '0',
  DEVNET_EXECUTORS: '2',
  DEVNET_FORK_URL: '',
  DEVNET_FORK_BLOCK: '',
  DEVNET_ENGINE: 'anvil',
} as const;

type DevnetEnvName = keyof typeof DEVNET_ENV_DEFAULTS | 'DATA_DIR';

/** The RPC port of the first chain when DEVNET_PORTS is not set; the next chains take the ports after it. */
export const FIRST_DEVNET_PORT = 8545;

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
    'engine',
  ],
  properties: {
    enabled: { type: 'boolean' },
    chainIds: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
    ports: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0, maximum: 65535 } },
    blockTime: { type: 'number', minimum: 0 },
    executorCount: { type: 'integer', minimum: 1, maximum: 32 },
    dataDir: { type: 'string', minLength: 1 },
    forkUrl: { type: 'string', pattern: '^$|^(https?|wss?)://' },
    forkBlockNumber: { type: 'integer', minimum: 0, nullable: true },
    engine: { type: 'string', enum: [...DEVNET_ENGINES] },
  },
};

/** Which variable sets each field, by the field's JSON pointer in DevnetConfig. */
const ENV_OF_FIELD: Readonly<Record<string, DevnetEnvName>> = {
  '/enabled': 'DEVNET',
  '/chainIds': 'DEVNET_CHAINS',
  '/ports': 'DEVNET_PORTS',
  '/blockTime': 'DEVNET_BLOCK_TIME',
  '/executorCount': 'DEVNET_EXECUTORS',
  '/dataDir': 'DATA_DIR',
  '/forkUrl': 'DEVNET_FORK_URL',
  '/forkBlockNumber': 'DEVNET_FORK_BLOCK',
  '/engine': 'DEVNET_ENGINE',
};

/** A fork URL usually carries the RPC provider's API key: its value is never repeated in an error. */
const SECRET_ENV: ReadonlySet<DevnetEnvName> = new Set(['DEVNET_FORK_URL']);

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
  /** The variable and the value it was given, as an error names them (a secret's value is never shown). */
  const shown = (name: DevnetEnvName): string => {
    if (SECRET_ENV.has(name)) return `${name} (value not shown)`;
    const value = name === 'DATA_DIR' ? (env.DATA_DIR ?? './data') : get(name);
    return `${name}=${JSON.stringify(value)}`;
  };
  const fail = (problems: string): never => {
    throw new ConfigError(`Invalid devnet configuration: ${problems}`);
  };
  const chainIds = list(get('DEVNET_CHAINS'));
  const portsSet = get('DEVNET_PORTS').trim() !== '';
  const raw: DevnetConfig = {
    enabled: !/^(off|false|0|no)$/i.test(get('DEVNET')),
    chainIds,
    ports: portsSet ? list(get('DEVNET_PORTS')) : chainIds.map((_, i) => FIRST_DEVNET_PORT + i),
    blockTime: Number(get('DEVNET_BLOCK_TIME')),
    executorCount: Number(get('DEVNET_EXECUTORS')),
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    forkUrl: get('DEVNET_FORK_URL'),
    forkBlockNumber: get('DEVNET_FORK_BLOCK') === '' ? null : Number(get('DEVNET_FORK_BLOCK')),
    engine: (get('DEVNET_ENGINE').trim() || 'anvil') as DevnetEngineName,
  };
  const ajv = new Ajv({ allErrors: true });
  if (!ajv.validate(schema, raw)) {
    // Ports derived from the chains are only wrong when the chains are (and that is reported once, as those).
    const errors = (ajv.errors ?? []).filter((e) => portsSet || !e.instancePath.startsWith('/ports'));
    const problems = errors.map((e) => {
      // A list's item (/chainIds/1) is reported as the variable.
      const field = Object.keys(ENV_OF_FIELD).find(
        (f) => e.instancePath === f || e.instancePath.startsWith(`${f}/`),
      );
      const rule = e.message ?? 'is invalid';
      return field ? `${shown(ENV_OF_FIELD[field]!)} ${rule}` : `${e.instancePath || '/'} ${rule}`;
    });
    fail([...new Set(problems)].join('; '));
  }
  if (raw.ports.length !== raw.chainIds.length) {
    fail(`${shown('DEVNET_PORTS')} needs one port per chain of ${shown('DEVNET_CHAINS')}`);
  }
  const taken = raw.ports.find((port, i) => port !== 0 && raw.ports.indexOf(port) !== i);
  if (taken !== undefined) fail(`${shown('DEVNET_PORTS')} lists port ${taken} twice`);
  if (raw.forkUrl && raw.chainIds.length !== 1) {
    fail(`${shown('DEVNET_CHAINS')} must name exactly one chain in forked mode (DEVNET_FORK_URL is set)`);
  }
  return Object.freeze(raw);
}
