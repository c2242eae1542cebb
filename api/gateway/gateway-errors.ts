import type { ParameterizedContext } from 'koa';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../http/api-state';
import { GatewayError } from './gateway-error';

/** Renders gateway answers as the bare `{message}` body; anything else escaping the service is a bare 500. */
export function gatewayErrorRenderer(
  metrics: ApiMetrics,
): (ctx: ParameterizedContext<ApiState>, err: unknown) => void {
  return (ctx, err) => {
    if (err instanceof GatewayError) {
      ctx.status = err.status;
      ctx.set(err.headers);
      ctx.body = { message: err.message };
      return;
    }
    metrics.unhandledErrors.inc();
    ctx.state.log.error({ err }, 'unhandled error outside the service layer');
    ctx.status = 500;
    ctx.body = { message: 'Internal Server Error' };
  };
}
