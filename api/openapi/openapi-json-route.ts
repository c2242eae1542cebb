import { createHash } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import type { ApiState } from '../http/api-state';
import type { RouteDefinition } from '../http/route-definition';

/**
 * GET /openapi.json: the document as raw JSON (no envelope). `document` is read per request because the
 * document describes this route too, so it is built after the route exists; it is serialized once per app.
 */
export function openApiJsonRoute(document: () => string): RouteDefinition {
  let served: { body: Buffer; etag: string } | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    doc: {
      tag: 'Documentation',
      summary: 'This OpenAPI 3.0.3 document',
      description: 'Public and unsigned. The raw document, not the envelope.',
      response: { type: 'object', description: 'An OpenAPI 3.0.3 document' },
      rawContentType: 'application/json',
    },
    raw(ctx: ParameterizedContext<ApiState>) {
      if (!served) {
        const body = Buffer.from(document(), 'utf8');
        served = { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` };
      }
      ctx.status = 200;
      ctx.type = 'application/json; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.etag = served.etag;
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      ctx.body = served.body;
    },
  };
}
