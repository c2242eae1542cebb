import type { DocumentedRoute, RouteDefinition } from '../http/route-definition';
import { quotesEndpoint } from './quotes/post-quotes';
import { swapEndpoint } from './swap/post-swap';
import { transactionStatusEndpoint } from './transactions/get-transaction-status';
import { txStatusEndpoint } from './tx-status/post-tx-status';

/**
 * The endpoints of the spec whose definitions need no wiring (each lives in its route file): /openapi.json lists
 * them whether this build serves them or not, so the document covers the whole API before every part is served.
 */
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
export function withDocumentedEndpoints(served: readonly RouteDefinition[]): RouteDefinition[] {
  const servedKeys = new Set(served.map(routeKey));
  return [...served, ...DOCUMENTED_ENDPOINTS.filter((route) => !servedKeys.has(routeKey(route)))];
}
