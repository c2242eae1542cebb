import type { Middleware } from 'koa';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../service/api-state';
import { tooManyRequests } from './gateway-error';
import type { RateLimiter } from './rate-limiter';

/** 429 with Retry-After once a client exceeds its budget: per API key after authentication, per IP before it. */
export function rateLimit(limiter: RateLimiter, metrics: ApiMetrics): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.auth ? `key:${ctx.state.auth.apiKey}` : `ip:${ctx.ip}`;
    const retryAfter = limiter.take(key);
    if (retryAfter > 0) {
      metrics.rateLimited.inc();
      throw tooManyRequests(retryAfter);
    }
    await next();
  };
}
