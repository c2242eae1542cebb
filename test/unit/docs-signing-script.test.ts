import { webcrypto } from 'node:crypto';
import vm from 'node:vm';
import fc from 'fast-check';
import { docsSigningScript, DOCS_SIGNING_GLOBAL } from '../../api/openapi/docs-signing-script';
import { apiDocument } from '../../api/openapi';
import { canonicalJson } from '../../shared/signing/canonical-json';
import { canonicalQuery } from '../../shared/signing/canonical-query';
import {
  EMPTY_BODY_HASH,
  bodyHashOf,
  decodeValueInfo,
  hmacHex,
  signedMessage,
  signRequest as serverSideSign,
} from '../../shared/signing/request-signature';

interface Credentials {
  apiKeyId: string;
  secretKey: string;
  passphrase: string;
}

interface SwaggerRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** What the served docs-signing.js defines (checked loosely below: the script is untyped JavaScript). */
interface DocsSigning {
  canonicalJson(value: unknown): string;
  canonicalQuery(raw: string): string;
  signRequest(
    credentials: Credentials,
    request: { method: string; url: string; bodyText?: string; timestamp?: string; nonce?: string },
  ): Promise<{ headers: Record<string, string>; body?: string }>;
  prepareSwaggerRequest(
    request: SwaggerRequest,
    options: { credentials: Credentials | null; isPublic: IsPublic; baseUrl: string },
  ): Promise<SwaggerRequest>;
  publicOperations(spec: unknown, specUrl: string): IsPublic;
}
type IsPublic = (method: string, url: URL) => boolean;

/** Runs the served bytes in a fresh context that offers only what a browser page has: WebCrypto, text codecs, btoa. */
function loadScript(): DocsSigning {
  const sandbox: Record<string, unknown> = { crypto: webcrypto, TextEncoder, TextDecoder, btoa, URL };
  vm.runInNewContext(docsSigningScript().body.toString('utf8'), sandbox);
  const api = sandbox[DOCS_SIGNING_GLOBAL];
  if (typeof api !== 'object' || api === null)
    throw new Error(`the script defines no ${DOCS_SIGNING_GLOBAL}`);
  return api as DocsSigning;
}

/** The server's own check 2: the HMAC it computes for the request line it receives. */
function serverAccepts(
  secretKey: string,
  headers: Record<string, string>,
  method: string,
  url: URL,
  body: string | undefined,
): boolean {
  const info = decodeValueInfo(headers['x-value-info']!);
  if (!info) return false;
  const expected = hmacHex(
    secretKey,
    signedMessage({
      timestamp: info.timestamp,
      nonce: info.nonce,
      method,
      path: url.pathname,
      query: canonicalQuery(url.search.slice(1)),
      bodyHash: info.bodyHash,
    }),
  );
  const bodyHash = body === undefined ? EMPTY_BODY_HASH : bodyHashOf(canonicalJson(JSON.parse(body)));
  return expected === headers['x-signature'] && bodyHash === info.bodyHash;
}

/** The known-answer vector of request-signature.test.ts (computed outside this code base). */
const VECTOR = {
  credentials: {
    apiKeyId: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b',
    secretKey: 'kP7Qx2mZ9vR4tY8wB3nL6cJ1hF5dS0aE',
    passphrase: 'correct-horse-battery',
  },
  timestamp: '1767225600',
  nonce: '0123456789abcdef01234567',
  url: '/api/v1/limit-order?status=pending&chainId=137',
  bodyText: '{"slippage":"1","amount":"10.5","chainId":137,"nested":{"b":1,"a":[2,1]}}',
  bodyString: '{"amount":"10.5","chainId":137,"nested":{"a":[2,1],"b":1},"slippage":"1"}',
  valueInfo:
    'MTc2NzIyNTYwMAowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1NjcKUWNZUHhleGF5Y05fa05HcmNlQ3hpMVg2WHBadll3d3ViVTVfa2NjQV9qdw==',
  signature: 'e6d02b3436bb30336fbcd8f0a4b0a452d8d28681742e4e2f7b94bac9833e5322',
};

const CREDENTIALS: Credentials = {
  apiKeyId: '7d6f0a52-3c51-4a0e-9a55-2b9f7c1e8d40',
  secretKey: 'Zs1c4QnW7yT0pL9kX2vB5mH8jD3fG6aR',
  passphrase: 'pässwörd with spaces',
};
const ORIGIN = 'http://127.0.0.1:8080';
const DOCS_URL = `${ORIGIN}/api/v1/docs`;
const SPEC_URL = `${ORIGIN}/api/v1/openapi.json`;

describe('docs page signing script (the served docs-signing.js, run on WebCrypto)', () => {
  const script = loadScript();

  it('reproduces the known-answer vector exactly: headers and body bytes', async () => {
    const signed = await script.signRequest(VECTOR.credentials, {
      method: 'post',
      url: VECTOR.url,
      bodyText: VECTOR.bodyText,
      timestamp: VECTOR.timestamp,
      nonce: VECTOR.nonce,
    });
    expect(signed).toEqual({
      body: VECTOR.bodyString,
      headers: {
        'Content-Type': 'application/json',
        'x-api-key-id': VECTOR.credentials.apiKeyId,
        'x-value-info': VECTOR.valueInfo,
        'x-passphrase': VECTOR.credentials.passphrase,
        'x-signature': VECTOR.signature,
      },
    });
  });

  it('signs as the server-side signer does, for GET with a query and POST with nested unsorted keys and unicode', async () => {
    const cases = [
      { method: 'GET', url: '/api/v1/limit-order?status=pending&chainId=1&accountTo=0xAbC&q=a+b%7E*!' },
      { method: 'DELETE', url: '/api/v1/limit-order/5f0c?x=%E2%82%AC' },
      {
        method: 'POST',
        url: '/api/v1/support-chain',
        body: { zeta: { b: 'üñí€😀', a: [3, { y: 1, x: 'ß' }] }, chainId: 1, Alpha: 1e21, small: 1e-7 },
      },
      { method: 'PATCH', url: '/api/v1/limit-order/id-1', body: { price: '1000.5', 'ä-value': null } },
    ];
    for (const c of cases) {
      const timestamp = '1767225601';
      const nonce = 'abcdefabcdefabcdefabcdef';
      const mine = await script.signRequest(CREDENTIALS, {
        method: c.method,
        url: c.url,
        bodyText: c.body === undefined ? undefined : JSON.stringify(c.body, null, 2),
        timestamp,
        nonce,
      });
      const theirs = serverSideSign(
        {
          apiKey: CREDENTIALS.apiKeyId,
          secretKey: CREDENTIALS.secretKey,
          passphrase: CREDENTIALS.passphrase,
        },
        { method: c.method, url: c.url, body: c.body, timestamp, nonce },
      );
      expect({ url: c.url, headers: mine.headers, body: mine.body ?? '' }).toEqual({
        url: c.url,
        headers: {
          'Content-Type': 'application/json',
          'x-api-key-id': theirs.headers['x-api-key-id'],
          'x-value-info': theirs.headers['x-value-info'],
          'x-passphrase': theirs.headers['x-passphrase'],
          'x-signature': theirs.headers['x-signature'],
        },
        body: theirs.bodyString,
      });
    }
  });

  it('writes unicode as raw UTF-8 and keys in UTF-16 code unit order', async () => {
    const signed = await script.signRequest(CREDENTIALS, {
      method: 'POST',
      url: '/api/v1/support-chain',
      bodyText: '{"b":"\\u00e9\\ud83d\\ude00","a":{"z":1,"_":2,"Z":3}}',
    });
    expect(signed.body).toBe('{"a":{"Z":3,"_":2,"z":1},"b":"é😀"}');
    const info = decodeValueInfo(signed.headers['x-value-info']!);
    expect(info?.bodyHash).toBe(bodyHashOf('{"a":{"Z":3,"_":2,"z":1},"b":"é😀"}'));
  });

  it('agrees with the server on canonical JSON and canonical query for arbitrary input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(script.canonicalJson(parsed)).toBe(canonicalJson(parsed));
      }),
      { numRuns: 300 },
    );
    const queryPart = fc.string({
      unit: fc.oneof(
        fc.constantFrom('%', '+', '=', '%zz', '%FF', '%C3', '%A9', '%E2%82', '~', '*', ' ', 'é', '😀', '%7e'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
    });
    fc.assert(
      fc.property(fc.array(queryPart, { maxLength: 5 }), (parts) => {
        const raw = parts.join('&');
        expect(script.canonicalQuery(raw)).toBe(canonicalQuery(raw));
      }),
      { numRuns: 500 },
    );
  });

  it('uses a fresh 24-hex nonce and the current timestamp for every request', async () => {
    const infos = [];
    for (let i = 0; i < 20; i++) {
      const signed = await script.signRequest(CREDENTIALS, { method: 'GET', url: '/api/v1/chains' });
      infos.push(decodeValueInfo(signed.headers['x-value-info']!)!);
    }
    expect(new Set(infos.map((i) => i.nonce)).size).toBe(20);
    for (const info of infos) {
      expect(info.nonce).toMatch(/^[0-9a-f]{24}$/);
      expect(Math.abs(Number(info.timestamp) - Date.now() / 1000)).toBeLessThan(5);
      expect(info.bodyHash).toBe(EMPTY_BODY_HASH);
    }
  });

  it('sends a body that is not JSON as it is, signed, so the service can say it is not JSON', async () => {
    const signed = await script.signRequest(CREDENTIALS, {
      method: 'POST',
      url: '/api/v1/support-chain',
      bodyText: '{"chainId": 1,',
    });
    expect(signed.body).toBe('{"chainId": 1,');
    expect(decodeValueInfo(signed.headers['x-value-info']!)?.bodyHash).toBe(bodyHashOf('{"chainId": 1,'));
  });
});

describe('docs page signing script: what the requestInterceptor does to Swagger UI requests', () => {
  const script = loadScript();
  const isPublic = script.publicOperations(JSON.parse(JSON.stringify(apiDocument([]))), SPEC_URL);
  const documented = script.publicOperations(
    {
      servers: [{ url: '/api/v1' }],
      paths: {
        '/accounts': { post: { security: [] } },
        '/openapi.json': { get: { security: [] } },
        '/docs': { get: { security: [] } },
        '/chains': { get: { security: [{ 'x-api-key-id': [] }] } },
        '/limit-order/{id}': { get: { security: [{ 'x-api-key-id': [] }] }, patch: {} },
      },
    },
    SPEC_URL,
  );

  it('marks exactly the operations the OpenAPI document leaves unsecured as public', () => {
    const at = (path: string): URL => new URL(path, ORIGIN);
    expect(documented('POST', at('/api/v1/accounts'))).toBe(true);
    expect(documented('GET', at('/api/v1/openapi.json'))).toBe(true);
    expect(documented('GET', at('/api/v1/docs'))).toBe(true);
    expect(documented('GET', at('/api/v1/accounts'))).toBe(false);
    expect(documented('GET', at('/api/v1/chains'))).toBe(false);
    expect(documented('GET', at('/api/v1/limit-order/abc'))).toBe(false);
    // No security on the operation nor on the document: public by OpenAPI's rules.
    expect(documented('PATCH', at('/api/v1/limit-order/abc'))).toBe(true);
    expect(documented('PATCH', at('/api/v1/limit-order/abc/more'))).toBe(false);
    expect(documented('POST', at('/api/v1/unknown'))).toBe(false);
    // The spec the page loads is public even before the document is known.
    expect(isPublic('GET', at('/api/v1/openapi.json'))).toBe(true);
  });

  it('signs a GET: Content-Type set, no body, Swagger-added signing headers replaced', async () => {
    const request: SwaggerRequest = {
      url: `${ORIGIN}/api/v1/limit-order?status=pending&chainId=1`,
      method: 'GET',
      headers: { accept: 'application/json', 'X-Signature': 'static', 'content-type': 'text/plain' },
      body: '{}',
    };
    const out = await script.prepareSwaggerRequest(request, {
      credentials: CREDENTIALS,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(out).toBe(request);
    expect(out.body).toBeUndefined();
    expect(Object.keys(out.headers).sort()).toEqual([
      'Content-Type',
      'accept',
      'x-api-key-id',
      'x-passphrase',
      'x-signature',
      'x-value-info',
    ]);
    expect(out.headers['Content-Type']).toBe('application/json');
    expect(serverAccepts(CREDENTIALS.secretKey, out.headers, 'GET', new URL(out.url), undefined)).toBe(true);
  });

  it('signs a POST and replaces the body Swagger built with the exact canonical bytes', async () => {
    const body = { zeta: { b: 'ü€😀', a: [2, 1] }, chainId: 1 };
    const request: SwaggerRequest = {
      url: `${ORIGIN}/api/v1/support-chain`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body, null, 2),
    };
    const out = await script.prepareSwaggerRequest(request, {
      credentials: CREDENTIALS,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(out.body).toBe('{"chainId":1,"zeta":{"a":[2,1],"b":"ü€😀"}}');
    expect(serverAccepts(CREDENTIALS.secretKey, out.headers, 'POST', new URL(out.url), out.body)).toBe(true);
  });

  it('signs the path and query in the form the browser sends them (the URL parser normalizes both)', async () => {
    const request: SwaggerRequest = {
      url: '/api/v1/transactions/0xab cd?chainId=1&q="é"',
      method: 'GET',
      headers: {},
    };
    const out = await script.prepareSwaggerRequest(request, {
      credentials: CREDENTIALS,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(out.url).toBe(`${ORIGIN}/api/v1/transactions/0xab%20cd?chainId=1&q=%22%C3%A9%22`);
    expect(serverAccepts(CREDENTIALS.secretKey, out.headers, 'GET', new URL(out.url), undefined)).toBe(true);
  });

  it('leaves public operations and every request without credentials unsigned, Content-Type still set', async () => {
    const account: SwaggerRequest = {
      url: `${ORIGIN}/api/v1/accounts`,
      method: 'POST',
      headers: {},
      body: '{"name":"someone","password":"longenough"}',
    };
    await script.prepareSwaggerRequest(account, {
      credentials: CREDENTIALS,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(account).toEqual({
      url: `${ORIGIN}/api/v1/accounts`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"someone","password":"longenough"}',
    });

    const anonymous: SwaggerRequest = {
      url: `${ORIGIN}/api/v1/chains`,
      method: 'GET',
      headers: { 'x-api-key-id': 'from swagger dialog', 'x-passphrase': 'typed there' },
    };
    await script.prepareSwaggerRequest(anonymous, {
      credentials: null,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(anonymous).toEqual({
      url: `${ORIGIN}/api/v1/chains`,
      method: 'GET',
      headers: { 'Content-Type': 'application/json' },
    });
  });

  it("never signs a request to another origin (a document loaded with Swagger UI's Explore bar)", async () => {
    const foreign: SwaggerRequest = {
      url: 'https://elsewhere.example/api/v1/chains',
      method: 'GET',
      headers: {},
    };
    await script.prepareSwaggerRequest(foreign, {
      credentials: CREDENTIALS,
      isPublic: documented,
      baseUrl: DOCS_URL,
    });
    expect(foreign.headers).toEqual({ 'Content-Type': 'application/json' });
  });
});
