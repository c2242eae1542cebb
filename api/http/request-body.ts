import { createHash } from 'node:crypto';
import { ForbiddenError, ValidationError } from '../../shared/domain/errors';
import { canonicalJson } from '../../shared/signing/canonical-json';
import { EMPTY_BODY_HASH, bodyHashOf } from '../../shared/signing/request-signature';
import type { AuthContext } from '../gateway/account-authenticator';

export const INVALID_BODY_HASH = 'Invalid body hash';
export const INVALID_JSON_BODY = 'Invalid JSON body';
export const BODY_REQUIRED = 'Body is required';

const NO_BODY = Symbol('no body');
type Parsed = unknown | typeof NO_BODY;

function isJsonContentType(contentType: string | undefined): boolean {
  return /^application\/json\s*(;|$)/i.test(contentType ?? '');
}

function parse(raw: Buffer): Parsed {
  if (raw.length === 0) return NO_BODY;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export interface BodyInput {
  method: string;
  contentType: string | undefined;
  raw: Buffer;
  auth: AuthContext | undefined;
  /** Whether the route takes a body at all (POST/PATCH routes with a schema). */
  takesBody: boolean;
}

/**
 * Check 5 of the spec (the received body hashes to the signed bodyHash) and the content-type rules,
 * then the parsed body. GET and DELETE carry no body: only the empty-string hash may be signed for them.
 */
export function readRequestBody(input: BodyInput): unknown {
  const hasBody = input.raw.length > 0;
  const jsonType = isJsonContentType(input.contentType);

  if (input.auth) {
    if (!input.takesBody) {
      // Only the empty body may be signed and sent here: bytes nobody signed must not ride along unchecked.
      if (input.auth.bodyHash !== EMPTY_BODY_HASH || hasBody) throw new ForbiddenError(INVALID_BODY_HASH);
      return undefined;
    }
    if (hasBody && !jsonType) throw new ForbiddenError(INVALID_BODY_HASH);
    const parsed = parse(input.raw);
    if (parsed === NO_BODY) {
      if (input.auth.bodyHash !== EMPTY_BODY_HASH) throw new ForbiddenError(INVALID_BODY_HASH);
      throw new ValidationError(BODY_REQUIRED);
    }
    const canonical = parsed === undefined ? undefined : canonicalFormOf(parsed, input.raw);
    if (canonical === undefined) {
      // The client signed bytes that are not (portable) JSON: tell them apart from a body altered in transit.
      if (rawHashOf(input.raw) === input.auth.bodyHash) throw new ValidationError(INVALID_JSON_BODY);
      throw new ForbiddenError(INVALID_BODY_HASH);
    }
    if (bodyHashOf(canonical) !== input.auth.bodyHash) throw new ForbiddenError(INVALID_BODY_HASH);
    return parsed;
  }

  if (!input.takesBody) return undefined;
  // A public route with a body requires the JSON content type, with or without bytes (POST /accounts: 400).
  if (!jsonType) throw new ValidationError(INVALID_JSON_BODY);
  const parsed = parse(input.raw);
  if (parsed === NO_BODY) throw new ValidationError(BODY_REQUIRED);
  if (parsed === undefined) throw new ValidationError(INVALID_JSON_BODY);
  return parsed;
}

/**
 * The canonical JSON of a parsed body. A body sent canonical already (what every client following the spec sends) is
 * its own canonical form: when the native JSON.stringify writes the received text back and every object's keys come
 * in sorted order, canonicalJson would write exactly that text, so it is used as is.
 */
export function canonicalFormOf(parsed: unknown, raw: Buffer): string | undefined {
  const text = raw.toString('utf8');
  if (JSON.stringify(parsed) === text && keysSorted(parsed)) return text;
  return canonicalJsonOrUndefined(parsed);
}

/** Every object's own keys (Object.keys order, as JSON.stringify writes them) in UTF-16 code unit order. */
function keysSorted(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(keysSorted);
  const obj = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const key of Object.keys(obj)) {
    if (previous !== undefined && !(previous < key)) return false;
    if (!keysSorted(obj[key])) return false;
    previous = key;
  }
  return true;
}

/** undefined for values canonical JSON cannot write (1e400 parses to Infinity): they match no signed hash. */
function canonicalJsonOrUndefined(value: unknown): string | undefined {
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}

/** SHA-256 of the bytes as received, not re-decoded, so invalid UTF-8 cannot pass for its replacement. */
function rawHashOf(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('base64url');
}
