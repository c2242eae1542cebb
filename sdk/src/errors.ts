/** One item of `error.details`: validation errors name the field (a dot path such as `params.chainId`). */
export interface ErrorDetail {
  field?: string;
  message: string;
}

export interface TasErrorInit {
  code: string;
  status: number;
  /** The server's (or gateway's) message, or what went wrong locally. */
  message: string;
  details?: ErrorDetail[];
  requestId?: string;
  gateway?: boolean;
  cause?: unknown;
}

function describe(init: TasErrorInit): string {
  const status = init.status === 0 ? 'no HTTP response' : `HTTP ${init.status}`;
  const details = init.details?.length
    ? ` [${init.details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ')}]`
    : '';
  const requestId = init.requestId ? ` (request id ${init.requestId})` : '';
  return `${init.code} (${status}): ${init.message}${details}${requestId}`;
}

/**
 * Every failure of a request: an enveloped service error, a gateway answer (`{message}` only, `gateway` true), or
 * no HTTP answer at all (status 0). Branch on `code` plus `status`; unknown codes are handled by status. The
 * message carries code, message, details and request id, never a credential.
 */
export class TasError extends Error {
  readonly code: string;
  /** HTTP status; 0 when no HTTP answer came. */
  readonly status: number;
  readonly details: ErrorDetail[];
  /** `meta.requestId`, or the `apigw-requestid` header of a gateway answer. */
  readonly requestId?: string;
  /** True for an answer of the gateway in front of the service (body `{message}` only, no envelope). */
  readonly gateway: boolean;
  /** The server's message alone (`message` also carries the code, details and request id). */
  readonly serverMessage: string;

  constructor(init: TasErrorInit) {
    super(describe(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.gateway = init.gateway ?? false;
    this.serverMessage = init.message;
  }
}

/** 400: fix the fields named in `details`; never retried. */
export class ValidationError extends TasError {}
/** 401 or 403: a gateway refusal (retried once, re-signed) or the service's `Invalid body hash`. */
export class AuthenticationError extends TasError {}
/** 404: the ID does not exist or belongs to another API key. */
export class NotFoundError extends TasError {}
/** 409: the order is no longer pending; read it and act on its status. */
export class ConflictError extends TasError {}
/** 422 NO_ROUTE: no source can route the pair and amount now. */
export class NoRouteError extends TasError {}
/** 429: the gateway's rate limit. */
export class RateLimitError extends TasError {
  /** From the Retry-After header, when present. */
  readonly retryAfterSeconds?: number;
  constructor(init: TasErrorInit & { retryAfterSeconds?: number }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
/** 5xx, from the service (with a code such as QUOTE_ERROR) or the gateway (INTERNAL_SERVER_ERROR, SERVICE_UNAVAILABLE). */
export class ServerError extends TasError {
  /** From the Retry-After header, when present (a 503 while the service's store is briefly away sends one). */
  readonly retryAfterSeconds?: number;
  constructor(init: TasErrorInit & { retryAfterSeconds?: number }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
/** No HTTP answer: connection refused or dropped, DNS failure, or the per-attempt timeout. */
export class NetworkError extends TasError {
  constructor(message: string, cause?: unknown) {
    super({ code: 'NETWORK_ERROR', status: 0, message, cause });
  }
}
/** A polling helper reached its deadline before the resource reached a final state. */
export class PollTimeoutError extends TasError {
  /** The last value read (undefined when no read succeeded). */
  readonly lastValue: unknown;
  constructor(message: string, lastValue: unknown, cause?: unknown) {
    super({ code: 'POLL_TIMEOUT', status: 0, message, cause });
    this.lastValue = lastValue;
  }
}

/** The codes given to gateway answers, which carry no code of their own. */
export const GATEWAY_CODES: Readonly<Record<number, string>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The class for an HTTP status. */
export function errorForStatus(init: TasErrorInit & { retryAfterSeconds?: number }): TasError {
  const { status } = init;
  if (status === 400) return new ValidationError(init);
  if (status === 401 || status === 403) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 422) return new NoRouteError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  return new TasError(init);
}
