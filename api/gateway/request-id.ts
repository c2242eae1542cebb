import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/log/create-logger';
import type { ApiState } from '../service/api-state';

export const REQUEST_ID_HEADER = 'apigw-requestid';

/** Gives every request a unique id, on the response header and on the request's logger. */
export function requestId(log: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    const id = randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ requestId: id });
    ctx.set(REQUEST_ID_HEADER, id);
    await next();
  };
}
