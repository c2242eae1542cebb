import type { SchemaObject } from 'ajv';
import {
  crossChainQuoteParams,
  feesSchema,
  modeSchema,
  singleChainPairProperties,
  singleChainPairRequired,
  walletAddressSchema,
  type Fees,
} from '../quotes/schemas';

/*
 * Request and response schemas of POST /swap: the quote's pair and amount plus the wallet `account` and the
 * `aggregatorId` the quote returned. The route validates with these very objects; /openapi.json shows them.
 */

const aggregatorIdSchema: SchemaObject = {
  type: 'string',
  minLength: 1,
  description:
    '`aggregatorId` exactly as the quote returned it (single-chain: or the next `aggregatorOrder` entry)',
};

export const CROSS_CHAIN_DRY_RUN =
  'Is not allowed on a cross-chain swap (dryRun applies to single-chain only)';

export const singleChainSwapParams: SchemaObject = {
  type: 'object',
  required: [...singleChainPairRequired, 'account', 'aggregatorId'],
  properties: {
    ...singleChainPairProperties,
    account: walletAddressSchema,
    aggregatorId: aggregatorIdSchema,
    dryRun: { type: 'boolean', description: 'Accepted for compatibility; has no effect' },
  },
};

/**
 * Cross-chain swap params are closed: `gasPrice` and any other unknown key are rejected; `dryRun` too, with a
 * message that says why (the spec rejects it on cross-chain only).
 */
export const crossChainSwapParams: SchemaObject = {
  ...crossChainQuoteParams,
  required: [...(crossChainQuoteParams.required as string[]), 'account', 'aggregatorId'],
  properties: {
    ...crossChainQuoteParams.properties,
    account: { ...walletAddressSchema, description: 'Sends the source transaction and receives the output' },
    aggregatorId: aggregatorIdSchema,
    dryRun: { 'x-forbidden': CROSS_CHAIN_DRY_RUN, description: 'Not accepted on cross-chain swaps' },
  },
};

export const singleChainSwapBody: SchemaObject = {
  type: 'object',
  title: 'Single-chain swap request',
  required: ['mode', 'params'],
  properties: { mode: modeSchema('single-chain'), params: singleChainSwapParams, fees: feesSchema },
};

export const crossChainSwapBody: SchemaObject = {
  type: 'object',
  title: 'Cross-chain swap request',
  required: ['mode', 'params'],
  additionalProperties: false,
  properties: { mode: modeSchema('cross-chain'), params: crossChainSwapParams, fees: feesSchema },
};

/** `mode` picks the branch, as for quotes (quoteBody). */
export const swapBody: SchemaObject = {
  type: 'object',
  discriminator: { propertyName: 'mode' },
  oneOf: [singleChainSwapBody, crossChainSwapBody],
};

export interface SingleChainSwapParams {
  chainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  amount: string;
  gasPrice: string;
  slippage: string;
  account: string;
  aggregatorId: string;
  dryRun?: boolean;
}

export interface CrossChainSwapParams {
  fromChainId: number;
  toChainId: number;
  inTokenAddress: string;
  outTokenAddress: string;
  amount: string;
  slippage: string;
  account: string;
  aggregatorId: string;
}

export type SwapRequest =
  | { mode: 'single-chain'; params: SingleChainSwapParams; fees?: Fees }
  | { mode: 'cross-chain'; params: CrossChainSwapParams; fees?: Fees };

// ---- response `data` ----

const weiValue: SchemaObject = {
  type: 'string',
  description: 'Wei of the native token to send; `0` for an ERC-20 input',
};
const gasLimit: SchemaObject = {
  type: 'string',
  description: '`estimatedGas` times 2; unreliable, estimate yourself',
};

export const singleChainSwapSchema: SchemaObject = {
  type: 'object',
  required: [
    'data',
    'to',
    'value',
    'outAmount',
    'minOutAmount',
    'estimatedGas',
    'gasLimit',
    'contractToApprove',
  ],
  properties: {
    data: {
      type: 'string',
      description: 'Calldata hex, bound to `account`; expires on-chain after about 5 minutes',
    },
    to: { type: 'string', description: 'Contract to send the transaction to' },
    value: weiValue,
    outAmount: { type: 'string', description: 'Base units of the output token' },
    minOutAmount: {
      type: 'string',
      description: 'Base units of the output token; the transaction reverts below it',
    },
    estimatedGas: { type: 'string', description: 'May be the placeholder `1500000`, `0` or a wei amount' },
    gasLimit,
    contractToApprove: {
      type: 'string',
      description: 'ERC-20 spender the input allowance must cover; can differ from `to`',
    },
  },
};

export const crossChainSwapSchema: SchemaObject = {
  type: 'object',
  required: [
    'calldata',
    'to',
    'value',
    'dexHash',
    'estimatedGas',
    'gasLimit',
    'outAmount',
    'minOutAmount',
    'aggregatorId',
  ],
  properties: {
    calldata: {
      type: 'string',
      description:
        'Calldata hex of the source-chain transaction, bound to `account`; expires on-chain after about 5 minutes',
    },
    to: { type: 'string', description: 'Contract to send the source transaction to' },
    value: weiValue,
    dexHash: {
      type: 'string',
      description: 'Identifies the provider for POST /tx-status; send it in lowercase',
    },
    estimatedGas: {
      type: 'string',
      description:
        "Gas of the source transaction from `account` when it can run now, else the provider's estimate",
    },
    gasLimit,
    contractToApprove: {
      type: 'string',
      description:
        'ERC-20 spender the input allowance must cover (amount plus fees); absent for a native input',
    },
    outAmount: {
      type: 'string',
      description: 'Base units of the output token: what `account` receives on the destination chain',
    },
    minOutAmount: {
      type: 'string',
      description: 'Base units of the output token: `outAmount` less `slippage`',
    },
    aggregatorId: { type: 'string', description: 'The provider that built the transaction' },
  },
};

export const swapResponse: SchemaObject = {
  type: 'object',
  oneOf: [
    {
      type: 'object',
      title: 'Single-chain swap',
      required: ['mode', 'swap'],
      properties: { mode: modeSchema('single-chain'), swap: singleChainSwapSchema },
    },
    {
      type: 'object',
      title: 'Cross-chain swap',
      required: ['mode', 'swap'],
      properties: { mode: modeSchema('cross-chain'), swap: crossChainSwapSchema },
    },
  ],
};
