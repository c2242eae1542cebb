import type { SchemaObject } from 'ajv';

/*
 * GET /transactions/{hash}?chainId=<integer>. The path and the query are validated separately so that a
 * malformed hash answers `Invalid transaction hash` (detail field `hash`) and a bad chainId
 * `Invalid query parameters`.
 */

export const INVALID_TRANSACTION_HASH = 'Invalid transaction hash';

export const transactionHashSchema: SchemaObject = {
  type: 'string',
  format: 'tx-hash',
  description: '0x-prefixed 32-byte hex transaction hash',
};

export const transactionPathParams: SchemaObject = {
  type: 'object',
  required: ['hash'],
  properties: { hash: transactionHashSchema },
};

/** Query values arrive as strings; a repeated parameter arrives as an array and is refused. */
export const transactionQuery: SchemaObject = {
  type: 'object',
  required: ['chainId'],
  properties: { chainId: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
};

/** The documented form of `chainId` (the query schema above checks the string it arrives as). */
export const transactionChainIdParam: SchemaObject = {
  type: 'integer',
  minimum: 1,
  description: 'Chain the transaction was sent on; must be enabled',
};

export const ON_CHAIN_STATUSES = ['pending', 'success', 'reverted', 'not_found'] as const;
export type OnChainStatusValue = (typeof ON_CHAIN_STATUSES)[number];

export const onChainStatusSchema: SchemaObject = {
  type: 'object',
  required: ['hash', 'chainId', 'status', 'blockNumber', 'confirmations', 'gasUsed'],
  properties: {
    hash: { type: 'string', description: '0x-prefixed 32-byte hex' },
    chainId: { type: 'integer' },
    status: {
      type: 'string',
      enum: [...ON_CHAIN_STATUSES],
      description:
        '`pending` in the mempool; `not_found` when the node does not know the hash (not yet broadcast, dropped, or another chain)',
    },
    blockNumber: { type: 'integer', nullable: true, description: 'Null until mined' },
    confirmations: { type: 'integer', minimum: 0, description: '0 until mined' },
    gasUsed: { type: 'string', nullable: true, description: 'Decimal string; null until mined' },
  },
};

export interface OnChainTransactionStatus {
  hash: string;
  chainId: number;
  status: OnChainStatusValue;
  blockNumber: number | null;
  confirmations: number;
  gasUsed: string | null;
}
