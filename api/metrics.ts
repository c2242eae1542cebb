import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tas_api_' });
  }
}
