import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { NoTransferStatus } from '../../../shared/bridges/cross-chain-provider';
import type { CrossChainProviders } from '../../../shared/bridges/provider-registry';
import { transferStatusBody } from '../../../shared/bridges/transfer-status-body';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { defineRoute, type DocumentedRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { transferStatusSchema, txStatusBody, type TxStatusRequest } from './schemas';

/** POST /tx-status as documented: served by `txStatusRoute`, listed in /openapi.json from this very object. */
export const txStatusEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/tx-status',
  auth: 'signed',
  body: txStatusBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: 'Quotes and swaps',
    summary: 'Status of a cross-chain transfer',
    description:
      '`hash` is the source-chain transaction, `chainId` the source chain, `dexHash` the one the cross-chain swap returned (compared in any casing; an unknown one is `400` on `dexHash`). The status is read from the chains each time, so any api instance answers it, before and after a restart. `500 TX_STATUS_ERROR` while the provider has no status yet (the source transaction is not mined, or not known to the node) or cannot read it: keep polling with backoff. A `200` always has `errorMsg: null` and every field, null where unknown; `status` SUCCESS means the output arrived on the destination.',
    response: transferStatusSchema,
    errors: [400, 500],
  },
};

export interface TxStatusDeps {
  chains: ChainRegistry;
  providers: CrossChainProviders;
}

/** POST /tx-status: the provider named by the dexHash reads the transfer's status from the chains. */
export function txStatusRoute(deps: TxStatusDeps): RouteDefinition {
  return defineRoute<TxStatusRequest>({
    ...txStatusEndpoint,
    async handle({ body, log }) {
      if (!deps.chains.isEnabled(body.chainId)) {
        const message = `Chain ${body.chainId} is not enabled`;
        throw new ValidationError(message, [{ field: 'chainId', message }]);
      }
      const provider = deps.providers.byDexHash(body.dexHash);
      if (!provider) {
        const known = deps.providers.all().map((p) => p.dexHash);
        throw new ValidationError(INVALID_BODY, [
          {
            field: 'dexHash',
            message:
              known.length > 0
                ? `Must be the dexHash of a cross-chain swap: one of ${known.join(', ')}`
                : 'Must be the dexHash of a cross-chain swap (no cross-chain provider is enabled)',
          },
        ]);
      }
      try {
        return transferStatusBody(await provider.status({ hash: body.hash, chainId: body.chainId }));
      } catch (err) {
        if (err instanceof NoTransferStatus) throw new ServiceError('TX_STATUS_ERROR', 500, err.message);
        if (err instanceof ServiceError) throw err;
        log.error({ err, provider: provider.id }, 'transfer status failed');
        // The cause stays in the log: RPC errors can carry node URLs with credentials.
        throw new ServiceError(
          'TX_STATUS_ERROR',
          500,
          'Could not read the transfer status; retry with backoff',
        );
      }
    },
  });
}
