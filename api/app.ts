import Koa from 'koa';
import type { Logger } from '../shared/log/create-logger';
import type { StoreWatch } from '../shared/store/store-watch';
import type { AccountAuthenticator } from './gateway/account-authenticator';
import { gatewayErrors } from './gateway/gateway-errors';
import { observeRequests } from './gateway/observe-requests';
import type { RateLimiter } from './gateway/rate-limiter';
import type { RedisSignedGate } from './gateway/redis-signed-gate';
import { requestId } from './gateway/request-id';
import { gatewayTimeout } from './gateway/timeout';
import type { ApiMetrics } from './metrics';
import type { ApiState } from './http/api-state';
import type { KeyConcurrency } from './http/key-concurrency';
import { mountRoutes } from './http/mount-routes';
import type { RouteDefinition } from './http/route-definition';
import { serviceErrors } from './http/service-errors';
import type { RequestValidator } from './http/validator';

export interface AppDeps {
  log: Logger;
  metrics: ApiMetrics;
  authenticator: AccountAuthenticator;
  rateLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  /** With Redis: a known client's gateway work in one Redis round trip. */
  oneTrip?: RedisSignedGate;
  validator: RequestValidator;
  routes: RouteDefinition[];
  bodyLimitBytes: number;
  gatewayTimeoutMs: number;
  listConcurrency: KeyConcurrency;
  /** Told of store calls that could not reach the store: answered 503, logged once per outage. */
  storeWatch: Pick<StoreWatch, 'failed'>;
}

/**
 * The middleware order is the contract: the gateway (request id, metrics, bare errors, timeout) wraps the
 * service (enveloped errors, routes with their per-route rate limits, auth and body limit, then the 404).
 */
export function createApp(deps: AppDeps): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: false });
  app.silent = true;
  app.use(requestId(deps.log));
  app.use(observeRequests(deps.metrics, deps.log));
  app.use(gatewayErrors(deps.metrics));
  app.use(gatewayTimeout(deps.gatewayTimeoutMs));
  app.use(serviceErrors(deps.metrics, deps.storeWatch));
  for (const middleware of mountRoutes(deps.routes, deps)) app.use(middleware);
  return app;
}
