/**
 * The SDK's data types: aliases into the types generated from the server's OpenAPI document
 * (generated/api-types.ts, `npm run sdk:types`), so they follow the server. Each is the `data` of the envelope.
 */
import type { components, paths } from './generated/api-types';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** `data` of an operation's 200 envelope. */
type DataOf<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data: infer D } } } };
}
  ? D
  : never;

/** An operation's JSON request body. */
type BodyOf<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** An operation's query parameters. */
type QueryOf<P extends keyof paths, M extends Method> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

/** The service-set fields a create body must not carry (the document lists them only to reject them). */
type Writable<T> = { [K in keyof T as unknown extends T[K] ? never : K]: T[K] };

export type Meta = components['schemas']['Meta'];

/** What every successful call answers: the envelope's `data` and `meta`. */
export interface ApiResult<T> {
  data: T;
  meta: Meta;
}

export type AccountCreated = DataOf<'/accounts', 'post'>;

export type QuoteRequest = BodyOf<'/quotes', 'post'>;
export type QuoteData = DataOf<'/quotes', 'post'>;
export type SwapRequest = BodyOf<'/swap', 'post'>;
export type SwapData = DataOf<'/swap', 'post'>;

export type TransferStatusRequest = BodyOf<'/tx-status', 'post'>;
export type TransferStatus = DataOf<'/tx-status', 'post'>;
export type TransactionStatus = DataOf<'/transactions/{hash}', 'get'>;

export type Token = DataOf<'/tokens', 'get'>['tokens'][number];

export type LimitOrder = DataOf<'/limit-order/{id}', 'get'>;
export type CreateLimitOrderRequest = Writable<BodyOf<'/limit-order', 'post'>>;
export type UpdateLimitOrderRequest = Writable<BodyOf<'/limit-order/{id}', 'patch'>>;
/** The statuses the spec lists; the server may add others (treat an unknown one as not final). */
export type LimitOrderStatus = 'pending' | 'executing' | 'submitted' | 'completed' | 'failed' | 'cancelled';

export type DcaStrategy = DataOf<'/dca-order/strategies/{id}', 'get'>;
export type DcaStrategyWithOrders = DataOf<'/dca-order/strategies', 'get'>[number];
export type CreateDcaStrategyRequest = Writable<BodyOf<'/dca-order/strategies', 'post'>>;
export type UpdateDcaStrategyRequest = BodyOf<'/dca-order/strategies/{id}', 'patch'>;
export type DcaStrategyStatus = 'active' | 'cancelled' | 'finished';
export type DcaOrder = DataOf<'/dca-order/orders/{id}', 'get'>;

/**
 * GET /order-authorization `data`: what the maker approves (to `spender`) and signs (`typedData`, as
 * eth_signTypedData_v4 takes it), and what its open orders already need. Amounts are base-unit strings.
 */
export type OrderAuthorization = DataOf<'/order-authorization', 'get'>;

export type OrderAuthorizationQuery = QueryOf<'/order-authorization', 'get'>;

/** The event types a webhook can subscribe to (and the stream carries); `ping` goes only to a tested webhook. */
export type WebhookEventType = NonNullable<BodyOf<'/webhooks', 'post'>['events']>[number];
/** POST /webhooks body: `url` (http or https) and `events` (default: every WebhookEventType). */
export type CreateWebhookRequest = BodyOf<'/webhooks', 'post'>;
/** A webhook as GET /webhooks lists it (its secret is never shown again). */
export type Webhook = DataOf<'/webhooks/{id}', 'get'>;
/** POST /webhooks `data`: the webhook and its signing secret (`whsec_` + 64 hex), returned only here. */
export type WebhookCreated = DataOf<'/webhooks', 'post'>;
/** One delivery attempt of GET /webhooks/{id}/deliveries (newest first); `statusCode` null when no answer came. */
export type WebhookDelivery = DataOf<'/webhooks/{id}/deliveries', 'get'>[number];
/** POST /webhooks/{id}/test `data`: the id of the `ping` event sent to that webhook. */
export type WebhookTestResult = DataOf<'/webhooks/{id}/test', 'post'>;

/*
 * The event body (what a webhook receives and GET /events carries in `data:`) is not a JSON schema of the
 * document (the stream is text/event-stream): written by hand.
 */

interface EventOf<T extends string, D> {
  /** The event id (`evt_...`): deliveries are at least once, so dedupe on it. */
  id: string;
  type: T;
  /** ISO 8601. */
  createdAt: string;
  /** The resource as its GET answers it (at the time of the event). */
  data: D;
}

/**
 * What a webhook receives (the POST body) and the event stream yields. The server may add types: an event of a
 * type outside this union is passed on as it comes.
 */
export type TasEvent =
  | EventOf<'limit_order.updated', LimitOrder>
  | EventOf<'dca_strategy.updated', DcaStrategy>
  | EventOf<'dca_order.updated', DcaOrder>
  | EventOf<'transfer.updated', Record<string, unknown>>
  | EventOf<'ping', { webhookId: string }>;

export type TasEventType = TasEvent['type'];
