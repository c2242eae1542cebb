import { createHash, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { canonicalQuery } from './canonical-query';

/** The fixed scheme tag that opens every signed message. */
export const SCHEME_TAG = 'SVC-HMAC-SHA256-V2';
/** bodyHash of the empty string, the only hash a GET or DELETE may sign. */
export const EMPTY_BODY_HASH = '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU';

export const SIGNING_HEADERS = {
  apiKeyId: 'x-api-key-id',
  valueInfo: 'x-value-info',
  passphrase: 'x-passphrase',
  signature: 'x-signature',
} as const;

export interface SignedParts {
  timestamp: string;
  nonce: string;
  method: string;
  /** URL path without the query, starting with /api/v1. */
  path: string;
  /** Canonical query, empty when there is none. */
  query: string;
  bodyHash: string;
}

export function bodyHashOf(bodyString: string): string {
  return createHash('sha256').update(bodyString, 'utf8').digest('base64url');
}

export function signedMessage(parts: SignedParts): string {
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

export function hmacHex(secretKey: string, message: string): string {
  return createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(message, 'utf8').digest('hex');
}

/**
 * hmacHex with the key set up once: the secret's bytes are turned into a KeyObject a single time, for a verifier
 * that checks many messages under one secret.
 */
export function hmacWithKey(secretKey: string): (message: string) => string {
  const key = createSecretKey(Buffer.from(secretKey, 'utf8'));
  return (message) => createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

export function encodeValueInfo(timestamp: string, nonce: string, bodyHash: string): string {
  return Buffer.from(`${timestamp}\n${nonce}\n${bodyHash}`, 'utf8').toString('base64');
}

export interface ValueInfo {
  timestamp: string;
  nonce: string;
  bodyHash: string;
}

/** Parses x-value-info; undefined when it is not standard base64 of exactly three lines. */
export function decodeValueInfo(header: string): ValueInfo | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(header) || header.length % 4 !== 0) return undefined;
  const parts = Buffer.from(header, 'base64').toString('utf8').split('\n');
  if (parts.length !== 3) return undefined;
  const [timestamp, nonce, bodyHash] = parts;
  return { timestamp, nonce, bodyHash };
}

export interface Credentials {
  apiKey: string;
  secretKey: string;
  passphrase: string;
}

export interface RequestToSign {
  method: string;
  /** Path with optional query, e.g. `/api/v1/limit-order?status=pending`. */
  url: string;
  /** The body object for POST/PATCH; ignored for GET/DELETE. */
  body?: unknown;
  timestamp?: string;
  nonce?: string;
}

export interface SignedRequest {
  headers: Record<string, string>;
  /** Exactly the bytes to send as the body; empty for GET/DELETE. */
  bodyString: string;
}

/** Client side of the scheme: the four headers (plus Content-Type) and the body bytes for one request. */
export function signRequest(credentials: Credentials, request: RequestToSign): SignedRequest {
  const method = request.method.toUpperCase();
  const hasBody = method === 'POST' || method === 'PATCH';
  const bodyString = hasBody ? canonicalJson(request.body ?? {}) : '';
  const q = request.url.indexOf('?');
  const path = q < 0 ? request.url : request.url.slice(0, q);
  const query = q < 0 ? '' : canonicalQuery(request.url.slice(q + 1));
  const timestamp = request.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = request.nonce ?? randomBytes(12).toString('hex');
  const bodyHash = bodyHashOf(bodyString);
  const signature = hmacHex(
    credentials.secretKey,
    signedMessage({ timestamp, nonce, method, path, query, bodyHash }),
  );
  return {
    bodyString,
    headers: {
      'content-type': 'application/json',
      [SIGNING_HEADERS.apiKeyId]: credentials.apiKey,
      [SIGNING_HEADERS.valueInfo]: encodeValueInfo(timestamp, nonce, bodyHash),
      [SIGNING_HEADERS.passphrase]: credentials.passphrase,
      [SIGNING_HEADERS.signature]: signature,
    },
  };
}
