import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { NotFoundError } from '../../shared/domain/errors';
import type { AccountAuthenticator } from '../gateway/account-authenticator';
import { authenticate, signedGateway } from '../gateway/authenticate';
import { limitPerIp, limitPerKey } from '../gateway/rate-limit';
import type { RateLimiter } from '../gateway/rate-limiter';
import type { RedisSignedGate } from '../gateway/redis-signed-gate';
import { readBody } from '../gateway/read-body';
import type { StoreWatch } from '../../shared/store/store-watch';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from './api-state';
import { successEnvelope } from './envelope';
import type { KeyConcurrency } from './key-concurrency';
import { readRequestBody } from './request-body';
import type { RawQuery, RouteDefinition, RouteRequest } from './route-definition';
import type { AuthContext } from '../gateway/account-authenticator';
import type { Logger } from '../../shared/log/create-logger';
import { routeDispatcher } from './route-dispatch';
import { StreamedList } from './streamed-list';
import { INVALID_BODY, type RequestValidator } from './validator';

export const BASE_PATH = '/api/v1';

export interface MountDeps {
  authenticator: AccountAuthenticator;
  rateLimiter: RateLimiter;
  /** Budget of refused authentication attempts per IP. */
  authFailureLimiter: RateLimiter;
  validator: RequestValidator;
  metrics: ApiMetrics;
  bodyLimitBytes: number;
  /** With Redis: a known client's gateway work in one Redis round trip. */
  oneTrip?: RedisSignedGate;
  /** Places per API key for unpaginated list calls. */
  listConcurrency: KeyConcurrency;
  /** Told of store calls that could not reach the store. */
  storeWatch: Pick<StoreWatch, 'failed'>;
}

/**
 * What a handler gets, its logger built only when asked for. A class, not an object literal with a getter: a literal
 * with an accessor gets a hidden class of its own per request, allocated in the old generation, whose getter holds
 * the request, so every request's objects survived young collections and were promoted (a scavenge 10x longer).
 */
class HandlerRequest implements RouteRequest<unknown> {
  readonly query: RawQuery;
  readonly params: Record<string, string>;
  readonly auth: AuthContext | undefined;
  readonly requestId: string;

  constructor(
    private readonly ctx: ParameterizedContext<ApiState>,
    readonly body: unknown,
  ) {
    this.query = ctx.query;
    this.params = ctx.state.params ?? {};
    this.auth = ctx.state.auth;
    this.requestId = ctx.state.requestId;
  }

  get log(): Logger {
    return this.ctx.state.log;
  }
}

function serve(
  route: RouteDefinition,
  validator: RequestValidator,
  lists: KeyConcurrency,
): Middleware<ApiState> {
  const takesBody = (route.method === 'POST' || route.method === 'PATCH') && route.body !== undefined;
  return async (ctx) => {
    if (route.raw) {
      await route.raw(ctx);
      return;
    }
    // Held until the response is written or the client is gone, not merely until the handler returns.
    const release = route.list && ctx.state.auth ? await lists.acquire(ctx.state.auth.apiKey) : undefined;
    if (release) {
      // Answered meanwhile (the gateway timeout) or the client left: nobody will read this list.
      if (ctx.res.closed) return release();
      ctx.res.once('close', release);
    }
    try {
      await respond(ctx);
    } catch (err) {
      release?.();
      throw err;
    }
  };

  async function respond(ctx: ParameterizedContext<ApiState>): Promise<void> {
    const parsed = readRequestBody({
      method: ctx.method,
      contentType: ctx.request.headers['content-type'],
      raw: ctx.state.rawBody ?? Buffer.alloc(0),
      auth: ctx.state.auth,
      takesBody,
    });
    const body = route.body
      ? validator.assert(route.body, parsed, route.bodyError ?? INVALID_BODY)
      : undefined;
    const data = await route.handle!(new HandlerRequest(ctx, body));
    ctx.status = 200;
    if (data instanceof StreamedList) {
      ctx.type = 'application/json';
      ctx.body = data.body(successEnvelope(ctx.state, undefined));
    } else {
      ctx.body = successEnvelope(ctx.state, data);
    }
  }
}

/**
 * One router for every served route: gateway checks per route (IP rate limit, then on signed routes authentication
 * and the key's rate limit, then the body limit), then the handler.
 */
export function mountRoutes(routes: RouteDefinition[], deps: MountDeps): Middleware<ApiState>[] {
  const router = new Router<ApiState>({ prefix: BASE_PATH, sensitive: true, strict: true });
  const auth = authenticate(deps.authenticator, deps.metrics, deps.authFailureLimiter, deps.storeWatch);
  const perIp = limitPerIp(deps.rateLimiter, deps.metrics);
  const perKey = limitPerKey(deps.rateLimiter, deps.metrics);
  const body = readBody(deps.bodyLimitBytes);
  const signedGate = signedGateway({
    authenticator: deps.authenticator,
    metrics: deps.metrics,
    perIp,
    auth,
    perKey,
    failures: deps.authFailureLimiter,
    oneTrip: deps.oneTrip,
  });
  // A documented endpoint not served yet has neither: it stays in /openapi.json and answers 404 like any path.
  for (const route of routes.filter((r) => r.handle || r.raw)) {
    const template = `${BASE_PATH}${route.path}`;
    // Each route's request counters exist at 0 from the start: the first request of a status is counted.
    deps.metrics.initRoute(template, route.method);
    const tag: Middleware<ApiState> = (ctx, next) => {
      ctx.state.routeTemplate = template;
      return next();
    };
    // The IP's budget before authentication, so a flood of bad signatures costs no more than any flood; the key's
    // after it, so only requests the key really signed spend its budget.
    const chain = route.auth === 'signed' ? [tag, signedGate, body] : [tag, perIp, body];
    router.register(
      route.path,
      [route.method],
      [...chain, serve(route, deps.validator, deps.listConcurrency)],
    );
  }
  const notFound: Middleware<ApiState> = async (ctx) => {
    throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}`);
  };
  return [routeDispatcher(router), notFound];
}
