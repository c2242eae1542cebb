import type { DocumentedRoute } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { transferStatusSchema, txStatusBody } from './schemas';

/**
 * POST /tx-status, the status of a cross-chain transfer: documented so /openapi.json covers the whole spec, and not
 * served until cross-chain providers exist (a request answers 404 meanwhile). The route that serves it will spread
 * this object (`{...txStatusEndpoint, handle}`), so the document does not change when it does.
 */
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
      '`500 TX_STATUS_ERROR` while the provider has no status yet or when it reports a failure: keep polling with backoff.',
    response: transferStatusSchema,
    errors: [400, 500],
  },
};
