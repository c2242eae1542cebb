import type { SchemaObject } from 'ajv';
import {
  LIMIT_ORDER_IMMUTABLE_FIELDS,
  LIMIT_ORDER_SERVICE_FIELDS,
  LIMIT_ORDER_STATUSES,
} from '../../../shared/domain/limit-order';
import { MAX_PRICE_TEXT } from '../../../shared/domain/amount-bounds';
import { DIAGNOSIS_CODES, type DiagnosisCode } from '../../../shared/domain/diagnosis';
import type { ParameterDoc } from '../../http/route-definition';
import { signedMaxFeeBps } from '../order-authorization/schemas';
import { MAX_GAS_PRICE_GWEI } from '../../http/validator';

/** The columns hold 100 characters; a longer decimal string would not fit (and could overflow a double). */
const DECIMAL_MAX_LENGTH = 100;
/** The symbol columns hold 64 characters. */
const SYMBOL_MAX_LENGTH = 64;

const decimalString = (format: string, description: string, example: string): SchemaObject => ({
  type: 'string',
  format,
  maxLength: DECIMAL_MAX_LENGTH,
  description,
  example,
});
/** The spec gives `gasPrice` and `slippage` a minimum length of 1. */
const nonEmpty = (schema: SchemaObject): SchemaObject => ({ ...schema, minLength: 1 });

const amount = decimalString(
  'positive-decimal',
  'Human-readable units of `inTokenAddress`, greater than 0, at most as many fractional digits as the token ' +
    'has decimals, and at most 2^256 − 1 in base units (amount × 10^decimals)',
  '1.5',
);
const priceBounds =
  `greater than 0 and at most ${MAX_PRICE_TEXT}; amount × price × 10^(decimals of \`outTokenAddress\`) must ` +
  'not exceed 2^256 − 1';
const priceTrigger = decimalString(
  'price',
  'Units of `outTokenAddress` per 1 `inTokenAddress`; the order executes at this price or better; ' +
    priceBounds,
  '3500',
);
const price = decimalString(
  'price',
  'Send equal to `priceTrigger`; stored as sent and never synced; ' + priceBounds,
  '3500',
);
const expired = {
  type: 'string',
  description: 'Unix timestamp in milliseconds (13 digits), in the future and at most 365 days ahead',
  example: '1767225600000',
};
const gasPrice = nonEmpty(
  decimalString(
    'gwei',
    `Gwei, at least 0 and at most ${MAX_GAS_PRICE_GWEI}, at most 9 fractional digits (1 wei); stored with the ` +
      'order, not a cap',
    '20',
  ),
);
const slippage = nonEmpty(decimalString('percent', 'Percent, at least 0 and below 100', '0.5'));

const serviceFieldsNote = `Fields the service sets (${LIMIT_ORDER_SERVICE_FIELDS.map((f) => `\`${f}\``).join(
  ', ',
)}) are rejected with 400; other unknown fields are ignored.`;

const refused = (fields: readonly string[], message: string): Record<string, SchemaObject> =>
  Object.fromEntries(fields.map((field) => [field, { 'x-forbidden': message }]));
const serviceSet = refused(LIMIT_ORDER_SERVICE_FIELDS, 'Is set by the service and cannot be sent');

/** POST /limit-order: the formats; the rules that need the chain, the token list or the clock run in the handler. */
export const createLimitOrderBody: SchemaObject = {
  type: 'object',
  description: serviceFieldsNote,
  required: [
    'accountTo',
    'chainId',
    'inTokenAddress',
    'outTokenAddress',
    'tokenASymbol',
    'tokenBSymbol',
    'amount',
    'priceTrigger',
    'price',
    'expired',
    'gasPrice',
    'slippage',
    'signature',
  ],
  properties: {
    accountTo: {
      type: 'string',
      format: 'maker-address',
      description:
        'Maker wallet, stored exactly as sent; send the EIP-55 form. Not the zero address or the native ' +
        'pseudo-address: the maker must be a wallet that can sign',
    },
    chainId: { type: 'integer', description: 'An enabled chain', example: 1 },
    inTokenAddress: {
      type: 'string',
      format: 'erc20-address',
      description: 'Token sold: an ERC-20 listed for the chain, never the native token',
    },
    outTokenAddress: {
      type: 'string',
      format: 'erc20-address',
      description: 'Token bought: an ERC-20 listed for the chain, other than `inTokenAddress`',
    },
    tokenASymbol: {
      type: 'string',
      minLength: 1,
      maxLength: SYMBOL_MAX_LENGTH,
      description: 'Symbol of `inTokenAddress`; used to find the reference price',
      example: 'WETH',
    },
    tokenBSymbol: {
      type: 'string',
      minLength: 1,
      maxLength: SYMBOL_MAX_LENGTH,
      description: 'Symbol of `outTokenAddress`; used to find the reference price',
      example: 'USDC',
    },
    amount,
    priceTrigger,
    price,
    expired,
    gasPrice,
    slippage,
    signature: {
      type: 'string',
      format: 'signature',
      description: "The maker's pair signature (0x plus 130 hex characters); not verified at creation",
    },
    maxFeeBps: signedMaxFeeBps,
    ...serviceSet,
  },
};

/** PATCH /limit-order/{id}: any of the changeable fields, in the formats of the create body. */
export const updateLimitOrderBody: SchemaObject = {
  type: 'object',
  description: `At least one field is required. Tokens, chain, maker, symbols, signature and maxFeeBps cannot be changed. ${serviceFieldsNote}`,
  properties: {
    priceTrigger,
    price,
    amount,
    expired,
    slippage,
    gasPrice,
    ...serviceSet,
    ...refused(LIMIT_ORDER_IMMUTABLE_FIELDS, 'Cannot be changed'),
  },
};

export const limitOrderIdParameter: ParameterDoc = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Limit order ID (UUID); another key’s order is reported as not found',
};

export const listLimitOrdersParameters: ParameterDoc[] = [
  {
    name: 'status',
    in: 'query',
    required: false,
    schema: { type: 'string', enum: [...LIMIT_ORDER_STATUSES] },
    description: 'An unknown status returns an empty array',
  },
  {
    name: 'chainId',
    in: 'query',
    required: false,
    schema: { type: 'integer' },
    description: 'A non-numeric value returns an empty array',
  },
  {
    name: 'accountTo',
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: 'Maker address, matched exactly and case-sensitively',
  },
];

const isoTime = { type: 'string', description: 'ISO 8601 UTC with milliseconds' };

/** What each diagnosis code means, as the OpenAPI document says it. */
const DIAGNOSIS_MEANINGS: Record<DiagnosisCode, string> = {
  PRICE_NOT_REACHED:
    'the market price has not reached the trigger (limit order: `marketPrice` beside `priceTrigger`) or is outside ' +
    'the strategy’s bounds (DCA order: `marketPrice` beside `minPrice` / `maxPrice`)',
  ALLOWANCE_SHORT:
    'the maker’s allowance to the OrderExecutor is below amount + fee (`required`, `available`); the order waits ' +
    'for an approval',
  BALANCE_SHORT:
    'the maker’s balance is below amount + fee (`required`, `available`); the order waits for funds',
  FEE_ABOVE_CAP:
    'a fee was above its cap at the last attempt (`reason`: FEE_TOO_HIGH, the contract’s or the signed cap; ' +
    'GAS_TOO_EXPENSIVE, the network fee above the keeper’s); retried at `nextAttemptAt`',
  NO_ROUTE: 'no route for the pair and amount; retried (at `nextAttemptAt` when given)',
  CHAIN_STALE:
    'the chain’s state is stale or its RPC unreachable; the keeper claims nothing there until it recovers',
  WAITING_FOR_BLOCK:
    'the price is reached; the order waits for a coming block (batches full, our batches in flight, or `reason`: ' +
    'the last attempt’s market failure)',
  BACKING_OFF: 'the last attempt failed (`reason`); the next one is at `nextAttemptAt`',
};

/**
 * The `diagnosis` of a pending order (limit or DCA): why the keeper has not filled it, as it last judged it.
 * Absent in any other status, and until the keeper has judged the order.
 */
export function diagnosisSchema(order: 'limit order' | 'DCA order'): SchemaObject {
  return {
    type: 'object',
    description:
      `While the ${order} is \`pending\`: why it has not executed yet, as the keeper last judged it; absent in every ` +
      'other status and until the keeper has judged it. A change of `code` is sent as an event of the order.',
    required: ['code', 'message', 'since'],
    properties: {
      code: {
        type: 'string',
        enum: [...DIAGNOSIS_CODES],
        description: DIAGNOSIS_CODES.map((code) => `\`${code}\`: ${DIAGNOSIS_MEANINGS[code]}`).join('; '),
      },
      message: { type: 'string', description: 'The diagnosis in a sentence, for people; may change wording' },
      since: { type: 'string', description: 'ISO 8601 UTC: since when the code has held' },
      marketPrice: {
        type: 'number',
        description:
          'PRICE_NOT_REACHED: units of the bought token per 1 sold token when judged (the pair’s reference price; ' +
          'once the keeper priced the order, what its amount plus fee would get). Rewritten only when it moved by 1% or more',
      },
      priceTrigger: { type: 'number', description: 'PRICE_NOT_REACHED of a limit order: its trigger' },
      minPrice: {
        type: 'number',
        description: 'PRICE_NOT_REACHED of a DCA order: the strategy’s lower bound',
      },
      maxPrice: {
        type: 'number',
        description: 'PRICE_NOT_REACHED of a DCA order: the strategy’s upper bound',
      },
      required: {
        type: 'string',
        description:
          'ALLOWANCE_SHORT / BALANCE_SHORT: base units of the sold token the order needs (amount + fee, with the ' +
          'maker’s orders of the same token ahead of it in the batch)',
      },
      available: {
        type: 'string',
        description: 'ALLOWANCE_SHORT / BALANCE_SHORT: the maker’s allowance or balance, in base units',
      },
      feeBps: {
        type: 'integer',
        description: 'FEE_ABOVE_CAP, when known: the fee in basis points of the amount',
      },
      maxFeeBps: { type: 'integer', description: 'FEE_ABOVE_CAP, when known: the cap in basis points' },
      nextAttemptAt: { type: 'string', description: 'ISO 8601 UTC: when the keeper tries the order again' },
      reason: {
        type: 'string',
        description:
          'The last attempt’s failure reason (the keeper’s failure table), with the codes that follow one',
      },
    },
  };
}

/** A limit order as every limit-order endpoint returns it. */
export const limitOrderSchema: SchemaObject = {
  type: 'object',
  required: [
    'id',
    'accountTo',
    'chainId',
    'gasPrice',
    'inTokenAddress',
    'outTokenAddress',
    'slippage',
    'tokenASymbol',
    'tokenBSymbol',
    'amount',
    'price',
    'priceTrigger',
    'expired',
    'txHash',
    'status',
    'reasonFail',
    'attemptNumber',
    'allowance',
    'estimateGas',
    'effectivePriceGas',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
  properties: {
    id: { type: 'string', description: 'UUID assigned by the service' },
    accountTo: { type: 'string', description: 'Maker address as sent' },
    chainId: { type: 'integer' },
    gasPrice: { type: 'string', description: 'Gwei' },
    inTokenAddress: { type: 'string' },
    outTokenAddress: { type: 'string' },
    slippage: { type: 'string', description: 'Percent' },
    tokenASymbol: { type: 'string' },
    tokenBSymbol: { type: 'string' },
    amount: { type: 'number', description: 'Human-readable units of `inTokenAddress`' },
    price: { type: 'number' },
    priceTrigger: { type: 'number' },
    expired: { type: 'string', description: 'Unix milliseconds, as sent' },
    txHash: { type: 'string', description: 'Empty string until executed' },
    status: {
      type: 'string',
      description: `One of ${LIMIT_ORDER_STATUSES.join(', ')}; treat any other as not final`,
    },
    reasonFail: { type: 'array', items: { type: 'string' }, description: 'Empty unless execution failed' },
    attemptNumber: { type: 'integer' },
    allowance: { type: 'string' },
    estimateGas: { type: 'string' },
    effectivePriceGas: { type: 'string' },
    createdAt: isoTime,
    updatedAt: isoTime,
    deletedAt: {
      type: 'string',
      description: 'Empty string until cancelled, then the cancel time (ISO 8601 UTC)',
    },
    diagnosis: diagnosisSchema('limit order'),
  },
};
