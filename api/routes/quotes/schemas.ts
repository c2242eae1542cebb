import type { SchemaObject } from 'ajv';

/*
 * Request and response schemas of POST /quotes. The route validates with these very objects and /openapi.json
 * shows them, so they stay OpenAPI-3.0-compatible: no `const`, no `if`, nullable via `nullable: true`.
 * `mode` is told apart by a one-value `enum` in each `oneOf` branch, which ajv and OpenAPI 3.0 both read.
 */

export const QUOTE_MODES = ['single-chain', 'cross-chain'] as const;
export type QuoteMode = (typeof QUOTE_MODES)[number];

export const GAS_MULTIPLIERS = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
export const ORDER_BY_VALUES = ['MAX_OUT_AMOUNT'] as const;

export const chainIdSchema: SchemaObject = {
  type: 'integer',
  minimum: 1,
  maximum: 9007199254740991,
  description: 'Chain ID as a JSON integer (a string such as "137" is rejected)',
};

export const tokenAddressSchema: SchemaObject = {
  type: 'string',
  format: 'evm-address',
  description: '0x plus 40 hex digits, lowercase or EIP-55; the native token is 0xeeee…eeee (40 e)',
};

export const walletAddressSchema: SchemaObject = {
  type: 'string',
  format: 'evm-address',
  description: 'The wallet that will send the transaction; the calldata is bound to it',
};

/** As for limit orders: an amount or slippage string longer than this is never meaningful. */
const DECIMAL_MAX_LENGTH = 100;

export const amountSchema: SchemaObject = {
  type: 'string',
  format: 'positive-decimal',
  maxLength: DECIMAL_MAX_LENGTH,
  description:
    'Decimal string in human-readable units of the input token (`10` = 10 tokens), never base units; greater ' +
    'than 0, at most as many fractional digits as the token has decimals, and at most 2^256 − 1 in base units ' +
    '(amount × 10^decimals)',
  example: '10',
};

export const slippageSchema: SchemaObject = {
  type: 'string',
  format: 'percent',
  maxLength: DECIMAL_MAX_LENGTH,
  description: 'Decimal string, percent (`0.5` = 0.5%), at least 0 and below 100',
  example: '0.5',
};

export const gasPriceSchema: SchemaObject = {
  type: 'string',
  format: 'whole-number',
  description:
    'Whole gwei as a string, rounded up (below 1 gwei send `1`); a hint only, not the paid gas price',
  example: '30',
};

export const modeSchema = (mode: QuoteMode): SchemaObject => ({
  type: 'string',
  enum: [mode],
  description: 'Case-sensitive discriminator',
});

export const feesSchema: SchemaObject = {
  type: 'object',
  required: ['feeBps', 'feeRecipient'],
  additionalProperties: false,
  description: 'Integrator fee; applies only to signed requests from API accounts',
  properties: {
    feeBps: { type: 'integer', minimum: 0, maximum: 100, description: 'Basis points (25 = 0.25%)' },
    feeRecipient: {
      type: 'string',
      format: 'fee-recipient',
      description:
        'Receives the fee; a wrong EIP-55 checksum is `Must be a valid EVM address`, the zero address ' +
        '`Must not be the zero address`',
    },
  },
};

/** The single-chain pair and amount that a quote and its swap share (POST /swap adds the wallet and source). */
export const singleChainPairRequired = [
  'chainId',
  'inTokenAddress',
  'outTokenAddress',
  'amount',
  'gasPrice',
  'slippage',
];
export const singleChainPairProperties: Record<string, SchemaObject> = {
  chainId: chainIdSchema,
  inTokenAddress: tokenAddressSchema,
  outTokenAddress: tokenAddressSchema,
  amount: amountSchema,
  gasPrice: gasPriceSchema,
  slippage: slippageSchema,
};

export const singleChainQuoteParams: SchemaObject = {
  type: 'object',
  required: singleChainPairRequired,
  properties: {
    ...singleChainPairProperties,
    includeGasInfo: { type: 'boolean', description: 'Adds `dataFeeTransaction` to the quote' },
    orderBy: { type: 'string', enum: [...ORDER_BY_VALUES], description: 'Default `MAX_OUT_AMOUNT`' },
    gasMultiplier: {
      type: 'string',
      enum: [...GAS_MULTIPLIERS],
      description:
        'Scales `estimatedGas` when `includeGasInfo` is true: NONE 1x (default), LOW 1.55x, MEDIUM 2x, HIGH 4x',
    },
    excludeMetaAggregatorId: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        "Liquidity source IDs (as returned in `aggregatorId`) to leave unasked: any of the chain's on-chain sources, `tas-smart` (which still combines every venue when asked) or an external aggregator; unknown IDs are ignored. Excluding every ID but one gets that one's quote alone.",
    },
  },
};

export const crossChainQuoteParams: SchemaObject = {
  type: 'object',
  required: ['fromChainId', 'toChainId', 'inTokenAddress', 'outTokenAddress', 'amount', 'slippage'],
  additionalProperties: false,
  properties: {
    fromChainId: chainIdSchema,
    toChainId: chainIdSchema,
    inTokenAddress: tokenAddressSchema,
    outTokenAddress: tokenAddressSchema,
    amount: amountSchema,
    slippage: slippageSchema,
  },
};

export const singleChainQuoteBody: SchemaObject = {
  type: 'object',
  title: 'Single-chain quote request',
  required: ['mode', 'params'],
  properties: { mode: modeSchema('single-chain'), params: singleChainQuoteParams, fees: feesSchema },
};

/** Cross-chain bodies reject top-level keys other than mode, params and fees. */
export const crossChainQuoteBody: SchemaObject = {
  type: 'object',
  title: 'Cross-chain quote request',
  required: ['mode', 'params'],
  additionalProperties: false,
  properties: { mode: modeSchema('cross-chain'), params: crossChainQuoteParams, fees: feesSchema },
};

/**
 * `mode` picks the branch (OpenAPI's and ajv's `discriminator`): a body is checked against the branch it names
 * only, so its errors never mention the other mode's fields.
 */
export const quoteBody: SchemaObject = {
  type: 'object',
  discriminator: { propertyName: 'mode' },
  oneOf: [singleChainQuoteBody, crossChainQuoteBody],
};

export interface SingleChainQuoteParams {
  chainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  amount: string;
  gasPrice: string;
  slippage: string;
  includeGasInfo?: boolean;
  orderBy?: (typeof ORDER_BY_VALUES)[number];
  gasMultiplier?: (typeof GAS_MULTIPLIERS)[number];
  excludeMetaAggregatorId?: string[];
}

export interface CrossChainQuoteParams {
  fromChainId: number;
  toChainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  amount: string;
  slippage: string;
}

export interface Fees {
  feeBps: number;
  feeRecipient: string;
}

export type QuoteRequest =
  | { mode: 'single-chain'; params: SingleChainQuoteParams; fees?: Fees }
  | { mode: 'cross-chain'; params: CrossChainQuoteParams; fees?: Fees };

// ---- response `data` ----

const baseUnits = (what: string): SchemaObject => ({
  type: 'string',
  description: `Integer string in base units of the ${what} (human amount times 10^decimals)`,
});

export const integratorFeeBreakdownSchema: SchemaObject = {
  type: 'object',
  required: ['protocolFeeBps', 'integratorMarginBps', 'protocolFeeAmount', 'integratorMarginAmount'],
  properties: {
    protocolFeeBps: {
      type: 'number',
      description: "The service's protocol fee in basis points; may be fractional",
    },
    integratorMarginBps: { type: 'number', description: 'Equals `fees.feeBps`; 0 without `fees`' },
    protocolFeeAmount: {
      type: 'string',
      description: 'Base units of the output token (single-chain) or of the source token (cross-chain)',
    },
    integratorMarginAmount: { type: 'string', description: 'Same unit as `protocolFeeAmount`' },
  },
};

export const dataFeeTransactionSchema: SchemaObject = {
  type: 'object',
  description:
    "Only when the request set `includeGasInfo: true`; based on `estimatedGas` (scaled by `gasMultiplier`), so a lower bound. Prices are routed quotes against the chain's USD stables at the latest block; a field that cannot be priced (no route to a stable) is null.",
  required: [
    'effectiveGasPrice',
    'transactionFee',
    'transactionFeeInUSD',
    'nativePrice',
    'tokenPrice',
    'transactionFeeInToken',
    'valueToApprove',
  ],
  properties: {
    effectiveGasPrice: {
      type: 'string',
      description: "Wei: the chain's gas price now (base fee plus priority fee), used by the estimate",
    },
    transactionFee: { type: 'string', description: 'Wei: `estimatedGas` times `effectiveGasPrice`' },
    transactionFeeInUSD: { type: 'string', nullable: true, description: 'USD, decimal string' },
    nativePrice: { type: 'string', nullable: true, description: 'USD per native token, decimal string' },
    tokenPrice: { type: 'string', nullable: true, description: 'USD per input token, decimal string' },
    transactionFeeInToken: {
      type: 'string',
      nullable: true,
      description:
        'Execution gas cost in human-readable units of the input token, rounded up to its base unit (for limit orders the allowance must cover it on top of `amount`)',
    },
    valueToApprove: {
      type: 'string',
      nullable: true,
      description: 'Human-readable input-token units: `amount` plus fee; add a buffer before approving',
    },
  },
};

export const singleChainQuoteSchema: SchemaObject = {
  type: 'object',
  required: [
    'outAmount',
    'estimatedGas',
    'aggregatorId',
    'aggregatorOrder',
    'market',
    'routes',
    'gasMultiplier',
    'integratorFeeBreakdown',
  ],
  properties: {
    outAmount: baseUnits('output token'),
    estimatedGas: {
      type: 'string',
      description:
        "Gas units for the source's own part of the route (excludes the service's contracts); `0` = no estimate",
    },
    aggregatorId: {
      type: 'string',
      description: 'Opaque ID of the winning liquidity source; pass it unchanged to POST /swap',
    },
    aggregatorOrder: {
      type: 'array',
      items: { type: 'string' },
      description: 'Sources that returned a quote, best first; the first entry equals `aggregatorId`',
    },
    market: { type: 'array', items: {}, description: 'Empty array in observed responses' },
    routes: {
      type: 'array',
      description: 'Display-only path',
      items: {
        type: 'object',
        properties: {
          percentage: { type: 'number', description: 'As the source reports; may not sum to 100' },
          subRoutes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                from: { type: 'string', description: 'Token address as reported' },
                to: { type: 'string', description: 'Token address as reported' },
                dexes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { name: { type: 'string' }, percentage: { type: 'number' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    gasMultiplier: { type: 'string', enum: [...GAS_MULTIPLIERS] },
    integratorFeeBreakdown: integratorFeeBreakdownSchema,
    dataFeeTransaction: dataFeeTransactionSchema,
  },
};

const routeAssetSchema: SchemaObject = {
  type: 'object',
  required: ['chainId', 'address', 'symbol', 'decimals'],
  properties: {
    chainId: { type: 'integer' },
    address: {
      type: 'string',
      description:
        'Token address; the native token as the pseudo-address (or the zero address, as a provider reports)',
    },
    symbol: { type: 'string' },
    decimals: { type: 'integer' },
  },
};

export const crossChainQuoteSchema: SchemaObject = {
  type: 'object',
  description: 'Fields beyond those listed are provider-dependent and may change',
  required: [
    'aggregatorId',
    'aggregatorOrder',
    'fromChainId',
    'toChainId',
    'toTokenAmount',
    'minimumReceived',
    'fromTokenAmount',
    'estimateCostInUSD',
    'estimatedGas',
    'estimatedSeconds',
    'bridgeInfo',
    'middlewareRoute',
    'integratorFeeBreakdown',
    'alternatives',
  ],
  properties: {
    aggregatorId: {
      type: 'string',
      description: 'Opaque ID of the provider with the most output; pass it unchanged to POST /swap',
    },
    aggregatorOrder: {
      type: 'array',
      items: { type: 'string' },
      description: 'Providers that quoted, best (most output) first; the first entry equals `aggregatorId`',
    },
    fromChainId: { type: 'integer' },
    toChainId: { type: 'integer' },
    toTokenAmount: {
      type: 'string',
      description:
        'Integer string in base units of the output token: what the account receives on the destination, every fee deducted',
    },
    minimumReceived: {
      type: 'string',
      description: 'Base units of the output token: `toTokenAmount` less `slippage`',
    },
    fromTokenAmount: {
      type: 'string',
      description: 'The input amount echoed in human-readable units, as sent (fees included)',
    },
    estimateCostInUSD: {
      type: 'string',
      nullable: true,
      description:
        "USD, the provider's estimate of its own cost (relayer fee and destination gas, or the bridge fee); null when it cannot be priced",
    },
    estimatedGas: {
      type: 'string',
      description: 'Gas of the source transaction as the provider estimates it; display only',
    },
    estimatedSeconds: {
      type: 'number',
      description: 'Expected seconds from the source receipt to the output on the destination',
    },
    bridgeInfo: {
      type: 'object',
      required: ['displayName'],
      properties: { displayName: { type: 'string', description: 'The bridge chosen' } },
    },
    middlewareRoute: {
      type: 'array',
      items: routeAssetSchema,
      description:
        'Assets of the route with their decimals, from what the account sends to what arrives (a native coin is bridged as its wrapped token)',
    },
    integratorFeeBreakdown: integratorFeeBreakdownSchema,
    alternatives: {
      type: 'array',
      description: 'Every provider that quoted, in `aggregatorOrder`: compare output and time',
      items: {
        type: 'object',
        required: [
          'aggregatorId',
          'displayName',
          'toTokenAmount',
          'minimumReceived',
          'estimatedSeconds',
          'estimateCostInUSD',
        ],
        properties: {
          aggregatorId: { type: 'string' },
          displayName: { type: 'string' },
          toTokenAmount: baseUnits('output token'),
          minimumReceived: baseUnits('output token'),
          estimatedSeconds: { type: 'number' },
          estimateCostInUSD: { type: 'string', nullable: true },
        },
      },
    },
  },
};

export const quoteResponse: SchemaObject = {
  type: 'object',
  oneOf: [
    {
      type: 'object',
      title: 'Single-chain quote',
      required: ['mode', 'quote'],
      properties: { mode: modeSchema('single-chain'), quote: singleChainQuoteSchema },
    },
    {
      type: 'object',
      title: 'Cross-chain quote',
      required: ['mode', 'quote'],
      properties: { mode: modeSchema('cross-chain'), quote: crossChainQuoteSchema },
    },
  ],
};
