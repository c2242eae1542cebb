import type { ParameterizedContext } from 'koa';
import type { Logger } from '../../shared/log/create-logger';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../http/api-state';

/**
 * One access-log line and the request metrics per request, by route template (never the raw path: ids would
 * explode the label set and put resource ids in metrics). Called once the request's answer is set, with the
 * `process.hrtime.bigint()` it started at.
 */
export function requestObserver(
  metrics: ApiMetrics,
  log: Logger,
): (ctx: ParameterizedContext<ApiState>, started: bigint) => void {
  return (ctx, started) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const labels = {
      route: ctx.state.routeTemplate ?? 'unmatched',
      method: ctx.method,
      status: String(ctx.status),
    };
    metrics.httpDuration.observe(labels, seconds);
    metrics.httpRequests.inc(labels);
    if (log.isLevelEnabled('info')) {
      log.info(
        {
          requestId: ctx.state.requestId,
          apiKeyId: ctx.state.auth?.apiKey,
          ...labels,
          path: ctx.path,
          ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
    }
  };
}
