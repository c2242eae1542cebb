import Koa, { type Middleware } from 'koa';
import type { Logger } from '../shared/log/create-logger';
import type { StoreWatch } from '../shared/store/store-watch';
import type { AccountAuthenticator } from './gateway/account-authenticator';
import { gatewayErrorRenderer } from './gateway/gateway-errors';
import { requestObserver } from './gateway/observe-requests';
import type { RateLimiter } from './gateway/rate-limiter';
import type { RedisSignedGate } from './gateway/redis-signed-gate';
import { startRequest } from './gateway/request-id';
import { RequestDeadlines } from './gateway/timeout';
import type { ApiMetrics } from './metrics';
import type { ApiState } from './http/api-state';
import type { KeyConcurrency } from './http/key-concurrency';
import { mountRoutes } from './http/mount-routes';
import type { RouteDefinition } from './http/route-definition';
import { serviceErrorRenderer } from './http/service-errors';
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
 * Every request's life around the service, in one middleware (one frame per request instead of five): its id, then
 * the access log and metrics of whatever it ends with, the gateway's bare answers (and a bare 500 for anything
 * else that escapes), the gateway timeout, and inside all of them the service's errors rendered in the envelope.
 */
function requestLifecycle(deps: AppDeps): Middleware<ApiState> {
  const observe = requestObserver(deps.metrics, deps.log);
  const gatewayError = gatewayErrorRenderer(deps.metrics);
  const serviceError = serviceErrorRenderer(deps.metrics, deps.storeWatch);
  const deadlines = new RequestDeadlines(deps.gatewayTimeoutMs);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    startRequest(ctx, deps.log);
    try {
      const work = next().catch((err: unknown) => serviceError(ctx, err));
      // The handler keeps running after the timeout; what it fails with then is logged, since nobody else sees it.
      await deadlines.within(work, (err) =>
        ctx.state.log.warn({ err }, 'request failed after the gateway timeout'),
      );
    } catch (err) {
      gatewayError(ctx, err);
    } finally {
      observe(ctx, started);
    }
  };
}

/**
 * The middleware order is the contract: the gateway (request id, metrics, bare errors, timeout) wraps the
 * service (enveloped errors, routes with their per-route rate limits, auth and body limit, then the 404).
 */
export function createApp(deps: AppDeps): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: false });
  app.silent = true;
  app.use(requestLifecycle(deps));
  for (const middleware of mountRoutes(deps.routes, deps)) app.use(middleware);
  return app;
}
