import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { redactUrls } from '../../../shared/chain/redact-url';
import { ServiceError } from '../../../shared/domain/errors';
import { enabledChainOfQuery } from '../../http/enabled-chain';
import { defineRoute, type DocumentedRoute, type RouteDefinition } from '../../http/route-definition';
import type { RequestValidator } from '../../http/validator';
import {
  INVALID_TRANSACTION_HASH,
  onChainStatusSchema,
  transactionChainIdParam,
  transactionHashSchema,
  transactionPathParams,
  transactionQuery,
} from './schemas';
import { ChainReadError, transactionStatus } from './transaction-status';
import type { TransactionStatusSource } from './transaction-status-source';

/** GET /transactions/{hash} as documented: served by `transactionStatusRoute`, listed in /openapi.json from here. */
export const transactionStatusEndpoint: DocumentedRoute = {
  method: 'GET',
  path: '/transactions/:hash',
  auth: 'signed',
  doc: {
    tag: 'Quotes and swaps',
    summary: 'On-chain status of any transaction on an enabled chain',
    description:
      'A malformed hash answers `400 Invalid transaction hash`; a chain that is not enabled `400 Chain N is not enabled`; an unknown hash `200` with status `not_found`; an RPC failure `500 TX_STATUS_ERROR`.',
    parameters: [
      { name: 'hash', in: 'path', required: true, schema: transactionHashSchema },
      { name: 'chainId', in: 'query', required: true, schema: transactionChainIdParam },
    ],
    response: onChainStatusSchema,
    errors: [400, 500],
  },
};

/** RPC error text can quote the node's URL, API key included: it is logged with every URL redacted. */
function describeCause(cause: unknown): { code?: string; message: string } {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { ...(typeof code === 'string' ? { code } : {}), message: redactUrls(cause.message) };
  }
  return { message: redactUrls(String(cause)) };
}

/** GET /transactions/{hash}?chainId=: the definition above with its handler. */
export function transactionStatusRoute(deps: {
  chains: ChainRegistry;
  validator: RequestValidator;
  source: TransactionStatusSource;
}): RouteDefinition {
  return defineRoute<undefined>({
    ...transactionStatusEndpoint,
    async handle({ params, query, log }) {
      const { hash } = deps.validator.assert<{ hash: string }>(
        transactionPathParams,
        params,
        INVALID_TRANSACTION_HASH,
        'hash',
      );
      const chainId = enabledChainOfQuery(deps.validator, deps.chains, transactionQuery, query);
      try {
        // Hex is case-insensitive: the answer names the hash in the canonical lowercase form.
        return await transactionStatus(deps.source, hash.toLowerCase(), chainId);
      } catch (err) {
        if (!(err instanceof ChainReadError)) throw err;
        log.warn({ chainId, cause: describeCause(err.reason) }, 'transaction status read failed');
        throw new ServiceError(
          'TX_STATUS_ERROR',
          500,
          `Could not read the transaction status on chain ${chainId}`,
        );
      }
    },
  });
}
