import { createHmac } from 'node:crypto';

/** `x-tas-signature`: lowercase hex HMAC-SHA256 under the webhook's secret of `<timestamp>.<raw body>`. */
export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
}
