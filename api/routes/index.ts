import type { ChainRegistry } from '../../shared/chain/chain-registry';
import type { Store } from '../../shared/store/store';
import type { SecretBox } from '../gateway/secret-box';
import { documentationRoutes } from '../openapi';
import type { RouteDefinition } from '../service/route-definition';
import type { RequestValidator } from '../service/validator';
import { createAccountRoute } from './accounts/create-account';
import { listChainsRoute } from './chains/list-chains';
import { dcaRoutes } from './dca';
import { limitOrderRoutes } from './limit-orders';
import { DEFAULT_PROTOCOL_FEE_PIPS, quotesRoute, type QuotesDeps } from './quotes/post-quotes';
import { swapRoute, type SwapDeps } from './swap/post-swap';
import { supportChainRoute } from './support-chain/support-chain';
import { listTokensRoute } from './tokens/list-tokens';
import { transactionStatusRoute } from './transactions/get-transaction-status';
import {
  NO_TRANSACTION_STATUS_SOURCE,
  type TransactionStatusSource,
} from './transactions/transaction-status-source';

export interface RouteDeps {
  store: Store;
  chains: ChainRegistry;
  secretBox: SecretBox;
  validator: RequestValidator;
  /** Milliseconds since the epoch; tests pass a fixed clock. */
  now: () => number;
  /** On-chain reads for GET /transactions/{hash}; absent: every status read answers 500 TX_STATUS_ERROR. */
  transactionStatus?: TransactionStatusSource;
  /** The quote engine and the protocol fee; absent: every quote answers 422 NO_ROUTE. */
  quotes?: Pick<QuotesDeps, 'engine' | 'protocolFeePips' | 'prices' | 'gasPrices'>;
  /** RPC clients for the swap's dry run; absent: every swap answers 422 NO_ROUTE. */
  chainClients?: SwapDeps['clients'];
}

/** Every served endpoint, in the order of the spec, then the documentation generated from them. */
export function serviceRoutes(deps: RouteDeps): RouteDefinition[] {
  const served = [
    createAccountRoute({ accounts: deps.store.accounts, secretBox: deps.secretBox }),
    quotesRoute({
      chains: deps.chains,
      tokens: deps.store.tokens,
      engine: deps.quotes?.engine,
      protocolFeePips: deps.quotes?.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
      prices: deps.quotes?.prices,
      gasPrices: deps.quotes?.gasPrices,
    }),
    swapRoute({
      chains: deps.chains,
      tokens: deps.store.tokens,
      engine: deps.quotes?.engine,
      protocolFeePips: deps.quotes?.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
      clients: deps.chainClients ?? { find: () => undefined },
      now: deps.now,
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
  ];
  return [...served, ...documentationRoutes(served)];
}
