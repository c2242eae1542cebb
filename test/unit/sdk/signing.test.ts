import fc from 'fast-check';
import {
  bodyHashOf,
  buildQuery,
  canonicalJson,
  canonicalQuery,
  decodeQueryComponent,
  encodeRfc3986,
  signRequest,
  signedMessage,
  SCHEME_TAG,
} from '../../../sdk/src';
import { canonicalJson as serverCanonicalJson } from '../../../shared/signing/canonical-json';
import { canonicalQuery as serverCanonicalQuery } from '../../../shared/signing/canonical-query';
import {
  bodyHashOf as serverBodyHashOf,
  decodeValueInfo,
  EMPTY_BODY_HASH,
  hmacHex,
  SCHEME_TAG as SERVER_SCHEME_TAG,
  signRequest as serverSignRequest,
  signedMessage as serverSignedMessage,
} from '../../../shared/signing/request-signature';

const CREDENTIALS = {
  apiKeyId: '0b9d6a3e-1f2c-4d5e-8f90-a1b2c3d4e5f6',
  secretKey: 'Zm9vYmFy+/=secret-as-text',
  passphrase: 'my-passphrase',
};

const anyJson = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'grapheme' }),
  fc.jsonValue({ stringUnit: 'binary' }),
);

describe('SDK canonical JSON (spec, "Canonical JSON")', () => {
  it('sorts keys at every level, keeps array order and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, B: true, _: 'x' })).toBe(
      '{"B":true,"_":"x","a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes numbers as JSON.stringify does', () => {
    expect(canonicalJson([1.0, 1e21, 0.0000001, -0, 1.5, 9007199254740991])).toBe(
      '[1,1e+21,1e-7,0,1.5,9007199254740991]',
    );
  });

  it('keeps non-ASCII raw and escapes as JSON does', () => {
    expect(canonicalJson({ s: 'é ✓ 𝄞 "q" \\ \n \u0001' })).toBe('{"s":"é ✓ 𝄞 \\"q\\" \\\\ \\n \\u0001"}');
  });

  it('sorts keys by UTF-16 code units', () => {
    expect(canonicalJson({ b: 1, a: 2, Z: 3, é: 4, '\u{1F600}': 5, '\uFF61': 6 })).toBe(
      '{"Z":3,"a":2,"b":1,"é":4,"\u{1F600}":5,"\uFF61":6}',
    );
  });

  it('leaves out undefined members as JSON.stringify does, and refuses what JSON cannot hold', () => {
    expect(canonicalJson({ a: undefined, b: [undefined], c: new Date(0) })).toBe(
      '{"b":[null],"c":"1970-01-01T00:00:00.000Z"}',
    );
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });

  it('equals the server’s canonical JSON for any JSON value', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        expect(canonicalJson(value)).toBe(serverCanonicalJson(value));
      }),
      { numRuns: 500 },
    );
  });
});

describe('SDK canonical query (spec, "Canonical query")', () => {
  it.each([
    ['', ''],
    ['status=pending&chainId=137', 'chainId=137&status=pending'],
    ['chainId=137&status=pending', 'chainId=137&status=pending'],
    ['b=2&a=1&a=0', 'a=0&a=1&b=2'],
    ['q=a+b', 'q=a%20b'],
    ['q=a%20b', 'q=a%20b'],
    ['x=%7E*!', 'x=~%2A%21'],
    ['flag', 'flag='],
  ])('the spec table: %j is %j', (query, canonical) => {
    expect(canonicalQuery(query)).toBe(canonical);
  });

  it('decodes + and %XX as UTF-8, splits at the first =, uppercases hex, keeps a malformed escape', () => {
    expect(canonicalQuery('a=b=c')).toBe('a=b%3Dc');
    expect(canonicalQuery('v=%2a%c3%a9')).toBe('v=%2A%C3%A9');
    expect(canonicalQuery('v=%zz%4')).toBe('v=%25zz%254');
    expect(canonicalQuery('v=é✓')).toBe('v=%C3%A9%E2%9C%93');
    expect(decodeQueryComponent('a+b%2Bc%F0%9D%84%9E')).toBe('a b+c𝄞');
    expect(encodeRfc3986("AZaz09-._~!'()* /")).toBe('AZaz09-._~%21%27%28%29%2A%20%2F');
  });

  it('equals the server’s canonical query for any query as it travels (the URL parser’s form)', () => {
    const queryChar = fc.oneof(
      fc.constantFrom('&', '=', '+', '%', '%2', '%41', '%e2%9c%93', '%C3', '?', '/', ' ', '~', '*'),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(queryChar, { maxLength: 20 }), (parts) => {
        // Non-ASCII never reaches the server raw: the URL parser percent-encodes it as UTF-8.
        const query = new URL(`http://host/path?${parts.join('')}`).search.slice(1);
        expect(canonicalQuery(query)).toBe(serverCanonicalQuery(query));
      }),
      { numRuns: 500 },
    );
  });

  it('builds a query that is already canonical, leaving out undefined parameters', () => {
    expect(buildQuery({ status: 'pending', chainId: 137, accountTo: undefined, flag: true })).toBe(
      'chainId=137&flag=true&status=pending',
    );
    expect(buildQuery({ q: "a b+c/é?&=!'()*~" })).toBe('q=a%20b%2Bc%2F%C3%A9%3F%26%3D%21%27%28%29%2A~');
    expect(buildQuery({})).toBe('');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.string({ unit: 'grapheme' })), (params) => {
        const query = buildQuery(params);
        expect(serverCanonicalQuery(query)).toBe(query);
      }),
    );
  });
});

describe('SDK request signing (spec, "Algorithm")', () => {
  it('hashes the body as base64url without padding; the empty body is the spec’s value', () => {
    expect(bodyHashOf('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(bodyHashOf('')).toBe(EMPTY_BODY_HASH);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(bodyHashOf(text)).toBe(serverBodyHashOf(text));
        expect(bodyHashOf(text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      }),
    );
  });

  it('builds the seven-line message the server builds', () => {
    expect(SCHEME_TAG).toBe(SERVER_SCHEME_TAG);
    const parts = {
      timestamp: '1700000000',
      nonce: '0123456789abcdef01234567',
      method: 'GET',
      path: '/api/v1/limit-order',
      query: 'chainId=1',
      bodyHash: EMPTY_BODY_HASH,
    };
    expect(signedMessage(parts)).toBe(
      `SVC-HMAC-SHA256-V2\n1700000000\n0123456789abcdef01234567\nGET\n/api/v1/limit-order\nchainId=1\n${EMPTY_BODY_HASH}`,
    );
    expect(signedMessage(parts)).toBe(serverSignedMessage(parts));
  });

  it('signs a POST exactly as the server’s reference signer, sending the canonical bytes', () => {
    const body = { params: { z: 'ü', a: [2, 1] }, mode: 'single-chain', fees: { feeBps: 25 } };
    const request = {
      method: 'POST' as const,
      url: '/api/v1/quotes',
      body,
      timestamp: '1700000000',
      nonce: 'aabbccddeeff001122334455',
    };
    const sdk = signRequest(CREDENTIALS, request);
    const server = serverSignRequest({ ...CREDENTIALS, apiKey: CREDENTIALS.apiKeyId }, request);
    expect(sdk).toEqual(server);
    expect(sdk.bodyString).toBe('{"fees":{"feeBps":25},"mode":"single-chain","params":{"a":[2,1],"z":"ü"}}');
    expect(sdk.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key-id': CREDENTIALS.apiKeyId,
      'x-value-info': Buffer.from(
        `1700000000\naabbccddeeff001122334455\n${bodyHashOf(sdk.bodyString)}`,
      ).toString('base64'),
      'x-passphrase': 'my-passphrase',
      'x-signature': hmacHex(
        CREDENTIALS.secretKey,
        serverSignedMessage({
          timestamp: '1700000000',
          nonce: 'aabbccddeeff001122334455',
          method: 'POST',
          path: '/api/v1/quotes',
          query: '',
          bodyHash: serverBodyHashOf(sdk.bodyString),
        }),
      ),
    });
  });

  it('signs GET and DELETE with no body, the canonical query and the path only', () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const signed = signRequest(CREDENTIALS, {
        method,
        url: 'http://127.0.0.1:8080/api/v1/limit-order?status=pending&chainId=137#frag',
        body: { ignored: true },
        timestamp: '1700000001',
        nonce: '00112233445566778899aabb',
      });
      expect(signed.bodyString).toBe('');
      const info = decodeValueInfo(signed.headers['x-value-info']!);
      expect(info).toEqual({
        timestamp: '1700000001',
        nonce: '00112233445566778899aabb',
        bodyHash: EMPTY_BODY_HASH,
      });
      expect(signed.headers['x-signature']).toBe(
        hmacHex(
          CREDENTIALS.secretKey,
          serverSignedMessage({
            ...info!,
            method,
            path: '/api/v1/limit-order',
            query: 'chainId=137&status=pending',
          }),
        ),
      );
    }
  });

  it('uses a fresh 24-hex nonce and the current Unix second when none is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const info = decodeValueInfo(
        signRequest(CREDENTIALS, { method: 'GET', url: '/api/v1/chains' }).headers['x-value-info']!,
      )!;
      expect(info.nonce).toMatch(/^[0-9a-f]{24}$/);
      expect(Number(info.timestamp)).toBeGreaterThanOrEqual(before);
      expect(Number(info.timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      nonces.add(info.nonce);
    }
    expect(nonces.size).toBe(50);
  });

  it('keys the HMAC with the secret’s UTF-8 text, not its base64 decoding', () => {
    const signed = signRequest(
      { ...CREDENTIALS, secretKey: 'sëcret' },
      { method: 'GET', url: '/api/v1/chains', timestamp: '1', nonce: '000000000000000000000000' },
    );
    expect(signed.headers['x-signature']).toBe(
      hmacHex(
        'sëcret',
        serverSignedMessage({
          timestamp: '1',
          nonce: '000000000000000000000000',
          method: 'GET',
          path: '/api/v1/chains',
          query: '',
          bodyHash: EMPTY_BODY_HASH,
        }),
      ),
    );
    expect(signed.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/);
  });
});
