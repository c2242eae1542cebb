import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { ApiState } from '../http/api-state';
import { GatewayError, payloadTooLarge } from './gateway-error';

const EMPTY = Buffer.alloc(0);

/** Reads the raw body once, refusing more than `limitBytes` with the gateway's bare 413. */
export function readBody(limitBytes: number): Middleware<ApiState> {
  const read: Middleware<ApiState> = async (ctx, next) => {
    try {
      ctx.state.rawBody = await getRawBody(ctx.req, { limit: limitBytes });
    } catch (err) {
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large') throw payloadTooLarge();
      throw new GatewayError(400, 'Bad Request');
    }
    await next();
  };
  return (ctx, next) => {
    const headers = ctx.request.headers;
    const declared = Number(headers['content-length'] ?? '0');
    if (declared > limitBytes) return Promise.reject(payloadTooLarge());
    // Without a length or a chunked encoding an HTTP/1.1 request has no body: most GETs skip the stream reader.
    if (declared === 0 && headers['transfer-encoding'] === undefined) {
      ctx.state.rawBody = EMPTY;
      return next();
    }
    return read(ctx, next);
  };
}
