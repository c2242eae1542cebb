import { assertSendableInHeader, type Credentials } from './credentials';
import { TasError } from './errors';
import { streamEvents, type EventStreamOptions } from './events';
import { interpretResponse } from './response';
import {
  DEFAULT_RETRY_POLICY,
  isRetriable,
  nextRetryDelay,
  type RetryBudget,
  type RetryPolicy,
} from './retry';
import { canonicalJson } from './signing/canonical-json';
import { buildQuery } from './signing/canonical-query';
import { signRequest, type HttpMethod } from './signing/sign-request';
import { sendOnce, sleep } from './transport';
import { Webhooks } from './webhooks';
import type {
  AccountCreated,
  ApiResult,
  CreateDcaStrategyRequest,
  CreateLimitOrderRequest,
  DcaOrder,
  DcaStrategy,
  DcaStrategyStatus,
  DcaStrategyWithOrders,
  LimitOrder,
  LimitOrderStatus,
  OrderAuthorization,
  OrderAuthorizationQuery,
  QuoteData,
  QuoteRequest,
  SwapData,
  SwapRequest,
  TasEvent,
  Token,
  TransactionStatus,
  TransferStatus,
  TransferStatusRequest,
  UpdateDcaStrategyRequest,
  UpdateLimitOrderRequest,
} from './types';

export type QueryParams = Record<string, string | number | boolean | undefined>;

/** Told before each retry: what failed and how long the client waits before signing and sending again. */
export interface RetryEvent {
  method: HttpMethod;
  path: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  error: TasError;
}

export interface TasClientOptions {
  /** The service's base URL, ending in /api/v1. */
  baseUrl: string;
  /** Needed for every endpoint but createAccount. */
  credentials?: Credentials;
  /** Defaults to globalThis.fetch. */
  fetch?: typeof fetch;
  /** Defaults: 4 attempts, 250 ms first backoff, 8000 ms largest; maxAttempts 1 turns retries off. */
  retry?: Partial<RetryPolicy>;
  /** Per attempt, body included; the default 35000 outlasts the gateway's 30-second timeout. */
  timeoutMs?: number;
  /** Sent as User-Agent when given (browsers may drop it). */
  userAgent?: string;
  onRetry?: (event: RetryEvent) => void;
}

export const DEFAULT_TIMEOUT_MS = 35_000;

interface SendOptions {
  query?: QueryParams;
  body?: unknown;
  signed: boolean;
}

const segment = (value: string): string => encodeURIComponent(value);

function resolveBaseUrl(baseUrl: string): URL {
  // In a browser the base may be relative to the page (e.g. "/api/v1").
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  const url = new URL(baseUrl, page);
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/**
 * A client of the trade aggregation API: signs every attempt anew (spec, "Authentication"), retries as the spec's
 * "Retry rules" say (never a create), and turns every failure into a TasError.
 */
export class TasClient {
  readonly baseUrl: string;
  private readonly options: TasClientOptions;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  /** The API key's webhooks: `create`, `list`, `get`, `delete`, `deliveries`, `test`. */
  readonly webhooks: Webhooks = new Webhooks(this);

  constructor(options: TasClientOptions) {
    this.options = { ...options };
    this.baseUrl = resolveBaseUrl(options.baseUrl).toString();
    this.policy = {
      maxAttempts: Math.max(1, Math.floor(options.retry?.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts)),
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    };
    if (!options.fetch && typeof globalThis.fetch !== 'function')
      throw new TypeError('no fetch: pass options.fetch');
    // Called unbound, a browser's fetch throws "Illegal invocation".
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** POST /accounts (public, never retried): new credentials; the password becomes the passphrase. */
  static async createAccount(
    baseUrl: string,
    account: { name: string; password: string },
    options: Omit<TasClientOptions, 'baseUrl' | 'credentials'> = {},
  ): Promise<Credentials> {
    // The password becomes the passphrase, sent in a header on every signed request.
    assertSendableInHeader('password', account.password);
    const client = new TasClient({ ...options, baseUrl });
    const { data } = await client.send<AccountCreated>('POST', '/accounts', {
      body: { name: account.name, password: account.password },
      signed: false,
    });
    return { apiKeyId: data.apiKey, secretKey: data.secretKey, passphrase: account.password };
  }

  /** The same client (base URL, fetch, retries, timeout) signing with other credentials. */
  withCredentials(credentials: Credentials): TasClient {
    return new TasClient({ ...this.options, credentials });
  }

  /**
   * One signed call: `path` relative to the base URL (e.g. `/limit-order/abc`), query parameters (undefined ones
   * left out), and the body of a POST or PATCH, sent as its canonical JSON.
   */
  request<T>(
    method: HttpMethod,
    path: string,
    opts: { query?: QueryParams; body?: unknown } = {},
  ): Promise<ApiResult<T>> {
    return this.send<T>(method, path, { ...opts, signed: true });
  }

  quote(body: QuoteRequest): Promise<QuoteData> {
    return this.data('POST', '/quotes', { body });
  }

  swap(body: SwapRequest): Promise<SwapData> {
    return this.data('POST', '/swap', { body });
  }

  /** POST /tx-status; 500 TX_STATUS_ERROR (no status yet) is not retried here: waitForTransfer polls. */
  txStatus(body: TransferStatusRequest): Promise<TransferStatus> {
    return this.data('POST', '/tx-status', { body });
  }

  transaction(hash: string, chainId: number): Promise<TransactionStatus> {
    return this.data('GET', `/transactions/${segment(hash)}`, { query: { chainId } });
  }

  async chains(): Promise<number[]> {
    return (await this.data<{ chainIds: number[] }>('GET', '/chains')).chainIds;
  }

  async tokens(chainId: number): Promise<Token[]> {
    return (await this.data<{ tokens: Token[] }>('GET', '/tokens', { query: { chainId } })).tokens;
  }

  supportChain(chainId: number): Promise<boolean> {
    return this.data('POST', '/support-chain', { body: { chainId } });
  }

  /** Never retried: every success creates an order. After a network failure, list orders before trying again. */
  createLimitOrder(body: CreateLimitOrderRequest): Promise<LimitOrder> {
    return this.data('POST', '/limit-order', { body });
  }

  listLimitOrders(
    filter: {
      status?: LimitOrderStatus | (string & Record<never, never>);
      chainId?: number;
      accountTo?: string;
    } = {},
  ): Promise<LimitOrder[]> {
    return this.data('GET', '/limit-order', { query: filter });
  }

  getLimitOrder(id: string): Promise<LimitOrder> {
    return this.data('GET', `/limit-order/${segment(id)}`);
  }

  updateLimitOrder(id: string, patch: UpdateLimitOrderRequest): Promise<LimitOrder> {
    return this.data('PATCH', `/limit-order/${segment(id)}`, { body: patch });
  }

  cancelLimitOrder(id: string): Promise<LimitOrder> {
    return this.data('DELETE', `/limit-order/${segment(id)}`);
  }

  /** Never retried: every success creates a strategy. After a network failure, list strategies first. */
  createDcaStrategy(body: CreateDcaStrategyRequest): Promise<DcaStrategy> {
    return this.data('POST', '/dca-order/strategies', { body });
  }

  listDcaStrategies(
    filter: { status?: DcaStrategyStatus | (string & Record<never, never>); accountTo?: string } = {},
  ): Promise<DcaStrategyWithOrders[]> {
    return this.data('GET', '/dca-order/strategies', { query: filter });
  }

  getDcaStrategy(id: string): Promise<DcaStrategy> {
    return this.data('GET', `/dca-order/strategies/${segment(id)}`);
  }

  updateDcaStrategy(id: string, patch: UpdateDcaStrategyRequest): Promise<DcaStrategy> {
    return this.data('PATCH', `/dca-order/strategies/${segment(id)}`, { body: patch });
  }

  /** PATCH with `status: cancelled` (there is no DELETE for strategies); irreversible. */
  cancelDcaStrategy(id: string): Promise<DcaStrategy> {
    return this.updateDcaStrategy(id, { status: 'cancelled' });
  }

  listDcaOrders(strategyId: string): Promise<DcaOrder[]> {
    return this.data('GET', `/dca-order/strategies/${segment(strategyId)}/orders`);
  }

  getDcaOrder(id: string): Promise<DcaOrder> {
    return this.data('GET', `/dca-order/orders/${segment(id)}`);
  }

  /** GET /order-authorization: the spender to approve, the EIP-712 pair authorization to sign, and what is needed. */
  orderAuthorization(query: OrderAuthorizationQuery): Promise<OrderAuthorization> {
    return this.data('GET', '/order-authorization', {
      query: {
        chainId: query.chainId,
        accountTo: query.accountTo,
        tokenIn: query.tokenIn,
        tokenOut: query.tokenOut,
      },
    });
  }

  /**
   * GET /events, followed: an async iterable of this API key's events (`{id, type, createdAt, data}`), from the
   * ones published after the first connection (or right after `lastEventId`). A dropped connection is reopened,
   * signed anew, with `Last-Event-ID`, after backoff (at least a 503's Retry-After); nothing is yielded twice.
   * It ends only when the signal aborts (rejecting with its reason), the loop breaks, or a failure no retry fixes.
   */
  events(opts: EventStreamOptions = {}): AsyncGenerator<TasEvent, void, undefined> {
    const url = new URL(`${this.baseUrl}/events`);
    return streamEvents(
      {
        url: url.toString(),
        fetch: this.fetchImpl,
        signedHeaders: () => this.signedHeaders('GET', '/events', url),
        policy: this.policy,
        connectTimeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        onRetry: this.options.onRetry,
      },
      opts,
    );
  }

  private async data<T>(
    method: HttpMethod,
    path: string,
    opts: { query?: QueryParams; body?: unknown } = {},
  ): Promise<T> {
    return (await this.request<T>(method, path, opts)).data;
  }

  /** The headers of one attempt of a GET or DELETE, signed anew (a fresh timestamp and nonce). */
  private signedHeaders(method: 'GET' | 'DELETE', path: string, url: URL): Record<string, string> {
    const credentials = this.options.credentials;
    if (!credentials) {
      throw new TasError({
        code: 'MISSING_CREDENTIALS',
        status: 0,
        message: `${method} ${path} is signed: create the client with credentials (or call withCredentials)`,
      });
    }
    assertSendableInHeader('API key ID', credentials.apiKeyId);
    assertSendableInHeader('passphrase', credentials.passphrase);
    const headers = { ...signRequest(credentials, { method, url: `${url.pathname}${url.search}` }).headers };
    if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
    return headers;
  }

  private async send<T>(method: HttpMethod, path: string, opts: SendOptions): Promise<ApiResult<T>> {
    const credentials = this.options.credentials;
    if (opts.signed && !credentials) {
      throw new TasError({
        code: 'MISSING_CREDENTIALS',
        status: 0,
        message: `${method} ${path} is signed: create the client with credentials (or call withCredentials)`,
      });
    }
    if (opts.signed && credentials) {
      assertSendableInHeader('API key ID', credentials.apiKeyId);
      assertSendableInHeader('passphrase', credentials.passphrase);
    }
    const query = buildQuery(opts.query);
    const relative = path.startsWith('/') ? path : `/${path}`;
    const joiner = relative.includes('?') ? '&' : '?';
    // The URL parser's form of path and query is what goes on the wire, so it is what gets signed.
    const url = new URL(`${this.baseUrl}${relative}${query ? `${joiner}${query}` : ''}`);
    const hasBody = method === 'POST' || method === 'PATCH';
    const budget: RetryBudget = { attempts: 0, onceUsed: new Set() };
    const retriable = isRetriable(method, relative);
    for (;;) {
      budget.attempts += 1;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      let body = hasBody ? canonicalJson(opts.body ?? {}) : undefined;
      if (opts.signed && credentials) {
        // Signed anew on every attempt: a fresh timestamp and nonce (each set of headers works once).
        const signed = signRequest(credentials, {
          method,
          url: `${url.pathname}${url.search}`,
          body: opts.body,
        });
        Object.assign(headers, signed.headers);
        body = hasBody ? signed.bodyString : undefined;
      }
      if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
      try {
        const answer = await sendOnce(
          this.fetchImpl,
          { method, url: url.toString(), headers, body },
          this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        );
        return interpretResponse<T>(answer.status, answer.headers, answer.text);
      } catch (err) {
        if (!(err instanceof TasError)) throw err;
        const delayMs = retriable ? nextRetryDelay(err, budget, this.policy) : undefined;
        if (delayMs === undefined) throw err;
        this.options.onRetry?.({ method, path, attempt: budget.attempts, delayMs, error: err });
        await sleep(delayMs);
      }
    }
  }
}
