import type { ChainRegistry } from '../../shared/chain/chain-registry';
import type { Store } from '../../shared/store/store';
import type { EventFeed } from './events/event-feed';
import type { SecretBox } from '../../shared/signing/secret-box';
import type { RequestValidator } from '../http/validator';
import type { CrossChainRouteDeps, QuotesDeps } from './quotes/post-quotes';
import type { SwapDeps } from './swap/post-swap';
import type { TransactionStatusSource } from './transactions/transaction-status-source';

/**
 * What the route registry is built from. A module of its own: the route folders take it as their dependencies,
 * and the registry (routes/index.ts) imports every folder, so defining it there would make them import each other.
 */
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
  quotes?: Pick<QuotesDeps, 'engine' | 'quoter' | 'protocolFeePips' | 'prices' | 'gasPrices'>;
  /** RPC clients for reads inside a request (a maker's allowance); absent: such reads answer 500. */
  readClients?: SwapDeps['clients'];
  /** RPC clients for the swap's dry run; absent: every swap answers 422 NO_ROUTE. */
  chainClients?: SwapDeps['clients'];
  /**
   * The cross-chain providers (quotes, swaps, POST /tx-status); absent: cross-chain quotes and swaps answer 422
   * NO_ROUTE and every dexHash is unknown.
   */
  crossChain?: CrossChainRouteDeps;
  /** The published outbox, read once per process for every open `GET /events`; absent: the stream is not served. */
  eventFeed?: EventFeed;
}
