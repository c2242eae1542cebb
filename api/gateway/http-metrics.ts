import type { Middleware } from 'koa';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../service/api-state';

/** Counts and times every request by route template (never the raw path: ids would explode the label set). */
export function httpMetrics(metrics: ApiMetrics): Middleware<ApiState> {
  return async (ctx, next) => {
    const end = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const labels = {
        route: ctx.state.routeTemplate ?? 'unmatched',
        method: ctx.method,
        status: String(ctx.status),
      };
      end(labels);
      metrics.httpRequests.inc(labels);
    }
  };
}
