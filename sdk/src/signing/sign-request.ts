import { computeHmac, getBytes, hexlify, randomBytes, sha256 } from 'ethers';
import type { Credentials } from '../credentials';
import { canonicalJson } from './canonical-json';
import { canonicalQuery } from './canonical-query';
import { bareHex, base64, base64Url, utf8 } from './encoding';

/** The scheme tag that opens every signed message. */
export const SCHEME_TAG = 'SVC-HMAC-SHA256-V2';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestToSign {
  method: HttpMethod | Lowercase<HttpMethod>;
  /** The URL's path (starting with /api/v1) and query, e.g. `/api/v1/limit-order?status=pending`; or a full URL. */
  url: string;
  /** The body of a POST or PATCH (serialized as canonical JSON); ignored for GET and DELETE. */
  body?: unknown;
  /** Unix seconds as a decimal string; now when absent. */
  timestamp?: string;
  /** 24 hex characters; 12 fresh random bytes when absent. */
  nonce?: string;
}

export interface SignedRequest {
  /** Content-Type and the four signing headers, names in lowercase. */
  headers: Record<string, string>;
  /** The exact bytes to send as the body (UTF-8); empty for GET and DELETE, which send no body at all. */
  bodyString: string;
}

/** SHA-256 of the body string, base64url without padding. */
export const bodyHashOf = (bodyString: string): string => base64Url(getBytes(sha256(utf8(bodyString))));

/** The seven lines the signature covers, joined with line feeds (no trailing newline). */
export function signedMessage(parts: {
  timestamp: string;
  nonce: string;
  method: string;
  path: string;
  query: string;
  bodyHash: string;
}): string {
  return [
    SCHEME_TAG,
    parts.timestamp,
    parts.nonce,
    parts.method,
    parts.path,
    parts.query,
    parts.bodyHash,
  ].join('\n');
}

export const newNonce = (): string => bareHex(hexlify(randomBytes(12)));

export const unixSeconds = (): string => String(Math.floor(Date.now() / 1000));

function splitUrl(url: string): { path: string; search: string } {
  // A full URL: only its path and query are signed.
  const local = /^[a-z][a-z0-9+.-]*:\/\//i.test(url)
    ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    : url;
  const withoutFragment = local.split('#')[0]!;
  const q = withoutFragment.indexOf('?');
  return q < 0
    ? { path: withoutFragment || '/', search: '' }
    : { path: withoutFragment.slice(0, q) || '/', search: withoutFragment.slice(q + 1) };
}

/**
 * Signs one request (spec, "Authentication"): returns the headers and the body bytes to send. Sign every attempt
 * anew: a signature is accepted once, and within 300 seconds of its timestamp.
 */
export function signRequest(credentials: Credentials, request: RequestToSign): SignedRequest {
  const method = request.method.toUpperCase();
  const bodyString = method === 'POST' || method === 'PATCH' ? canonicalJson(request.body ?? {}) : '';
  const { path, search } = splitUrl(request.url);
  const timestamp = request.timestamp ?? unixSeconds();
  const nonce = request.nonce ?? newNonce();
  const bodyHash = bodyHashOf(bodyString);
  const message = signedMessage({ timestamp, nonce, method, path, query: canonicalQuery(search), bodyHash });
  const signature = bareHex(computeHmac('sha256', utf8(credentials.secretKey), utf8(message)));
  return {
    bodyString,
    headers: {
      'content-type': 'application/json',
      'x-api-key-id': credentials.apiKeyId,
      'x-value-info': base64(utf8(`${timestamp}\n${nonce}\n${bodyHash}`)),
      'x-passphrase': credentials.passphrase,
      'x-signature': signature,
    },
  };
}
