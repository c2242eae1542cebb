import { webcrypto } from 'node:crypto';
import vm from 'node:vm';
import { DOCS_SIGNING_GLOBAL } from '../../api/openapi/docs-signing-script';
import { canonicalJson } from '../../shared/signing/canonical-json';
import { decodeValueInfo } from '../../shared/signing/request-signature';
import { createAccount } from '../factories/accounts';
import { rawRequest, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

interface OpenApiLike {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
}

const CONTENT_TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  png: 'image/png',
};

/** fetch adds `Cache-Control: no-cache` to conditional requests (forcing a full answer) unless one is given. */
const REVALIDATE = 'max-age=0';

/** The part of the served docs-signing.js these tests call. */
interface DocsSigning {
  signRequest(
    credentials: { apiKeyId: string; secretKey: string; passphrase: string },
    request: { method: string; url: string; bodyText?: string },
  ): Promise<{ headers: Record<string, string>; body?: string }>;
}

/** Runs the script as served in a context offering only what a page has: WebCrypto, text codecs, btoa, URL. */
function runServedSigningScript(source: string): DocsSigning {
  const sandbox: Record<string, unknown> = { crypto: webcrypto, TextEncoder, TextDecoder, btoa, URL };
  vm.runInNewContext(source, sandbox);
  const api = sandbox[DOCS_SIGNING_GLOBAL];
  if (typeof api !== 'object' || api === null)
    throw new Error(`the script defines no ${DOCS_SIGNING_GLOBAL}`);
  return api as DocsSigning;
}

/** Every `src` and `href` attribute of the page. */
const linksOf = (html: string): string[] => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);

describeEachStore('documentation routes', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let origin: string;
  let docsUrl: string;

  beforeAll(async () => {
    running = await startApiOn(kind);
    origin = new URL(running.baseUrl).origin;
    docsUrl = `${running.baseUrl}/docs`;
  });
  afterAll(async () => running?.close());

  it('serves the raw OpenAPI document without any header', async () => {
    const res = await rawRequest<OpenApiLike>(running.baseUrl, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('apigw-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.openapi).toBe('3.0.3');
    expect(res.body.info.version).toBe('1.0.0');
    expect(res.body.info.title).toBe('Trade Aggregation Service API');
    expect(res.body.servers).toEqual([{ url: '/api/v1' }]);
    // Not the envelope.
    expect(Object.keys(res.body)).not.toContain('success');
    expect(Object.keys(res.body)).not.toContain('meta');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/accounts',
        '/quotes',
        '/swap',
        '/tx-status',
        '/transactions/{hash}',
        '/openapi.json',
        '/docs',
      ]),
    );
  });

  it('answers the same bytes every time and honours If-None-Match', async () => {
    const first = await rawRequest(running.baseUrl, 'GET', '/openapi.json');
    const second = await rawRequest(running.baseUrl, 'GET', '/openapi.json');
    expect(second.text).toBe(first.text);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(second.headers.get('etag')).toBe(etag);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const revalidated = await rawRequest(running.baseUrl, 'GET', '/openapi.json', {
      headers: { 'if-none-match': etag!, 'cache-control': REVALIDATE },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
  });

  it('ignores signing headers on the public routes', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-api-key-id': 'not-a-key',
      'x-value-info': 'garbage',
      'x-passphrase': 'wrong',
      'x-signature': 'bad',
    };
    for (const path of ['/openapi.json', '/docs']) {
      const res = await rawRequest(running.baseUrl, 'GET', path, { headers });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
  });

  it('serves an HTML page that loads everything from this server', async () => {
    const res = await rawRequest(running.baseUrl, 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');

    const html = res.text;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('data-spec-url="openapi.json"');
    const foreign = (html.match(/https?:\/\/[^\s"'<>]+/g) ?? []).filter(
      (url) => new URL(url).origin !== origin,
    );
    expect(foreign).toEqual([]);
    // No inline script: every script has a src.
    expect(html.match(/<script\b[^>]*>/g)?.every((tag) => /\bsrc="/.test(tag))).toBe(true);

    const links = linksOf(html);
    const assets = links.filter((l) => l !== 'openapi.json');
    expect(assets.map((l) => l.replace(/\?v=[0-9a-f]{16}$/, ''))).toEqual([
      'docs/assets/swagger-ui.css',
      'docs/assets/index.css',
      'docs/assets/docs-page.css',
      'docs/assets/favicon-32x32.png',
      'docs/assets/favicon-16x16.png',
      'docs/assets/swagger-ui-bundle.js',
      'docs/assets/swagger-ui-standalone-preset.js',
      'docs/assets/docs-signing.js',
      'docs/assets/docs-init.js',
    ]);
    // Relative links resolve under the api's base path.
    for (const link of assets) expect(new URL(link, docsUrl).pathname).toMatch(/^\/api\/v1\/docs\/assets\//);
  });

  it('serves every asset the page links, with its content type and long-lived caching', async () => {
    const page = await rawRequest(running.baseUrl, 'GET', '/docs');
    for (const link of linksOf(page.text).filter((l) => l.startsWith('docs/assets/'))) {
      const url = new URL(link, docsUrl);
      const res = await fetch(url);
      const body = Buffer.from(await res.arrayBuffer());
      const ext = url.pathname.split('.').pop()!;
      expect({ link, status: res.status, type: res.headers.get('content-type') }).toEqual({
        link,
        status: 200,
        type: CONTENT_TYPES[ext],
      });
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('etag')).toBe(`"${url.searchParams.get('v')}"`);
      expect(body.length).toBeGreaterThan(100);
      if (ext === 'png') expect(body.subarray(1, 4).toString('latin1')).toBe('PNG');
    }
  });

  it('puts the Authorize panel above Swagger UI: password inputs without names, and says what it does', async () => {
    const html = (await rawRequest(running.baseUrl, 'GET', '/docs')).text;
    expect(html.indexOf('id="tas-authorize-form"')).toBeLessThan(html.indexOf('id="swagger-ui"'));
    const inputs = html.match(/<input\b[^>]*>/g) ?? [];
    expect(inputs.map((tag) => /\bid="([^"]+)"/.exec(tag)?.[1])).toEqual([
      'tas-api-key-id',
      'tas-secret-key',
      'tas-passphrase',
    ]);
    expect(inputs.map((tag) => /\btype="([^"]+)"/.exec(tag)?.[1])).toEqual(['text', 'password', 'password']);
    // Without a name an input is never submitted, so no key can end up in a URL.
    expect(inputs.filter((tag) => /\bname=/.test(tag))).toEqual([]);
    expect(html).toContain('<button type="submit">Authorize</button>');
    expect(html).toContain('id="tas-logout" disabled>Log out</button>');
    expect(html).toContain("Both stay in this page's memory only (no storage, no cookies)");
  });

  it('starts Swagger UI from a local script that points at ./openapi.json and at no validator', async () => {
    const res = await rawRequest(running.baseUrl, 'GET', '/docs/assets/docs-init.js');
    expect(res.status).toBe(200);
    expect(res.text).toContain("root.getAttribute('data-spec-url')");
    expect(res.text).toContain('validatorUrl: null');
    expect(res.text).toContain('showMutatedRequest: false');
    expect(res.text).toContain('requestInterceptor: function (request)');
    // The credentials live in the script's closure only.
    expect(res.text).not.toMatch(/localStorage|sessionStorage|document\.cookie|indexedDB/);
    expect(res.text).not.toMatch(/https?:\/\//);
    const bundle = await rawRequest(running.baseUrl, 'GET', '/docs/assets/swagger-ui-bundle.js');
    expect(bundle.text).toContain('SwaggerUIBundle');
  });

  it('makes an unversioned asset URL revalidate, answers 304 to a matching ETag and compresses large files', async () => {
    const plain = await fetch(`${running.baseUrl}/docs/assets/swagger-ui.css`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    const etag = plain.headers.get('etag')!;
    const css = await plain.text();
    expect(css).toContain('.swagger-ui');
    expect(css).not.toContain('sourceMappingURL');

    const again = await fetch(`${running.baseUrl}/docs/assets/swagger-ui.css`, {
      headers: { 'if-none-match': etag, 'cache-control': REVALIDATE },
    });
    expect(again.status).toBe(304);

    const gzipped = await fetch(`${running.baseUrl}/docs/assets/swagger-ui.css`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(await gzipped.text()).toBe(css);

    const identity = await rawRequest(running.baseUrl, 'GET', '/docs/assets/swagger-ui.css', {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(identity.text).toBe(css);
  });

  it('answers an unknown asset or a trailing slash with the enveloped 404', async () => {
    for (const path of ['/docs/assets/nope.js', '/docs/', '/docs/assets/swagger-ui-bundle.js.map']) {
      const res = await rawRequest<Envelope>(running.baseUrl, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({
        code: 'NOT_FOUND',
        message: `No route for GET /api/v1${path}`,
        details: [],
      });
      expect(res.body.meta).toEqual({ requestId: res.headers.get('apigw-requestid'), version: 'v1' });
    }
  });

  it('answers a method the documentation routes do not support with 404', async () => {
    const res = await rawRequest<Envelope>(running.baseUrl, 'POST', '/openapi.json', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(res.body.error?.message).toBe('No route for POST /api/v1/openapi.json');
  });
});

describeEachStore('the docs page signing script against the server', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let script: DocsSigning;
  let credentials: { apiKeyId: string; secretKey: string; passphrase: string };

  beforeAll(async () => {
    running = await startApiOn(kind);
    // The bytes the page runs, fetched as the browser does.
    const served = await rawRequest(running.baseUrl, 'GET', '/docs/assets/docs-signing.js');
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    script = runServedSigningScript(served.text);
    const account = await createAccount(running.baseUrl);
    credentials = { apiKeyId: account.apiKey, secretKey: account.secretKey, passphrase: account.passphrase };
  });
  afterAll(async () => running?.close());

  const send = async (method: string, pathAndQuery: string, bodyText?: string) => {
    const signed = await script.signRequest(credentials, {
      method,
      url: `${running.baseUrl}${pathAndQuery}`,
      bodyText,
    });
    const res = await rawRequest<Envelope>(running.baseUrl, method, pathAndQuery, {
      headers: signed.headers,
      body: signed.body,
    });
    return { signed, res };
  };

  it('signs a GET with an unsorted query that the server accepts', async () => {
    const { signed, res } = await send('GET', '/limit-order?status=pending&chainId=1');
    expect(signed.body).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [],
      meta: {
        requestId: res.headers.get('apigw-requestid'),
        version: 'v1',
        accountType: 'integrator',
        apiKeyId: credentials.apiKeyId,
      },
    });
  });

  it('signs a query with characters to encode as the server reads it', async () => {
    // Spaces, !'()* and raw non-ASCII: the URL parser and the canonical query each encode them their own way.
    const { res } = await send('GET', "/limit-order?status=pend ing*!'()&chainId=1&note=é%7E+x");
    expect({ status: res.status, data: res.body.data, key: res.body.meta?.apiKeyId }).toEqual({
      status: 200,
      data: [],
      key: credentials.apiKeyId,
    });
  });

  it('signs a POST with nested unsorted keys and unicode, sending the exact canonical bytes it signed', async () => {
    const body = { zeta: { b: 'üñí€😀 漢字', a: [2, { y: 1, x: 'ß' }] }, chainId: 1, Alpha: [1e21, 1e-7] };
    const { signed, res } = await send('POST', '/support-chain', JSON.stringify(body, null, 2));
    expect(signed.body).toBe(canonicalJson(body));
    expect(signed.body).toBe(
      '{"Alpha":[1e+21,1e-7],"chainId":1,"zeta":{"a":[2,{"x":"ß","y":1}],"b":"üñí€😀 漢字"}}',
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toBe(true);
    expect(res.body.meta.apiKeyId).toBe(credentials.apiKeyId);
  });

  it('makes headers that work once: the same request sent again is refused', async () => {
    const { signed, res } = await send('POST', '/support-chain', '{"chainId":1}');
    expect(res.status).toBe(200);
    const again = await rawRequest(running.baseUrl, 'POST', '/support-chain', {
      headers: signed.headers,
      body: signed.body,
    });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ message: 'Forbidden' });
    const next = await send('POST', '/support-chain', '{"chainId":1}');
    expect(next.res.status).toBe(200);
    expect(decodeValueInfo(next.signed.headers['x-value-info']!)?.nonce).not.toBe(
      decodeValueInfo(signed.headers['x-value-info']!)?.nonce,
    );
  });

  it('sends a body that is not JSON as typed, signed, so the service says it is not JSON', async () => {
    const { signed, res } = await send('POST', '/support-chain', '{"chainId": 1,');
    expect(signed.body).toBe('{"chainId": 1,');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'Invalid JSON body', details: [] });
  });
});

describeEachStore('documentation routes under the rate limit', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;

  beforeAll(async () => {
    running = await startApiOn(kind, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  });
  afterAll(async () => running?.close());

  it('counts against the same per-client budget as every public route', async () => {
    expect((await rawRequest(running.baseUrl, 'GET', '/openapi.json')).status).toBe(200);
    expect((await rawRequest(running.baseUrl, 'GET', '/docs')).status).toBe(200);
    const limited = await rawRequest(running.baseUrl, 'GET', '/docs/assets/docs-init.js');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
