import { quoteBody, quoteResponse } from '../routes/quotes/schemas';
import { swapBody, swapResponse } from '../routes/swap/schemas';
import {
  onChainStatusSchema,
  transactionChainIdParam,
  transactionHashSchema,
} from '../routes/transactions/schemas';
import { transferStatusSchema, txStatusBody } from '../routes/tx-status/schemas';
import type { DocumentedRoute, RouteDefinition } from '../service/route-definition';
import { INVALID_BODY } from '../service/validator';

/*
 * Endpoints of the spec that a later change serves. Their definitions live here so /openapi.json covers the whole
 * API today; the routes that serve them spread these objects (`{...quotesEndpoint, handle}`) so nothing drifts.
 */

const TAG = 'Quotes and swaps';

export const quotesEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/quotes',
  auth: 'signed',
  body: quoteBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: TAG,
    summary: 'Best aggregated route for a swap on one chain or a transfer between two chains',
    description:
      '`mode` is `single-chain` or `cross-chain` (case-sensitive); cross-chain bodies reject top-level keys other than `mode`, `params` and `fees`. A quote is not reserved: request the swap right after and protect it with `slippage`.',
    response: quoteResponse,
    errors: [400, 422, 500],
  },
};

export const swapEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/swap',
  auth: 'signed',
  body: swapBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: TAG,
    summary: 'Unsigned transaction calldata for a quoted route',
    description:
      "Send the same pair and amount as the quote plus the wallet `account` and the quote's `aggregatorId`. The service never broadcasts: sign and send the transaction yourself, after `eth_estimateGas`. `dryRun` is accepted with no effect on single-chain and rejected on cross-chain.",
    response: swapResponse,
    errors: [400, 422, 500],
  },
};

export const txStatusEndpoint: DocumentedRoute = {
  method: 'POST',
  path: '/tx-status',
  auth: 'signed',
  body: txStatusBody,
  bodyError: INVALID_BODY,
  doc: {
    tag: TAG,
    summary: 'Status of a cross-chain transfer',
    description:
      '`500 TX_STATUS_ERROR` while the provider has no status yet or when it reports a failure: keep polling with backoff.',
    response: transferStatusSchema,
    errors: [400, 500],
  },
};

export const transactionStatusEndpoint: DocumentedRoute = {
  method: 'GET',
  path: '/transactions/:hash',
  auth: 'signed',
  doc: {
    tag: TAG,
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

export const DOCUMENTED_ENDPOINTS: readonly DocumentedRoute[] = [
  quotesEndpoint,
  swapEndpoint,
  txStatusEndpoint,
  transactionStatusEndpoint,
];

/** Method and path with parameter names erased: `/transactions/:hash` and `/transactions/:txHash` are one route. */
const routeKey = (route: DocumentedRoute): string =>
  `${route.method} ${route.path.replace(/:[A-Za-z0-9_]+/g, ':')}`;

/** The served routes, then every documented endpoint not served yet (a served one is never listed twice). */
export function withDocumentedEndpoints(served: readonly RouteDefinition[]): DocumentedRoute[] {
  const servedKeys = new Set(served.map(routeKey));
  return [...served, ...DOCUMENTED_ENDPOINTS.filter((route) => !servedKeys.has(routeKey(route)))];
}
