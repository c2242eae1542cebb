import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError } from '../../../shared/domain/errors';
import { transactionStatusEndpoint } from '../../openapi/documented-endpoints';
import { enabledChainOfQuery } from '../../service/enabled-chain';
import { defineRoute, type RouteDefinition } from '../../service/route-definition';
import type { RequestValidator } from '../../service/validator';
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
