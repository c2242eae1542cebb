import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../http/api-state';
import { tooManyRequests } from './gateway-error';
import type { RateLimiter } from './rate-limiter';

/** 429 with Retry-After once a client has spent its budget. */
function limitBy(
  limiter: RateLimiter,
  metrics: ApiMetrics,
  clientOf: (ctx: ParameterizedContext<ApiState>) => string,
): Middleware<ApiState> {
  const passOrRefuse = (retryAfter: number, next: Next): Promise<unknown> => {
    if (retryAfter > 0) {
      metrics.rateLimited.inc();
      throw tooManyRequests(retryAfter);
    }
    return next();
  };
  return (ctx, next) => {
    const key = clientOf(ctx);
    if (limiter.now) return passOrRefuse(limiter.now.take(key), next);
    return limiter.take(key).then((retryAfter) => passOrRefuse(retryAfter, next));
  };
}

/** Per client IP, on every route and before authentication: refused or not, each request costs its IP a token. */
export function limitPerIp(limiter: RateLimiter, metrics: ApiMetrics): Middleware<ApiState> {
  return limitBy(limiter, metrics, (ctx) => `ip:${ctx.ip}`);
}

/**
 * Per API key, after authentication: only a request the key really signed spends its budget, so nobody can use
 * up another key's budget by sending its key id.
 */
export function limitPerKey(limiter: RateLimiter, metrics: ApiMetrics): Middleware<ApiState> {
  return limitBy(limiter, metrics, (ctx) => {
    if (!ctx.state.auth) throw new Error('the per-key rate limit runs after authentication');
    return `key:${ctx.state.auth.apiKey}`;
  });
}
