import type { JSONSchemaType } from 'ajv';
import { EXTERNAL_AGGREGATOR_IDS } from '../routing/aggregators/external-aggregator';
import {
  MAX_EXTERNAL_QUOTE_BUDGET_MS,
  MIN_EXTERNAL_QUOTE_BUDGET_MS,
  type ExternalAggregatorsConfig,
} from '../routing/aggregators/external-aggregator-config';
import type { PrivateRpcUrls } from './private-rpc-urls';

/** Addresses of the contracts the service uses on a chain (the devnet manifest's `contracts`). */
export interface ChainContracts {
  multicall: string;
  uniswapV2Factory: string;
  uniswapV3Factory: string;
  /** The other on-chain liquidity sources (venues); each absent one is simply not quoted on the chain. */
  sushiswapV2Factory?: string;
  /** Uniswap V4's PoolManager singleton (hooks-free pools only). */
  uniswapV4PoolManager?: string;
  balancerVault?: string;
  /** Balancer V2 weighted pool factory: only its pools are quoted (and executed by our contracts). */
  balancerWeightedPoolFactory?: string;
  /** Block the weighted pool factory was deployed at: where its PoolCreated logs are read from (default 0). */
  balancerFromBlock?: number;
  /** Our StableSwapFactory (contracts-abi/src/StableSwapFactory.sol). */
  stableSwapFactory?: string;
  swapRouter: string;
  spender: string;
  orderExecutor: string;
  /** Across V3 SpokePool (proxy) of the intent bridge; absent: the chain takes no intent transfers. */
  spokePool?: string;
  /** Our CrossChainEntry: takes the fees in the source token and deposits into a bridge for the account. */
  crossChainEntry?: string;
  /** Our LockReleaseBridge (the slower, cheaper bridge); absent: the chain takes no lock-and-release transfers. */
  lockReleaseBridge?: string;
  /**
   * Our RootBundleAdmin, the SpokePool's owner: the keeper proposes root bundles there, relayed after its challenge
   * period. Absent: root bundles are relayed to the SpokePool straight (its owner is then the bridge admin key).
   */
  rootBundleAdmin?: string;
}

/** One enabled chain. Everything the api needs to describe and reach it. */
export interface ChainConfig {
  chainId: number;
  name: string;
  rpcUrls: string[];
  nativeSymbol: string;
  nativeDecimals: number;
  /** Address of the wrapped native token (WETH, WMATIC…): limit orders and DCA sell it instead of the native coin. */
  wrappedNative: string;
  /** Whether cross-chain transfers may start on this chain. */
  crossChainSource: boolean;
  /** Path of a token list (Uniswap Token Lists format) for this chain, relative to the chains file. */
  tokenList?: string;
  /** Without them the chain is listed and its transactions readable, but it cannot be quoted or traded. */
  contracts?: ChainContracts;
  /** The keeper's cap on maxFeePerGas on this chain, in gwei (default KEEPER_MAX_FEE_GWEI). */
  maxFeePerGasGwei?: number;
  /** Blocks before the keeper settles a batch on this chain (default KEEPER_CONFIRMATIONS). */
  confirmations?: number;
  /** Pool state not confirmed at the chain's head for this long is stale on this chain (default STALE_AFTER_SECONDS). */
  staleAfterSeconds?: number;
  /** Pool state this many blocks behind the chain's head is stale on this chain (default STALE_AFTER_BLOCKS). */
  staleAfterBlocks?: number;
  /**
   * Seconds between the chain's blocks, when it makes them on a clock (every public chain): the keeper then expects
   * blocks and reports its feed stalled when they stop. Absent: blocks come with transactions (instant mining).
   */
  blockTimeSeconds?: number;
  /**
   * The least USD value of each token the relayer keeps on this chain: a fill that would leave less waits
   * (default RELAYER_INVENTORY_FLOOR_USD).
   */
  relayerInventoryFloorUsd?: number;
  /**
   * Private endpoints (Flashbots Protect, MEV Blocker…) that receive the keeper's signed transactions on this chain
   * instead of `rpcUrls`; receipts and every read stay on `rpcUrls`. Wins over KEEPER_PRIVATE_RPC_URLS (`[]`: public
   * only). May carry API keys: logged by host only.
   */
  privateRpcUrls?: string[];
}

/** When a chain's pool state (and what is derived from it: quotes, swaps, reference prices) is too old to serve. */
export interface StalenessConfig {
  /** Seconds since the state was last confirmed at the chain's head. */
  afterSeconds: number;
  /** Blocks between the state's block and the newest head the service has seen. */
  afterBlocks: number;
}

export interface RateLimitConfig {
  /** Sustained requests per second allowed per API key (signed routes) or per IP (public routes). */
  perSecond: number;
  /** Bucket size: how many requests may arrive at once before the sustained rate applies. */
  burst: number;
}

/** The keeper process: executor wallets, leases, fees and batching. Keys are secrets: never logged. */
export interface KeeperConfig {
  /** Operator port of the keeper: GET /metrics and /healthz. */
  adminPort: number;
  /** Lease owner name; unique per keeper process sharing a store. Empty: host name and process id. */
  id: string;
  /** Executor private keys (0x + 64 hex), in addition to the keystore files. */
  executorPrivateKeys: string[];
  /** Encrypted JSON keystore files of executor wallets. */
  executorKeystoreFiles: string[];
  executorKeystorePassword: string;
  /** A file holding that password (one line), used when EXECUTOR_KEYSTORE_PASSWORD is empty. */
  executorKeystorePasswordFile: string;
  /** How long a claimed order stays reserved for one keeper without progress. */
  leaseMs: number;
  /** Cap on maxFeePerGas, in gwei, on every chain: dearer blocks wait. */
  maxFeePerGasGwei: number;
  /**
   * Blocks a batch's block must have (itself included) before its orders are final, on every chain without its own
   * `confirmations`. Absent: each chain's default (keeper/settle/confirmation-depths.ts; 1 for others).
   */
  confirmations?: number;
  /** Blocks a transaction may stay unmined before it is replaced with higher fees. */
  replaceAfterBlocks: number;
  /** Executor native balance below which the low-balance alert metric is set (wei). */
  lowBalanceWei: string;
  /** Orders per OrderExecutor transaction at most (within it, batches are sized to the chain's block gas limit). */
  maxBatchOrders: number;
  /** Transactions each executor wallet may have in flight at once, on consecutive nonces. */
  maxInFlightPerWallet: number;
  /** Gas per OrderExecutor transaction at most. */
  batchGasCap: number;
  /** How often the order index reads the store's changes (ms). */
  pollIntervalMs: number;
  /** A chain whose block feed is silent this long is reported stalled: a metric and a warning (ms). */
  blockStallMs: number;
  /** The relayer of the intent bridge: fills from its own inventory, is repaid on the origin. Empty: no relaying. */
  relayerPrivateKey: string;
  /**
   * The bridges' operator: owner of the devnet SpokePools (proposes and executes root bundles for repayments and
   * refunds, as the HubPool's dataworker would) and the LockReleaseBridge's releaser. Empty: no settling.
   */
  bridgeAdminPrivateKey: string;
  /** Private send endpoints per chain (a chain entry's `privateRpcUrls` wins); empty: every chain sends publicly. */
  privateRpcUrls: PrivateRpcUrls[];
  /** Blocks a privately sent transaction may wait unmined before it may also be sent publicly. */
  privateFallbackBlocks: number;
  /** Whether such a transaction is then also sent through the public RPCs (it gives up the privacy). */
  privateFallbackPublic: boolean;
}

/** LI.FI (https://docs.li.fi): a cross-chain provider for real networks, enabled when `apiUrl` is set. */
export interface LifiConfig {
  /** e.g. https://li.quest; empty: LI.FI is not asked. */
  apiUrl: string;
  /** Sent as `x-lifi-api-key`; a secret. */
  apiKey: string;
  /** The `integrator` string LI.FI's fees are credited to. */
  integrator: string;
  /** Per request; a slower answer is no quote from LI.FI. */
  timeoutMs: number;
}

/** Cross-chain transfers: the devnet's two providers (intent bridge, lock-and-release) and LI.FI. */
export interface CrossChainConfig {
  /** Address of the intent bridge's relayer (the keeper's RELAYER_PRIVATE_KEY); empty: the intent bridge does not quote. */
  relayerAddress: string;
  /** Seconds after the deposit until the destination fill deadline; unfilled then, the deposit is refunded. */
  fillDeadlineSeconds: number;
  /** Seconds in which only our relayer may fill (Across exclusivity). */
  exclusivitySeconds: number;
  /** The relayer's fee on the transfer's value, in basis points, on top of destination gas. */
  relayerFeeBps: number;
  /** The least profit, in basis points of the value, at which the relayer still fills (negative: a loss it accepts). */
  relayerMinProfitBps: number;
  /**
   * The widest a fill's input, valued at the pools' latest state, may stray from its value at the reference prices
   * (the chains' PriceOracles), in basis points of the latter; further, the fill waits (a pumped pool).
   */
  relayerMaxPriceDeviationBps: number;
  /** The most USD one fill pays out. */
  relayerMaxFillUsd: number;
  /** The most USD the fills pay out of one token on one destination chain in an hour. */
  relayerMaxHourlyUsd: number;
  /** The least USD value of each token the relayer keeps on a chain (a chain entry may set its own). */
  relayerInventoryFloorUsd: number;
  /** Origin blocks, the deposit's own counted, before the relayer fills it. */
  intentConfirmations: number;
  /** The lock-and-release bridge's fee, in basis points. */
  lockReleaseFeeBps: number;
  /** Origin blocks, the lock's own counted, before its message is relayed. */
  lockReleaseConfirmations: number;
  lifi: LifiConfig;
}

export interface AppConfig {
  host: string;
  port: number;
  adminPort: number;
  dataDir: string;
  /** mysql://user:pass@host:port/db, or empty for the embedded SQLite store in dataDir. */
  databaseUrl: string;
  /** 64 hex characters (AES-256 key) encrypting stored secret keys; empty: generated key file in dataDir. */
  masterKey: string;
  /**
   * The master key being rotated out (64 hex characters), or empty: secrets sealed under it are still opened, and
   * `npm run accounts -- reseal` seals them under masterKey.
   */
  masterKeyPrevious: string;
  chainsFile: string;
  chains: ChainConfig[];
  rateLimit: RateLimitConfig;
  /** Refused authentication attempts allowed per IP before the gateway answers 429 (each may cost a scrypt hash). */
  authFailureLimit: RateLimitConfig;
  bodyLimitBytes: number;
  gatewayTimeoutMs: number;
  /** How long an api process may trust a cached account row; a deactivated key stops working after this. */
  accountCacheTtlMs: number;
  /** The service's protocol fee on single-chain quotes and swaps, in pips (1500 = 0.15%); the SwapRouter's unit. */
  protocolFeePips: number;
  /**
   * `deny`: webhooks are never delivered to loopback, private, link-local or otherwise internal addresses (checked
   * on the address each delivery connects to); `allow`: they may be (local development, a receiver on the LAN).
   */
  webhookPrivateTargets: 'allow' | 'deny';
  /** redis://… shared by every api process for rate-limit counters and nonce replay records; empty: per process. */
  redisUrl: string;
  /** Prefix of every Redis key of this deployment, so deployments (and test runs) sharing a Redis never meet. */
  redisKeyPrefix: string;
  /** Default staleness bounds of every chain (a chain entry may set its own). */
  staleness: StalenessConfig;
  /**
   * Routes losing more than this to price impact (output against the pools' marginal prices, net of fees), in basis
   * points, are not offered; the keeper does not execute through them either.
   */
  maxPriceImpactBps: number;
  /** List calls (unpaginated) one API key may have running at once in an api process; more wait their turn. */
  listConcurrencyPerKey: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  keeper: KeeperConfig;
  crossChain: CrossChainConfig;
  /** Outside swap aggregators (0x, 1inch, ParaSwap, Odos, KyberSwap) asked beside our own sources on real networks. */
  externalAggregators: ExternalAggregatorsConfig;
}

const ADDRESS = '^0x[0-9a-fA-F]{40}$';
const HTTP_URL = '^https?://';

const chainSchema: JSONSchemaType<ChainConfig> = {
  type: 'object',
  additionalProperties: false,
  required: [
    'chainId',
    'name',
    'rpcUrls',
    'nativeSymbol',
    'nativeDecimals',
    'wrappedNative',
    'crossChainSource',
  ],
  properties: {
    chainId: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
    name: { type: 'string', minLength: 1 },
    rpcUrls: { type: 'array', items: { type: 'string', minLength: 1 } },
    nativeSymbol: { type: 'string', minLength: 1 },
    nativeDecimals: { type: 'integer', minimum: 0, maximum: 36 },
    wrappedNative: { type: 'string', pattern: ADDRESS },
    crossChainSource: { type: 'boolean' },
    tokenList: { type: 'string', nullable: true },
    maxFeePerGasGwei: { type: 'number', exclusiveMinimum: 0, nullable: true },
    confirmations: { type: 'integer', minimum: 0, maximum: 100, nullable: true },
    staleAfterSeconds: { type: 'integer', minimum: 1, maximum: 86400, nullable: true },
    staleAfterBlocks: { type: 'integer', minimum: 1, maximum: 100000, nullable: true },
    blockTimeSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, nullable: true },
    relayerInventoryFloorUsd: { type: 'number', minimum: 0, nullable: true },
    privateRpcUrls: { type: 'array', items: { type: 'string', pattern: HTTP_URL }, nullable: true },
    contracts: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [
        'multicall',
        'uniswapV2Factory',
        'uniswapV3Factory',
        'swapRouter',
        'spender',
        'orderExecutor',
      ],
      properties: {
        multicall: { type: 'string', pattern: ADDRESS },
        uniswapV2Factory: { type: 'string', pattern: ADDRESS },
        uniswapV3Factory: { type: 'string', pattern: ADDRESS },
        sushiswapV2Factory: { type: 'string', pattern: ADDRESS, nullable: true },
        uniswapV4PoolManager: { type: 'string', pattern: ADDRESS, nullable: true },
        balancerVault: { type: 'string', pattern: ADDRESS, nullable: true },
        balancerWeightedPoolFactory: { type: 'string', pattern: ADDRESS, nullable: true },
        balancerFromBlock: { type: 'integer', minimum: 0, nullable: true },
        stableSwapFactory: { type: 'string', pattern: ADDRESS, nullable: true },
        swapRouter: { type: 'string', pattern: ADDRESS },
        spender: { type: 'string', pattern: ADDRESS },
        orderExecutor: { type: 'string', pattern: ADDRESS },
        spokePool: { type: 'string', pattern: ADDRESS, nullable: true },
        crossChainEntry: { type: 'string', pattern: ADDRESS, nullable: true },
        lockReleaseBridge: { type: 'string', pattern: ADDRESS, nullable: true },
        rootBundleAdmin: { type: 'string', pattern: ADDRESS, nullable: true },
      },
    },
  },
};

const rateLimitSchema: JSONSchemaType<RateLimitConfig> = {
  type: 'object',
  additionalProperties: false,
  required: ['perSecond', 'burst'],
  properties: {
    perSecond: { type: 'number', exclusiveMinimum: 0 },
    burst: { type: 'integer', minimum: 1 },
  },
};

const keeperSchema: JSONSchemaType<KeeperConfig> = {
  type: 'object',
  additionalProperties: false,
  required: [
    'adminPort',
    'id',
    'executorPrivateKeys',
    'executorKeystoreFiles',
    'executorKeystorePassword',
    'executorKeystorePasswordFile',
    'leaseMs',
    'maxFeePerGasGwei',
    'replaceAfterBlocks',
    'lowBalanceWei',
    'maxBatchOrders',
    'maxInFlightPerWallet',
    'batchGasCap',
    'pollIntervalMs',
    'blockStallMs',
    'relayerPrivateKey',
    'bridgeAdminPrivateKey',
    'privateRpcUrls',
    'privateFallbackBlocks',
    'privateFallbackPublic',
  ],
  properties: {
    adminPort: { type: 'integer', minimum: 0, maximum: 65535 },
    id: { type: 'string', maxLength: 100 },
    // The pattern keeps a malformed key out; the error names the field, never the value.
    executorPrivateKeys: { type: 'array', items: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } },
    executorKeystoreFiles: { type: 'array', items: { type: 'string', minLength: 1 } },
    executorKeystorePassword: { type: 'string' },
    executorKeystorePasswordFile: { type: 'string' },
    leaseMs: { type: 'integer', minimum: 1000 },
    maxFeePerGasGwei: { type: 'number', exclusiveMinimum: 0 },
    confirmations: { type: 'integer', minimum: 0, maximum: 100, nullable: true },
    replaceAfterBlocks: { type: 'integer', minimum: 1 },
    lowBalanceWei: { type: 'string', pattern: '^[0-9]+$' },
    maxBatchOrders: { type: 'integer', minimum: 1, maximum: 1000 },
    maxInFlightPerWallet: { type: 'integer', minimum: 1, maximum: 64 },
    batchGasCap: { type: 'integer', minimum: 100000 },
    pollIntervalMs: { type: 'integer', minimum: 10, maximum: 1000 },
    blockStallMs: { type: 'integer', minimum: 1000 },
    relayerPrivateKey: { type: 'string', pattern: '^$|^0x[0-9a-fA-F]{64}$' },
    bridgeAdminPrivateKey: { type: 'string', pattern: '^$|^0x[0-9a-fA-F]{64}$' },
    privateRpcUrls: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['chainId', 'urls'],
        properties: {
          chainId: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
          urls: { type: 'array', minItems: 1, items: { type: 'string', pattern: HTTP_URL } },
        },
      },
    },
    privateFallbackBlocks: { type: 'integer', minimum: 1, maximum: 100000 },
    privateFallbackPublic: { type: 'boolean' },
  },
};

const crossChainSchema: JSONSchemaType<CrossChainConfig> = {
  type: 'object',
  additionalProperties: false,
  required: [
    'relayerAddress',
    'fillDeadlineSeconds',
    'exclusivitySeconds',
    'relayerFeeBps',
    'relayerMinProfitBps',
    'relayerMaxPriceDeviationBps',
    'relayerMaxFillUsd',
    'relayerMaxHourlyUsd',
    'relayerInventoryFloorUsd',
    'intentConfirmations',
    'lockReleaseFeeBps',
    'lockReleaseConfirmations',
    'lifi',
  ],
  properties: {
    relayerAddress: { type: 'string', pattern: `^$|${ADDRESS}` },
    fillDeadlineSeconds: { type: 'integer', minimum: 60, maximum: 86400 },
    exclusivitySeconds: { type: 'integer', minimum: 0, maximum: 3600 },
    relayerFeeBps: { type: 'integer', minimum: 0, maximum: 1000 },
    relayerMinProfitBps: { type: 'integer', minimum: -1000, maximum: 1000 },
    relayerMaxPriceDeviationBps: { type: 'integer', minimum: 1, maximum: 5000 },
    relayerMaxFillUsd: { type: 'number', exclusiveMinimum: 0 },
    relayerMaxHourlyUsd: { type: 'number', exclusiveMinimum: 0 },
    relayerInventoryFloorUsd: { type: 'number', minimum: 0 },
    intentConfirmations: { type: 'integer', minimum: 0, maximum: 100 },
    lockReleaseFeeBps: { type: 'integer', minimum: 0, maximum: 1000 },
    lockReleaseConfirmations: { type: 'integer', minimum: 0, maximum: 100 },
    lifi: {
      type: 'object',
      additionalProperties: false,
      required: ['apiUrl', 'apiKey', 'integrator', 'timeoutMs'],
      properties: {
        apiUrl: { type: 'string', pattern: '^$|^https?://' },
        apiKey: { type: 'string' },
        integrator: { type: 'string', maxLength: 23 },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 60000 },
      },
    },
  },
};

export const configSchema: JSONSchemaType<AppConfig> = {
  type: 'object',
  additionalProperties: false,
  required: [
    'host',
    'port',
    'adminPort',
    'dataDir',
    'databaseUrl',
    'masterKey',
    'masterKeyPrevious',
    'chainsFile',
    'chains',
    'rateLimit',
    'authFailureLimit',
    'bodyLimitBytes',
    'gatewayTimeoutMs',
    'accountCacheTtlMs',
    'protocolFeePips',
    'redisUrl',
    'redisKeyPrefix',
    'webhookPrivateTargets',
    'staleness',
    'maxPriceImpactBps',
    'listConcurrencyPerKey',
    'logLevel',
    'keeper',
    'crossChain',
    'externalAggregators',
  ],
  properties: {
    host: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    adminPort: { type: 'integer', minimum: 0, maximum: 65535 },
    dataDir: { type: 'string', minLength: 1 },
    databaseUrl: { type: 'string', pattern: '^$|^mysql2?://' },
    masterKey: { type: 'string', pattern: '^$|^[0-9a-fA-F]{64}$' },
    masterKeyPrevious: { type: 'string', pattern: '^$|^[0-9a-fA-F]{64}$' },
    chainsFile: { type: 'string', minLength: 1 },
    chains: { type: 'array', minItems: 1, items: chainSchema },
    rateLimit: rateLimitSchema,
    authFailureLimit: rateLimitSchema,
    bodyLimitBytes: { type: 'integer', minimum: 1 },
    webhookPrivateTargets: { type: 'string', enum: ['allow', 'deny'] },
    gatewayTimeoutMs: { type: 'integer', minimum: 1 },
    accountCacheTtlMs: { type: 'integer', minimum: 0, maximum: 60000 },
    protocolFeePips: { type: 'integer', minimum: 0, maximum: 10000 },
    redisUrl: { type: 'string', pattern: '^$|^rediss?://' },
    redisKeyPrefix: { type: 'string', pattern: '^[!-~]{0,100}$' },
    staleness: {
      type: 'object',
      additionalProperties: false,
      required: ['afterSeconds', 'afterBlocks'],
      properties: {
        afterSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
        afterBlocks: { type: 'integer', minimum: 1, maximum: 100000 },
      },
    },
    maxPriceImpactBps: { type: 'integer', minimum: 1, maximum: 10000 },
    listConcurrencyPerKey: { type: 'integer', minimum: 1, maximum: 100 },
    logLevel: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    keeper: keeperSchema,
    crossChain: crossChainSchema,
    externalAggregators: {
      type: 'object',
      additionalProperties: false,
      required: ['aggregators', 'quoteBudgetMs'],
      properties: {
        aggregators: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'apiUrl', 'apiKey', 'chainIds'],
            properties: {
              id: { type: 'string', enum: [...EXTERNAL_AGGREGATOR_IDS] },
              apiUrl: { type: 'string', pattern: '^https?://' },
              apiKey: { type: 'string' },
              chainIds: {
                type: 'array',
                minItems: 1,
                items: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
              },
            },
          },
        },
        quoteBudgetMs: {
          type: 'integer',
          minimum: MIN_EXTERNAL_QUOTE_BUDGET_MS,
          maximum: MAX_EXTERNAL_QUOTE_BUDGET_MS,
        },
      },
    },
  },
};
