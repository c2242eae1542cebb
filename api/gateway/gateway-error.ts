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

/**
 * What a client is told to wait before it retries while the store (or Redis) cannot be reached. Short: the api's
 * store watch probes every second during an outage and the pool reconnects on the next request, so a blip is over
 * within seconds; long enough that clients retrying with fresh signatures do not hammer an api that is waiting on
 * its store. A longer outage answers each retry the same way.
 */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The spec's "service briefly unavailable": the request could not be served because the store (or Redis) did not
 * answer. Never a 403: nothing says the credentials are wrong, and the spec sends a client that got 403 twice to
 * check them.
 */
export const storeUnavailable = (): GatewayError =>
  new GatewayError(503, 'Service Unavailable', { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
export const internalServerError = (): GatewayError => new GatewayError(500, 'Internal Server Error');
