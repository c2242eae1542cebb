import { canonicalJson } from '../../shared/signing/canonical-json';
import { canonicalQuery } from '../../shared/signing/canonical-query';
import {
  EMPTY_BODY_HASH,
  SCHEME_TAG,
  bodyHashOf,
  decodeValueInfo,
  encodeValueInfo,
  hmacHex,
  signRequest,
  signedMessage,
} from '../../shared/signing/request-signature';

/**
 * The known-answer vector. The expected values were computed outside this code base, twice:
 * python3 (json.dumps sort_keys, hashlib, hmac, base64) and openssl dgst -sha256 [-hmac] with base64 in a shell.
 */
const VECTOR = {
  apiKey: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b',
  secretKey: 'kP7Qx2mZ9vR4tY8wB3nL6cJ1hF5dS0aE',
  passphrase: 'correct-horse-battery',
  timestamp: '1767225600',
  nonce: '0123456789abcdef01234567',
  method: 'POST',
  path: '/api/v1/limit-order',
  rawQuery: 'status=pending&chainId=137',
  bodyText: '{"slippage":"1","amount":"10.5","chainId":137,"nested":{"b":1,"a":[2,1]}}',
  expected: {
    query: 'chainId=137&status=pending',
    bodyString: '{"amount":"10.5","chainId":137,"nested":{"a":[2,1],"b":1},"slippage":"1"}',
    bodyHash: 'QcYPxexaycN_kNGrceCxi1X6XpZvYwwubU5_kccA_jw',
    message:
      'SVC-HMAC-SHA256-V2\n1767225600\n0123456789abcdef01234567\nPOST\n/api/v1/limit-order\nchainId=137&status=pending\nQcYPxexaycN_kNGrceCxi1X6XpZvYwwubU5_kccA_jw',
    valueInfo:
      'MTc2NzIyNTYwMAowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1NjcKUWNZUHhleGF5Y05fa05HcmNlQ3hpMVg2WHBadll3d3ViVTVfa2NjQV9qdw==',
    signature: 'e6d02b3436bb30336fbcd8f0a4b0a452d8d28681742e4e2f7b94bac9833e5322',
  },
} as const;

describe('request signature: known-answer vector', () => {
  it('canonicalises the body and the query', () => {
    expect(canonicalJson(JSON.parse(VECTOR.bodyText))).toBe(VECTOR.expected.bodyString);
    expect(canonicalQuery(VECTOR.rawQuery)).toBe(VECTOR.expected.query);
  });

  it('hashes the body string to base64url without padding', () => {
    expect(bodyHashOf(VECTOR.expected.bodyString)).toBe(VECTOR.expected.bodyHash);
    expect(VECTOR.expected.bodyHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('hashes the empty body to the documented constant', () => {
    expect(EMPTY_BODY_HASH).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(bodyHashOf('')).toBe(EMPTY_BODY_HASH);
  });

  it('builds the seven-line message and its HMAC', () => {
    const message = signedMessage({
      timestamp: VECTOR.timestamp,
      nonce: VECTOR.nonce,
      method: VECTOR.method,
      path: VECTOR.path,
      query: VECTOR.expected.query,
      bodyHash: VECTOR.expected.bodyHash,
    });
    expect(SCHEME_TAG).toBe('SVC-HMAC-SHA256-V2');
    expect(message).toBe(VECTOR.expected.message);
    expect(message.split('\n')).toHaveLength(7);
    expect(hmacHex(VECTOR.secretKey, message)).toBe(VECTOR.expected.signature);
  });

  it('encodes x-value-info as standard padded base64 and decodes it back', () => {
    const info = encodeValueInfo(VECTOR.timestamp, VECTOR.nonce, VECTOR.expected.bodyHash);
    expect(info).toBe(VECTOR.expected.valueInfo);
    expect(decodeValueInfo(info)).toEqual({
      timestamp: VECTOR.timestamp,
      nonce: VECTOR.nonce,
      bodyHash: VECTOR.expected.bodyHash,
    });
  });

  it('signRequest produces exactly the vector headers and body bytes', () => {
    const signed = signRequest(
      { apiKey: VECTOR.apiKey, secretKey: VECTOR.secretKey, passphrase: VECTOR.passphrase },
      {
        method: 'post',
        url: `${VECTOR.path}?${VECTOR.rawQuery}`,
        body: JSON.parse(VECTOR.bodyText),
        timestamp: VECTOR.timestamp,
        nonce: VECTOR.nonce,
      },
    );
    expect(signed).toEqual({
      bodyString: VECTOR.expected.bodyString,
      headers: {
        'content-type': 'application/json',
        'x-api-key-id': VECTOR.apiKey,
        'x-value-info': VECTOR.expected.valueInfo,
        'x-passphrase': VECTOR.passphrase,
        'x-signature': VECTOR.expected.signature,
      },
    });
  });

  it('signs GET and DELETE with an empty body and the empty-body hash', () => {
    for (const method of ['GET', 'DELETE']) {
      const signed = signRequest(
        { apiKey: VECTOR.apiKey, secretKey: VECTOR.secretKey, passphrase: VECTOR.passphrase },
        {
          method,
          url: '/api/v1/limit-order',
          body: { ignored: true },
          timestamp: VECTOR.timestamp,
          nonce: VECTOR.nonce,
        },
      );
      expect(signed.bodyString).toBe('');
      expect(decodeValueInfo(signed.headers['x-value-info'])?.bodyHash).toBe(EMPTY_BODY_HASH);
    }
  });

  it('generates a fresh 24-hex nonce and a current timestamp when none is given', () => {
    const credentials = { apiKey: VECTOR.apiKey, secretKey: VECTOR.secretKey, passphrase: VECTOR.passphrase };
    const a = decodeValueInfo(
      signRequest(credentials, { method: 'GET', url: '/api/v1/chains' }).headers['x-value-info'],
    );
    const b = decodeValueInfo(
      signRequest(credentials, { method: 'GET', url: '/api/v1/chains' }).headers['x-value-info'],
    );
    expect(a?.nonce).toMatch(/^[0-9a-f]{24}$/);
    expect(a?.nonce).not.toBe(b?.nonce);
    expect(Math.abs(Number(a?.timestamp) - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('request signature: x-value-info parsing', () => {
  it.each([
    ['not base64', '!!!!'],
    ['base64url alphabet', VECTOR.expected.valueInfo.replace(/=+$/, '').replace(/\//g, '_') + '-'],
    ['missing padding', VECTOR.expected.valueInfo.replace(/=+$/, '')],
    ['two lines', Buffer.from('1767225600\n0123456789abcdef01234567').toString('base64')],
    ['four lines', Buffer.from('1\n2\n3\n4').toString('base64')],
    ['empty', ''],
  ])('refuses %s', (_name, header) => {
    expect(decodeValueInfo(header)).toBeUndefined();
  });
});
