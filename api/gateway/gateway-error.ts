/** An answer of the gateway itself: rendered as the bare `{message}` body, never in the envelope. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export const unauthorized = (): GatewayError => new GatewayError(401, 'Unauthorized');
export const forbidden = (): GatewayError => new GatewayError(403, 'Forbidden');
export const tooManyRequests = (retryAfterSeconds: number): GatewayError =>
  new GatewayError(429, 'Too Many Requests', { 'Retry-After': String(retryAfterSeconds) });
export const payloadTooLarge = (): GatewayError => new GatewayError(413, 'Payload Too Large');
export const serviceUnavailable = (): GatewayError => new GatewayError(503, 'Service Unavailable');
export const internalServerError = (): GatewayError => new GatewayError(500, 'Internal Server Error');
