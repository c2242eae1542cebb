import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { transactionStatusEndpoint } from '../../openapi/documented-endpoints';
import { defineRoute, type RouteDefinition } from '../../service/route-definition';
import { INVALID_QUERY, type RequestValidator } from '../../service/validator';
import { INVALID_TRANSACTION_HASH, transactionPathParams, transactionQuery } from './schemas';
import { ChainReadError, transactionStatus } from './transaction-status';
import type { TransactionStatusSource } from './transaction-status-source';

/** RPC URLs often carry a provider's API key: error text from the RPC layer is logged only with them masked. */
const URL_PATTERN = /\b(?:https?|wss?):\/\/[^\s"'<>)]+/gi;
export const redactUrls = (text: string): string => text.replace(URL_PATTERN, '<rpc-url>');

function describeCause(cause: unknown): { code?: string; message: string } {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { ...(typeof code === 'string' ? { code } : {}), message: redactUrls(cause.message) };
  }
  return { message: redactUrls(String(cause)) };
}

/**
 * GET /transactions/{hash}?chainId=: served from its documented definition, so the OpenAPI document is the
 * same whether the route is served or only documented.
 */
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
      const { chainId: raw } = deps.validator.assert<{ chainId: string }>(
        transactionQuery,
        query,
        INVALID_QUERY,
        'query',
      );
      const chainId = Number(raw);
      if (!deps.chains.isEnabled(chainId)) {
        throw new ValidationError(`Chain ${chainId} is not enabled`, [
          { field: 'chainId', message: `Chain ${chainId} is not enabled` },
        ]);
      }
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
