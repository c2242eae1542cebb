import { createHmac } from 'node:crypto';
import {
  WEBHOOK_HEADERS,
  computeWebhookSignature,
  verifyWebhookSignature,
  type VerifyWebhookSignatureInput,
} from '../../../sdk/src';

const SECRET = `whsec_${'3f'.repeat(32)}`;
const NOW = 1_764_000_000;
const BODY =
  '{"id":"evt_0123456789abcdef0123456789abcdef","type":"limit_order.updated","createdAt":"2025-11-24T16:00:00.000Z",' +
  '"data":{"id":"6f1c","status":"completed","tokenASymbol":"WETH","note":"ünïcødé ✓"}}';

/** The signature as the service computes it (node:crypto, independent of the SDK's ethers HMAC). */
const serverSignature = (secret: string, timestamp: string, body: string | Buffer): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), Buffer.from(body)]))
    .digest('hex');

const delivery = (overrides: Partial<VerifyWebhookSignatureInput> = {}): VerifyWebhookSignatureInput => ({
  secret: SECRET,
  timestamp: String(NOW),
  body: BODY,
  signature: serverSignature(SECRET, String(NOW), BODY),
  nowSeconds: NOW,
  ...overrides,
});

describe('verifyWebhookSignature', () => {
  it('accepts a genuine delivery, the body as a string, a Buffer, a Uint8Array or an ArrayBuffer', () => {
    const raw = Buffer.from(BODY, 'utf8');
    expect(verifyWebhookSignature(delivery())).toBe(true);
    expect(verifyWebhookSignature(delivery({ body: raw }))).toBe(true);
    expect(verifyWebhookSignature(delivery({ body: new Uint8Array(raw) }))).toBe(true);
    const arrayBuffer = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    expect(verifyWebhookSignature(delivery({ body: arrayBuffer }))).toBe(true);
    // A view into a larger buffer (as Node's pooled buffers are): only its own bytes count.
    const pooled = Buffer.concat([Buffer.from('xx'), raw, Buffer.from('yy')]).subarray(2, 2 + raw.length);
    expect(verifyWebhookSignature(delivery({ body: pooled }))).toBe(true);
  });

  it('accepts header values as Node and frameworks hand them over', () => {
    const { signature } = delivery();
    expect(verifyWebhookSignature(delivery({ timestamp: NOW }))).toBe(true);
    expect(
      verifyWebhookSignature(delivery({ timestamp: [String(NOW)], signature: [String(signature)] })),
    ).toBe(true);
    expect(verifyWebhookSignature(delivery({ signature: String(signature).toUpperCase() }))).toBe(true);
    expect(verifyWebhookSignature(delivery({ signature: ` ${String(signature)} ` }))).toBe(true);
  });

  it('refuses a tampered body, even by one byte or re-serialized', () => {
    expect(verifyWebhookSignature(delivery({ body: BODY.replace('completed', 'cancelled') }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ body: `${BODY} ` }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ body: JSON.stringify(JSON.parse(BODY), null, 2) }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ body: '' }))).toBe(false);
  });

  it('refuses a wrong secret (the whsec_ prefix is part of the key)', () => {
    expect(verifyWebhookSignature(delivery({ secret: `whsec_${'3f'.repeat(31)}3e` }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ secret: '3f'.repeat(32) }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ secret: '' }))).toBe(false);
  });

  it('refuses a timestamp outside the tolerance (default 300 s), past or future, and a signature of another one', () => {
    const at = (timestamp: number, extra: Partial<VerifyWebhookSignatureInput> = {}): boolean =>
      verifyWebhookSignature(
        delivery({
          timestamp: String(timestamp),
          signature: serverSignature(SECRET, String(timestamp), BODY),
          ...extra,
        }),
      );
    expect(at(NOW - 300)).toBe(true);
    expect(at(NOW + 300)).toBe(true);
    expect(at(NOW - 301)).toBe(false);
    expect(at(NOW + 301)).toBe(false);
    expect(at(NOW - 3600)).toBe(false);
    expect(at(NOW - 3600, { toleranceSeconds: 3600 })).toBe(true);
    expect(at(NOW - 10, { toleranceSeconds: 5 })).toBe(false);
    // The signature covers the timestamp: a fresh timestamp on an old signature does not verify.
    expect(
      verifyWebhookSignature(
        delivery({ timestamp: String(NOW), signature: serverSignature(SECRET, String(NOW - 1000), BODY) }),
      ),
    ).toBe(false);
    // Against the clock when nowSeconds is absent.
    const now = Math.floor(Date.now() / 1000);
    expect(
      verifyWebhookSignature({
        secret: SECRET,
        timestamp: String(now),
        body: BODY,
        signature: serverSignature(SECRET, String(now), BODY),
      }),
    ).toBe(true);
    expect(
      verifyWebhookSignature({
        secret: SECRET,
        timestamp: String(NOW - 86_400 * 365 * 10),
        body: BODY,
        signature: serverSignature(SECRET, String(NOW - 86_400 * 365 * 10), BODY),
      }),
    ).toBe(false);
  });

  it('refuses missing or malformed headers without throwing', () => {
    const { signature } = delivery();
    expect(verifyWebhookSignature(delivery({ signature: undefined }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ signature: null }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ signature: String(signature).slice(0, 63) }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ signature: `sha256=${String(signature)}` }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ signature: [String(signature), String(signature)] }))).toBe(
      false,
    );
    expect(verifyWebhookSignature(delivery({ timestamp: undefined }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ timestamp: 'yesterday' }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ timestamp: `${NOW}.5` }))).toBe(false);
    expect(verifyWebhookSignature(delivery({ timestamp: [] }))).toBe(false);
  });

  it('computes what the service sends, and names the headers', () => {
    expect(computeWebhookSignature({ secret: SECRET, timestamp: String(NOW), body: BODY })).toBe(
      serverSignature(SECRET, String(NOW), BODY),
    );
    expect(WEBHOOK_HEADERS).toEqual({
      eventId: 'x-tas-event-id',
      timestamp: 'x-tas-timestamp',
      signature: 'x-tas-signature',
    });
  });
});
