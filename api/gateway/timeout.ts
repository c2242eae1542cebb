import type { Middleware } from 'koa';
import type { ApiState } from '../http/api-state';
import { serviceUnavailable } from './gateway-error';

/** A request still running after `timeoutMs` gets the gateway's 503; its late result is discarded. */
export function gatewayTimeout(timeoutMs: number): Middleware<ApiState> {
  return async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const work = next().then(() => 'done' as const);
    try {
      const outcome = await Promise.race([work, expired]);
      if (outcome === 'timeout') {
        // The handler keeps running; log what it ends with, since nobody else will see it.
        work.catch((err: unknown) => ctx.state.log.warn({ err }, 'request failed after the gateway timeout'));
        throw serviceUnavailable();
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
