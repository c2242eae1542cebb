import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/log/create-logger';
import type { ApiState } from '../http/api-state';

export const REQUEST_ID_HEADER = 'apigw-requestid';

/** Gives every request a unique id, on the response header and on the request's logger. */
export function requestId(log: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    const id = randomUUID();
    ctx.state.requestId = id;
    // Most requests log nothing beyond the access line, and a pino child costs more than a cached read: build the
    // request's logger on first use, bound to the request id and, once authenticated, the API key id.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () =>
        (child ??= log.child({
          requestId: id,
          ...(ctx.state.auth ? { apiKeyId: ctx.state.auth.apiKey } : {}),
        })),
      set: (replacement: Logger) => {
        child = replacement;
      },
    });
    ctx.set(REQUEST_ID_HEADER, id);
    await next();
  };
}
