import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { StoreMetrics } from '../shared/metrics/store-metrics';
import { WebhookMetrics } from '../shared/metrics/webhook-metrics';
import type { AuthFailure } from './gateway/account-authenticator';

/** Why the gateway refused a signed request: the authenticator's verdicts, a missing header, or a store outage. */
export const AUTH_FAILURE_REASONS = [
  'missing-header',
  'unavailable',
  'malformed',
  'timestamp',
  'nonce-format',
  'account',
  'passphrase',
  'signature',
  'replay',
] as const satisfies readonly (AuthFailure | 'missing-header' | 'unavailable')[];

/**
 * The statuses a route's request series start with (at 0): the spec's answers (200, 400, 404, 409, 422, 500), the
 * gateway's (401, 413, 429) and the timeout's (503). Another status starts its series at its first request.
 */
export const INITIAL_HTTP_STATUSES = [
  '200',
  '400',
  '401',
  '404',
  '409',
  '413',
  '422',
  '429',
  '500',
  '503',
] as const;

/** Every metric of the api process, on one registry served by the admin port. */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'tas_api_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'tas_api_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'tas_api_auth_failures_total',
    help: 'Signed requests refused by the gateway, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'tas_api_rate_limited_total',
    help: 'Requests answered 429 by the gateway',
    registers: [this.registry],
  });
  readonly rateLimitFallbacks = new Counter({
    name: 'tas_api_rate_limit_fallbacks_total',
    help: 'Rate-limit checks answered by in-process buckets because Redis did not answer',
    registers: [this.registry],
  });
  readonly unhandledErrors = new Counter({
    name: 'tas_api_unhandled_errors_total',
    help: 'Errors that reached the catch-all handler (answered 500)',
    registers: [this.registry],
  });
  /** `tas_api_store_up` and the store's outages, driven by the api's StoreWatch. */
  readonly store = new StoreMetrics(this.registry, 'tas_api_');
  readonly webhooks = new WebhookMetrics(this.registry, 'tas_api_');

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tas_api_' });
    // Series exist at 0 before their first event, so `increase()` counts that event and panels read 0, not "No data".
    for (const reason of AUTH_FAILURE_REASONS) this.authFailures.inc({ reason }, 0);
  }

  /**
   * Starts a served route's request counts at 0 for the statuses it may answer, so the first 500 (or 404) of a
   * route counts in `increase()` and the 5xx ratio reads 0 rather than nothing. The duration histogram starts with
   * the route's first request: its buckets would multiply the series for no panel's sake.
   */
  initRoute(route: string, method: string): void {
    for (const status of INITIAL_HTTP_STATUSES) this.httpRequests.inc({ route, method, status }, 0);
  }
}
