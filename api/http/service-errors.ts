import type { ParameterizedContext } from 'koa';
import { INTERNAL_ERROR_MESSAGE, ServiceError } from '../../shared/domain/errors';
import type { StoreWatch } from '../../shared/store/store-watch';
import { GatewayError, storeUnavailable } from '../gateway/gateway-error';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from './api-state';
import { errorEnvelope } from './envelope';

/**
 * Renders an error raised inside the service in the envelope. Gateway errors are thrown on to the gateway's
 * renderer; a store that could not be reached is the gateway's 503 with `Retry-After` (the request was fine and can
 * be sent again); anything else unexpected becomes INTERNAL_ERROR, logged with the request id, details withheld.
 */
export function serviceErrorRenderer(
  metrics: ApiMetrics,
  store: Pick<StoreWatch, 'failed'>,
): (ctx: ParameterizedContext<ApiState>, err: unknown) => void {
  return (ctx, err) => {
    if (err instanceof GatewayError) throw err;
    if (store.failed(err)) throw storeUnavailable();
    if (err instanceof ServiceError) {
      ctx.status = err.status;
      ctx.body = errorEnvelope(ctx.state, err.code, err.message, err.details);
      if (err.status >= 500) ctx.state.log.error({ err }, 'service error');
      return;
    }
    metrics.unhandledErrors.inc();
    ctx.state.log.error({ err }, 'unexpected error');
    ctx.status = 500;
    ctx.body = errorEnvelope(ctx.state, 'INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
  };
}
