import { CrossChainProviders } from '../../shared/bridges/provider-registry';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import type { RouteDefinition } from '../http/route-definition';
import { documentationRoutes } from '../openapi';
import { createAccountRoute } from './accounts/create-account';
import { listChainsRoute } from './chains/list-chains';
import { dcaRoutes } from './dca';
import { withDocumentedEndpoints } from './documented-endpoints';
import { limitOrderRoutes } from './limit-orders';
import { orderAuthorizationRoute } from './order-authorization/get-order-authorization';
import { quotesRoute } from './quotes/post-quotes';
import type { RouteDeps } from './route-deps';
import { swapRoute } from './swap/post-swap';
import { supportChainRoute } from './support-chain/support-chain';
import { listTokensRoute } from './tokens/list-tokens';
import { transactionStatusRoute } from './transactions/get-transaction-status';
import { NO_TRANSACTION_STATUS_SOURCE } from './transactions/transaction-status-source';
import { txStatusRoute } from './tx-status/post-tx-status';
import { webhookRoutes } from './webhooks';
import { streamEventsRoute } from './events/stream-events';

/**
 * The registry: every endpoint in the order of the spec, then the documented ones not served yet (listed without
 * a handler: mounting skips them), then the documentation generated from all of them.
 */
export function serviceRoutes(deps: RouteDeps): RouteDefinition[] {
  const served = [
    createAccountRoute({ accounts: deps.store.accounts, secretBox: deps.secretBox }),
    quotesRoute({
      chains: deps.chains,
      tokens: deps.store.tokens,
      engine: deps.quotes?.engine,
      quoter: deps.quotes?.quoter,
      protocolFeePips: deps.quotes?.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
      prices: deps.quotes?.prices,
      gasPrices: deps.quotes?.gasPrices,
      crossChain: deps.crossChain,
    }),
    swapRoute({
      chains: deps.chains,
      tokens: deps.store.tokens,
      engine: deps.quotes?.engine,
      quoter: deps.quotes?.quoter,
      protocolFeePips: deps.quotes?.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
      clients: deps.chainClients ?? { find: () => undefined },
      now: deps.now,
      crossChain: deps.crossChain,
      builds: deps.store.transfers,
    }),
    txStatusRoute({
      chains: deps.chains,
      providers: deps.crossChain?.providers ?? new CrossChainProviders([]),
    }),
    transactionStatusRoute({
      chains: deps.chains,
      validator: deps.validator,
      source: deps.transactionStatus ?? NO_TRANSACTION_STATUS_SOURCE,
    }),
    listChainsRoute(deps.chains),
    listTokensRoute({ chains: deps.chains, tokens: deps.store.tokens, validator: deps.validator }),
    supportChainRoute(deps.chains),
    ...limitOrderRoutes(deps),
    ...dcaRoutes(deps),
    orderAuthorizationRoute({
      chains: deps.chains,
      store: deps.store,
      validator: deps.validator,
      clients: deps.readClients ?? { find: () => undefined },
      prices: deps.quotes?.prices,
      gasPrices: deps.quotes?.gasPrices,
    }),
    ...webhookRoutes(deps),
    ...(deps.eventFeed ? [streamEventsRoute({ events: deps.store.events, feed: deps.eventFeed })] : []),
  ];
  const listed = withDocumentedEndpoints(served);
  return [...listed, ...documentationRoutes(listed)];
}
