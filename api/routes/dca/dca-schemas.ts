import { MAX_PRICE, MAX_PRICE_TEXT } from '../../../shared/domain/amount-bounds';
import type { DcaStrategy } from '../../../shared/domain/dca';
import type { SchemaObject } from 'ajv';
import type { ParameterDoc } from '../../http/route-definition';
import { signedMaxFeeBps } from '../order-authorization/schemas';
import { diagnosisSchema } from '../limit-orders/schemas';

/**
 * Bounds JSON schema can say in the same words for ajv and OpenAPI 3.0 are here (and so in /openapi.json); strict
 * bounds (they disagree on `exclusiveMinimum`), those that need the token list and those that compare fields
 * live in strategy-rules.
 */
export const MAX_ITERATIONS = 10_000;
/** One year: a longer interval is more likely a unit mistake (milliseconds) than a plan. */
export const MAX_FREQUENCY_SECONDS = 31_536_000;
export const MAX_SYMBOL_LENGTH = 64;
const MAX_SAFE_INTEGER = 9007199254740991;

const chainId: SchemaObject = { type: 'integer', minimum: 1, maximum: MAX_SAFE_INTEGER, example: 137 };
/** As for limit-order prices: no real pair comes near it, and JSON numbers stay far from overflow. */
export const MAX_DCA_PRICE = Number(MAX_PRICE);

const bound = (side: string): SchemaObject => ({
  type: 'number',
  nullable: true,
  maximum: MAX_DCA_PRICE,
  description: `Optional ${side} price bound in units of tokenAddressTo per 1 tokenAddressFrom, greater than 0 and at most ${MAX_PRICE_TEXT}`,
});
const symbol: SchemaObject = { type: 'string', minLength: 1, maxLength: MAX_SYMBOL_LENGTH };

/** The create body: the strategy's own fields as sent, with the optional ones optional. */
export type CreateStrategyBody = Pick<
  DcaStrategy,
  | 'accountTo'
  | 'chainIdFrom'
  | 'chainIdTo'
  | 'tokenAddressFrom'
  | 'tokenAddressTo'
  | 'tokenSymbolFrom'
  | 'tokenSymbolTo'
  | 'pair'
  | 'totalAmount'
  | 'iterations'
  | 'frequency'
  | 'signature'
> &
  Partial<Pick<DcaStrategy, 'slippage' | 'minPrice' | 'maxPrice'>> & {
    status?: 'active' | 'cancelled';
    maxFeeBps?: number;
  };

/** Unknown fields are ignored, as the spec allows. */
export const createStrategyBody: SchemaObject = {
  type: 'object',
  required: [
    'accountTo',
    'chainIdFrom',
    'chainIdTo',
    'tokenAddressFrom',
    'tokenAddressTo',
    'tokenSymbolFrom',
    'tokenSymbolTo',
    'pair',
    'totalAmount',
    'iterations',
    'frequency',
    'signature',
  ],
  properties: {
    accountTo: {
      type: 'string',
      format: 'maker-address',
      description:
        'Maker wallet, EIP-55 form; stored exactly as sent. Not the zero address or the native pseudo-address: ' +
        'the maker must be a wallet that can sign',
      example: '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1',
    },
    chainIdFrom: chainId,
    chainIdTo: { ...chainId, description: 'Must equal chainIdFrom' },
    tokenAddressFrom: {
      type: 'string',
      format: 'erc20-address',
      description: 'Token sold: an ERC-20 listed on the chain (not the native token; use the wrapped token)',
    },
    tokenAddressTo: {
      type: 'string',
      format: 'evm-address',
      description: 'Token bought: listed on the chain (the native pseudo-address 0xeeee…eeee is allowed)',
    },
    tokenSymbolFrom: symbol,
    tokenSymbolTo: symbol,
    pair: {
      type: 'string',
      description: 'tokenSymbolFrom and tokenSymbolTo joined with "/"',
      example: 'USDC/WETH',
    },
    totalAmount: {
      type: 'number',
      description:
        'Whole-strategy budget in human-readable units of tokenAddressFrom, greater than 0; written out in ' +
        "plain digits (at most 20 fractional) it may not have more fractional digits than the token's " +
        'decimals, in base units it must be at least `iterations` (every iteration sells at least 1 base unit) ' +
        'and at most 2^256 − 1',
      example: 100,
    },
    iterations: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ITERATIONS,
      description: `Number of equal orders, 1 to ${MAX_ITERATIONS}`,
    },
    frequency: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_FREQUENCY_SECONDS,
      description: `Seconds between orders, 1 to ${MAX_FREQUENCY_SECONDS} (365 days)`,
    },
    slippage: {
      type: 'number',
      minimum: 0,
      description: 'Percent, at least 0 and below 100; 0 when absent',
      example: 0.5,
    },
    minPrice: bound('lower'),
    maxPrice: bound('upper'),
    status: {
      type: 'string',
      enum: ['active', 'cancelled'],
      description: '`cancelled` creates a stopped strategy with no orders; default `active`',
    },
    signature: {
      type: 'string',
      format: 'signature',
      description: "Maker's pair signature (0x plus 130 hex)",
    },
    maxFeeBps: signedMaxFeeBps,
  },
};

export interface UpdateStrategyBody {
  status?: 'cancelled';
  minPrice?: number | null;
  maxPrice?: number | null;
}

export const updateStrategyBody: SchemaObject = {
  type: 'object',
  description: 'At least one of status, minPrice, maxPrice; other fields are ignored',
  properties: {
    status: { type: 'string', enum: ['cancelled'], description: 'Cancels the strategy (irreversible)' },
    minPrice: {
      ...bound('lower'),
      description: `New lower bound greater than 0 and at most ${MAX_PRICE_TEXT}, or null to clear it`,
    },
    maxPrice: {
      ...bound('upper'),
      description: `New upper bound greater than 0 and at most ${MAX_PRICE_TEXT}, or null to clear it`,
    },
  },
};

const isoTime: SchemaObject = {
  type: 'string',
  description: 'ISO 8601 UTC',
  example: '2026-11-21T10:00:00.000Z',
};

export const dcaOrderSchema: SchemaObject = {
  type: 'object',
  required: ['id', 'strategyId', 'accountTo', 'amount', 'status', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', description: 'Opaque' },
    strategyId: { type: 'string' },
    accountTo: { type: 'string' },
    amount: { type: 'number', description: 'Amount of tokenAddressFrom sold (totalAmount / iterations)' },
    amountReceived: { type: 'number', description: 'Once executed' },
    executionPrice: { type: 'number', description: 'Once executed' },
    status: {
      type: 'string',
      description:
        '`pending`, `executing`, `successful`, `cancelled`, `error` or `expired`; treat other values as not final',
    },
    transactionHash: { type: 'string', description: 'Once executed' },
    errorMessage: { type: 'string', description: 'When it failed' },
    diagnosis: diagnosisSchema('DCA order'),
    createdAt: isoTime,
    updatedAt: isoTime,
  },
};

const strategyProperties: Record<string, SchemaObject> = {
  id: { type: 'string', description: 'UUID' },
  accountTo: { type: 'string', description: 'As sent' },
  chainIdFrom: { type: 'integer' },
  chainIdTo: { type: 'integer' },
  tokenAddressFrom: { type: 'string' },
  tokenAddressTo: { type: 'string' },
  tokenSymbolFrom: { type: 'string' },
  tokenSymbolTo: { type: 'string' },
  totalAmount: { type: 'number' },
  iterations: { type: 'integer' },
  frequency: { type: 'integer', description: 'Seconds between orders' },
  slippage: { type: 'number', description: 'Percent' },
  minPrice: { type: 'number', description: 'Absent when unset' },
  maxPrice: { type: 'number', description: 'Absent when unset' },
  status: {
    type: 'string',
    description:
      '`active`, `cancelled` or `finished` (`pending` is reserved); treat other values as not final',
  },
  createdAt: isoTime,
  updatedAt: isoTime,
};

const strategyRequired = Object.keys(strategyProperties).filter((k) => k !== 'minPrice' && k !== 'maxPrice');

export const dcaStrategySchema: SchemaObject = {
  type: 'object',
  required: strategyRequired,
  properties: strategyProperties,
};

export const dcaStrategyWithOrdersSchema: SchemaObject = {
  type: 'object',
  required: [...strategyRequired, 'orders'],
  properties: {
    ...strategyProperties,
    orders: { type: 'array', items: dcaOrderSchema, description: 'Oldest first' },
  },
};

export const strategyIdParam: ParameterDoc = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Strategy ID returned on create',
};

export const orderIdParam: ParameterDoc = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'DCA order ID',
};
