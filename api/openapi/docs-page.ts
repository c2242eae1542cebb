import type { ParameterizedContext } from 'koa';
import type { ApiState } from '../http/api-state';
import type { RouteDefinition } from '../http/route-definition';
import { API_TITLE } from './api-description';
import { assetHref, staticAsset, type StaticAsset } from './static-asset';

/**
 * Starts Swagger UI. It lives in its own file rather than inline so the page runs under `script-src 'self'`.
 * The spec URL comes from the page (relative), so the page works behind any path prefix; `validatorUrl: null`
 * keeps Swagger UI from sending the document to its public validator.
 */
const INIT_SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: new URL(root.getAttribute('data-spec-url'), window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
})();
`;

/**
 * Swagger UI sets inline style attributes and uses data: images in its CSS; everything else comes from this
 * server, and the page may not be framed.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function docsInitScript(): StaticAsset {
  return staticAsset('docs-init.js', 'text/javascript; charset=utf-8', Buffer.from(INIT_SCRIPT, 'utf8'));
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The page links every asset relative to itself (`/api/v1/docs` → `/api/v1/docs/assets/...`). */
export function docsHtml(assets: readonly StaticAsset[]): string {
  const href = (file: string): string => {
    const asset = assets.find((a) => a.file === file);
    if (!asset) throw new Error(`The docs page needs the asset ${file}`);
    return escapeHtml(assetHref(asset));
  };
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(API_TITLE)}</title>
    <link rel="stylesheet" href="${href('swagger-ui.css')}">
    <link rel="stylesheet" href="${href('index.css')}">
    <link rel="icon" type="image/png" sizes="32x32" href="${href('favicon-32x32.png')}">
    <link rel="icon" type="image/png" sizes="16x16" href="${href('favicon-16x16.png')}">
  </head>
  <body>
    <div id="swagger-ui" data-spec-url="openapi.json"></div>
    <noscript>This page needs JavaScript. The API description itself is at <a href="openapi.json">openapi.json</a>.</noscript>
    <script src="${href('swagger-ui-bundle.js')}" charset="utf-8"></script>
    <script src="${href('swagger-ui-standalone-preset.js')}" charset="utf-8"></script>
    <script src="${href('docs-init.js')}" charset="utf-8"></script>
  </body>
</html>
`;
}

export function docsPageRoute(html: string): RouteDefinition {
  const body = Buffer.from(html, 'utf8');
  return {
    method: 'GET',
    path: '/docs',
    auth: 'public',
    doc: {
      tag: 'Documentation',
      summary: 'Interactive documentation page',
      description:
        'Public and unsigned. An HTML page (Swagger UI, served entirely by this server) over `GET /openapi.json`.',
      response: { type: 'string' },
      rawContentType: 'text/html',
    },
    raw(ctx: ParameterizedContext<ApiState>) {
      ctx.status = 200;
      ctx.type = 'text/html; charset=utf-8';
      // The page names asset versions, so it must be revalidated to pick up new ones.
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.body = body;
    },
  };
}
