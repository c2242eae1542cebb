import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { ParameterizedContext } from 'koa';
import type { ApiState } from '../http/api-state';
import type { RouteDefinition } from '../http/route-definition';

/** One file the docs page loads, held in memory for the life of the app. */
export interface StaticAsset {
  /** File name under `/docs/assets/`. */
  file: string;
  contentType: string;
  body: Buffer;
  /** Content hash: the page links `?v=<version>`, so a linked URL never changes content and can be cached for good. */
  version: string;
}

export const ASSETS_PATH = '/docs/assets';

/** Below this size compressing costs more than it saves. */
const GZIP_MIN_BYTES = 1024;
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function staticAsset(file: string, contentType: string, body: Buffer): StaticAsset {
  return { file, contentType, body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** `docs/assets/<file>?v=<version>`, relative to the docs page so it works behind any path prefix. */
export const assetHref = (asset: StaticAsset): string =>
  `${ASSETS_PATH.slice(1)}/${asset.file}?v=${asset.version}`;

/**
 * A public GET route answering the asset itself. A URL carrying the current version is cached for a year; any
 * other URL must revalidate (ETag), so an old bookmark never pins stale content. Gzip when the client takes it.
 */
export function staticAssetRoute(asset: StaticAsset): RouteDefinition {
  const etag = `"${asset.version}"`;
  let gzipped: Buffer | undefined;
  return {
    method: 'GET',
    path: `${ASSETS_PATH}/${asset.file}`,
    auth: 'public',
    doc: {
      tag: 'Documentation',
      summary: `Asset of the docs page: ${asset.file}`,
      rawContentType: asset.contentType,
    },
    raw(ctx: ParameterizedContext<ApiState>) {
      ctx.status = 200;
      ctx.type = asset.contentType;
      ctx.set('Cache-Control', ctx.query.v === asset.version ? IMMUTABLE : 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.vary('Accept-Encoding');
      ctx.etag = etag;
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      if (asset.body.length >= GZIP_MIN_BYTES && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        gzipped ??= gzipSync(asset.body);
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = gzipped;
        return;
      }
      ctx.body = asset.body;
    },
  };
}
