import type { SchemaObject } from 'ajv';
import { chainIdSchema } from '../quotes/schemas';

/** POST /tx-status: the source-chain hash, the source chain and the `dexHash` of the cross-chain swap. */
export const txStatusBody: SchemaObject = {
  type: 'object',
  required: ['hash', 'chainId', 'dexHash'],
  properties: {
    hash: { type: 'string', format: 'tx-hash', description: 'Source-chain transaction hash' },
    chainId: { ...chainIdSchema, description: 'Source chain ID' },
    dexHash: {
      type: 'string',
      minLength: 1,
      description: '`dexHash` from the cross-chain swap, in lowercase',
    },
  },
};

export interface TxStatusRequest {
  hash: string;
  chainId: number;
  dexHash: string;
}

export const TRANSFER_SUCCESS_STATUSES = ['SUCCESS', 'DONE', 'success', 'Success'] as const;
export const TRANSFER_FAILURE_STATUSES = [
  'FAILURE',
  'FAILED',
  'failed',
  'REFUND',
  'Reverted',
  'FROM_FAILURE',
  'INVALID',
] as const;

const reported = (description: string): SchemaObject => ({
  type: 'string',
  nullable: true,
  description: `${description}; only when the provider reports it`,
});

/** `data` of POST /tx-status: the transfer status as the provider reports it. */
export const transferStatusSchema: SchemaObject = {
  type: 'object',
  required: ['fromChainId', 'toChainId', 'status'],
  properties: {
    fromChainId: { type: 'integer' },
    toChainId: { type: 'integer' },
    fromTxHash: reported('Source-chain transaction hash'),
    toTxHash: reported('Destination-chain transaction hash'),
    fromAmount: reported('As the provider reports; unit not normalized'),
    toAmount: reported('As the provider reports; unit not normalized'),
    fromTokenAddress: reported('Source token address'),
    toTokenAddress: reported('Destination token address'),
    bridgeHash: reported('Bridge-side identifier'),
    errorMsg: { type: 'string', nullable: true, description: 'Always null in a 200' },
    status: {
      type: 'string',
      description: `Provider-specific. Success: ${TRANSFER_SUCCESS_STATUSES.join(', ')}. Failure: ${TRANSFER_FAILURE_STATUSES.join(', ')}. Anything else means in progress.`,
    },
    detailStatus: { type: 'string', nullable: true, description: 'Provider-specific detail of `status`' },
  },
};
