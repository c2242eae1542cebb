import type { ParameterizedContext } from 'koa';
import type { ApiState } from '../http/api-state';
import type { RouteDefinition } from '../http/route-definition';
import { SIGNING_HEADERS } from '../../shared/signing/request-signature';
import { API_TITLE } from './api-description';
import { AUTHORIZE_PANEL } from './docs-init-script';
import { assetHref, type StaticAsset } from './static-asset';

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

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Our Authorize panel, above Swagger UI. The inputs have no `name`, so even a form submitted without the script
 * would put nothing in a URL.
 */
const AUTHORIZE_PANEL_HTML = `<section class="tas-authorize" aria-labelledby="tas-authorize-title">
      <h2 id="tas-authorize-title">Authorize</h2>
      <p>Every endpoint except <code>POST /accounts</code> and this documentation is signed. Create an account
        with <code>POST /accounts</code> below, then enter its <code>apiKey</code> (API key ID), its
        <code>secretKey</code> and the account's password (the passphrase). This page then signs each "Try it out"
        request in the browser with WebCrypto: a fresh timestamp and nonce every time, HMAC-SHA256 keyed with the
        secret key, the body sent as the exact canonical JSON that was signed, and the four headers
        <code>${SIGNING_HEADERS.apiKeyId}</code>, <code>${SIGNING_HEADERS.valueInfo}</code>,
        <code>${SIGNING_HEADERS.passphrase}</code> and <code>${SIGNING_HEADERS.signature}</code>.</p>
      <p>The secret key never leaves this page; the passphrase travels in <code>${SIGNING_HEADERS.passphrase}</code>
        as the protocol requires. Both stay in this page's memory only (no storage, no cookies): "Log out" or
        reloading the page forgets them. Without authorization, signed endpoints are sent unsigned and the gateway
        answers 401. The curl commands shown below are unsigned: a signature is made at send time and works once.</p>
      <form id="${AUTHORIZE_PANEL.form}" autocomplete="off">
        <label>API key ID <input id="${AUTHORIZE_PANEL.apiKeyId}" type="text" autocomplete="off" spellcheck="false"></label>
        <label>Secret key <input id="${AUTHORIZE_PANEL.secretKey}" type="password" autocomplete="off"></label>
        <label>Passphrase <input id="${AUTHORIZE_PANEL.passphrase}" type="password" autocomplete="off"></label>
        <button type="submit">Authorize</button>
        <button type="button" id="${AUTHORIZE_PANEL.logout}" disabled>Log out</button>
      </form>
      <p id="${AUTHORIZE_PANEL.status}" role="status" aria-live="polite" data-state="anonymous">Not authorized.</p>
    </section>`;

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
    <link rel="stylesheet" href="${href('docs-page.css')}">
    <link rel="icon" type="image/png" sizes="32x32" href="${href('favicon-32x32.png')}">
    <link rel="icon" type="image/png" sizes="16x16" href="${href('favicon-16x16.png')}">
  </head>
  <body>
    ${AUTHORIZE_PANEL_HTML}
    <div id="swagger-ui" data-spec-url="openapi.json"></div>
    <noscript>This page needs JavaScript. The API description itself is at <a href="openapi.json">openapi.json</a>.</noscript>
    <script src="${href('swagger-ui-bundle.js')}" charset="utf-8"></script>
    <script src="${href('swagger-ui-standalone-preset.js')}" charset="utf-8"></script>
    <script src="${href('docs-signing.js')}" charset="utf-8"></script>
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
        'Public and unsigned. An HTML page (Swagger UI, served entirely by this server) over `GET /openapi.json`. ' +
        'Its Authorize panel takes the API key ID, secret key and passphrase (kept in the page’s memory only) and ' +
        'signs every "Try it out" request in the browser (WebCrypto; https or localhost).',
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
