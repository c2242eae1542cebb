/**
 * Why a LI.FI call gave no usable answer:
 * - `no-route`: HTTP 404 (no quote for the pair and amount, e.g. code 1002 NoQuoteError; unknown transfer on /status);
 * - `rate-limited`: HTTP 429;
 * - `unavailable`: HTTP 5xx, a timeout, or no connection;
 * - `bad-response`: a 2xx whose body is not what the documented API returns (or not what was asked);
 * - `rejected`: another 4xx (e.g. 400 code 1011 ValidationError, 401/403 for a wrong API key).
 */
export type LifiErrorKind = 'no-route' | 'rate-limited' | 'unavailable' | 'bad-response' | 'rejected';

/** A LI.FI failure. The message never carries the API key (the client scrubs it) nor the request headers. */
export class LifiError extends Error {
  constructor(
    readonly kind: LifiErrorKind,
    message: string,
    /** The HTTP status LI.FI answered; null when no answer came. */
    readonly httpStatus: number | null = null,
    /** LI.FI's numeric error code from the body (1002 NoQuoteError, 1011 ValidationError…), when it sent one. */
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = 'LifiError';
  }
}
