import { computeHmac, concat } from 'ethers';
import { bareHex, utf8 } from './signing/encoding';

/** The headers of a webhook delivery, names in lowercase (as Node and fetch's Headers give them). */
export const WEBHOOK_HEADERS = {
  eventId: 'x-tas-event-id',
  timestamp: 'x-tas-timestamp',
  signature: 'x-tas-signature',
} as const;

/** How far (seconds) a delivery's timestamp may be from now by default: older ones may be replays. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** A header value as receivers get it: Node's `req.headers[...]` may be an array, a framework's may be absent. */
export type WebhookHeaderValue = string | number | readonly string[] | null | undefined;

/** The raw body exactly as received: a string (decoded as UTF-8), or its bytes (Node's buffers are Uint8Arrays). */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

export interface WebhookSignatureInput {
  /** The webhook's secret as POST /webhooks returned it, `whsec_` included. */
  secret: string;
  /** The `x-tas-timestamp` header: Unix seconds. */
  timestamp: WebhookHeaderValue;
  /** The raw request body, before any JSON parsing (a re-serialized body does not verify). */
  body: WebhookBody;
}

export interface VerifyWebhookSignatureInput extends WebhookSignatureInput {
  /** The `x-tas-signature` header: lowercase hex HMAC-SHA256. */
  signature: WebhookHeaderValue;
  /** Largest accepted distance between the timestamp and now, in seconds; default 300. */
  toleranceSeconds?: number;
  /** Now in Unix seconds (tests); default the clock. */
  nowSeconds?: number;
}

function single(value: WebhookHeaderValue): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.trim();
  return value.length === 1 ? value[0]!.trim() : undefined;
}

function bytesOf(body: WebhookBody): Uint8Array {
  if (typeof body === 'string') return utf8(body);
  // A view of this realm over the same bytes: a buffer made elsewhere (another realm, a subclass) reads the same.
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return new Uint8Array(body);
}

/** Equal strings in a time that depends on their length only (never on where they differ). */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The `x-tas-signature` of a delivery: lowercase hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of
 * `<timestamp>.<raw body>`. What the service sends; receivers call verifyWebhookSignature.
 */
export function computeWebhookSignature(input: WebhookSignatureInput): string {
  const timestamp = single(input.timestamp) ?? '';
  const message = concat([utf8(`${timestamp}.`), bytesOf(input.body)]);
  return bareHex(computeHmac('sha256', utf8(input.secret), message));
}

/**
 * Whether a webhook delivery is genuine and fresh: the signature matches the raw body and timestamp under the
 * webhook's secret (compared in constant time), and the timestamp is within `toleranceSeconds` of now. Synchronous
 * and free of Node-only APIs (ethers' HMAC), like the request signing: it runs in Node, browsers and edge runtimes.
 * Answer 2xx only after it returns true, and dedupe on the event id (`x-tas-event-id`, the body's `id`).
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): boolean {
  const signature = single(input.signature)?.toLowerCase();
  const timestamp = single(input.timestamp);
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (!timestamp || !/^\d{1,15}$/.test(timestamp)) return false;
  if (typeof input.secret !== 'string' || input.secret === '') return false;
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!(Math.abs(now - Number(timestamp)) <= tolerance)) return false;
  const expected = computeWebhookSignature({ secret: input.secret, timestamp, body: input.body });
  return constantTimeEqual(expected, signature);
}
