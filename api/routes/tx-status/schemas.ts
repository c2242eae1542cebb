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
  description: `${description}; null unless the provider reports it`,
});

/** `data` of POST /tx-status: the transfer status as the provider reports it. */
export const transferStatusSchema: SchemaObject = {
  type: 'object',
  required: [
    'fromChainId',
    'toChainId',
    'fromTxHash',
    'toTxHash',
    'fromAmount',
    'toAmount',
    'fromTokenAddress',
    'toTokenAddress',
    'bridgeHash',
    'errorMsg',
    'status',
    'detailStatus',
  ],
  properties: {
    fromChainId: { type: 'integer' },
    toChainId: {
      type: 'integer',
      nullable: true,
      description: 'Null only when the source transaction is no transfer at all (status INVALID)',
    },
    fromTxHash: reported('Source-chain transaction hash'),
    toTxHash: reported('Destination-chain transaction hash'),
    fromAmount: reported(
      'As the provider reports; unit not normalized (the devnet bridges: base units of the source token spent, fees included)',
    ),
    toAmount: reported(
      'As the provider reports; unit not normalized (the devnet bridges: base units of the output token received)',
    ),
    fromTokenAddress: reported('Source token address'),
    toTokenAddress: reported('Destination token address'),
    bridgeHash: reported(
      'Bridge-side identifier (the intent bridge: the Across relay hash; the lock-release bridge: the lock nonce)',
    ),
    errorMsg: { type: 'string', nullable: true, description: 'Always null in a 200' },
    status: {
      type: 'string',
      description: `Provider-specific. Success: ${TRANSFER_SUCCESS_STATUSES.join(', ')}. Failure: ${TRANSFER_FAILURE_STATUSES.join(', ')}. Anything else means in progress.`,
    },
    detailStatus: {
      type: 'string',
      nullable: true,
      description:
        'Provider-specific stage of `status`. The devnet bridges: WAITING (origin confirmations), BRIDGE_PENDING (confirmed, not yet filled or released), SUCCESS, REFUND_PENDING (expired unfilled, refund not executed yet), REFUND, FROM_FAILURE (source transaction reverted), INVALID (no transfer of this provider in the source transaction)',
    },
  },
};
