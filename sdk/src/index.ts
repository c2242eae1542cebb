/** @tas/sdk: a typed, signing, retrying client of the trade aggregation API, with maker and polling helpers. */
export { TasClient, DEFAULT_TIMEOUT_MS } from './client';
export type { QueryParams, RetryEvent, TasClientOptions } from './client';
export type { Credentials } from './credentials';
export {
  AuthenticationError,
  ConflictError,
  GATEWAY_CODES,
  NetworkError,
  NoRouteError,
  NotFoundError,
  PollTimeoutError,
  RateLimitError,
  ServerError,
  TasError,
  ValidationError,
} from './errors';
export type { ErrorDetail, TasErrorInit } from './errors';
export { DEFAULT_RETRY_POLICY, isRetriable, retryKind } from './retry';
export type { RetryKind, RetryPolicy } from './retry';
export { canonicalJson } from './signing/canonical-json';
export { buildQuery, canonicalQuery, decodeQueryComponent, encodeRfc3986 } from './signing/canonical-query';
export { SCHEME_TAG, bodyHashOf, signRequest, signedMessage } from './signing/sign-request';
export type { HttpMethod, RequestToSign, SignedRequest } from './signing/sign-request';
export { Maker, signPairAuthorization } from './maker';
export type { EnsuredAllowance, MakerDcaStrategy, MakerLimitOrder, MakerWalletOptions } from './maker';
export { DEFAULT_FEE_BUFFER_BPS, allowanceNeeded } from './allowance';
export type { AllowanceNeeds } from './allowance';
export { numberToBaseUnitsCeil, toBaseUnits } from './amounts';
export {
  DCA_STRATEGY_FINAL_STATUSES,
  LIMIT_ORDER_FINAL_STATUSES,
  TRANSFER_FAILURE_STATUSES,
  TRANSFER_SUCCESS_STATUSES,
  waitForOrder,
  waitForStrategy,
  waitForTransfer,
} from './polling';
export type { PollOptions, TransferOutcome } from './polling';
export { MAX_WEBHOOKS_PER_KEY, WEBHOOK_EVENT_TYPES, Webhooks } from './webhooks';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_HEADERS,
  computeWebhookSignature,
  verifyWebhookSignature,
} from './webhook-signature';
export type {
  VerifyWebhookSignatureInput,
  WebhookBody,
  WebhookHeaderValue,
  WebhookSignatureInput,
} from './webhook-signature';
export { DEFAULT_IDLE_TIMEOUT_MS, SseParser, streamEvents } from './events';
export type { EventStreamConnection, EventStreamOptions, SseMessage } from './events';
export type * from './types';
export type { components, operations, paths } from './generated/api-types';
