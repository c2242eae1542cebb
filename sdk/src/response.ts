import { errorForStatus, GATEWAY_CODES, TasError, type ErrorDetail } from './errors';
import type { ApiResult, Meta } from './types';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

function detailsOf(value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((item) => {
    const message = stringOr(item.message, JSON.stringify(item));
    return typeof item.field === 'string' ? { field: item.field, message } : { message };
  });
}

/** Retry-After in seconds (delta-seconds, or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * The result of one HTTP answer: `{data, meta}` of a success envelope, otherwise the typed error. An answer
 * without the `success` key is the gateway's (`{message}`) or something in between (a proxy's page).
 */
export function interpretResponse<T>(status: number, headers: Headers, text: string): ApiResult<T> {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headerRequestId = headers.get('apigw-requestid') ?? undefined;
  const retryAfter = retryAfterSeconds(headers.get('retry-after'));
  if (isObject(body) && 'success' in body) {
    const meta = isObject(body.meta) ? body.meta : {};
    const requestId = typeof meta.requestId === 'string' ? meta.requestId : headerRequestId;
    if (body.success === true) return { data: body.data as T, meta: meta as Meta };
    const error = isObject(body.error) ? body.error : {};
    throw errorForStatus({
      code: stringOr(error.code, `HTTP_${status}`),
      status,
      message: stringOr(error.message, 'error without a message'),
      details: detailsOf(error.details),
      requestId,
      retryAfterSeconds: retryAfter,
    });
  }
  const gatewayMessage = isObject(body) && typeof body.message === 'string' ? body.message : undefined;
  if (status >= 200 && status < 300) {
    throw new TasError({
      code: 'INVALID_RESPONSE',
      status,
      message: 'the answer is not the API envelope',
      requestId: headerRequestId,
    });
  }
  throw errorForStatus({
    code: GATEWAY_CODES[status] ?? `HTTP_${status}`,
    status,
    message: gatewayMessage ?? (text.trim().slice(0, 200) || `HTTP ${status}`),
    requestId: headerRequestId,
    gateway: gatewayMessage !== undefined,
    retryAfterSeconds: retryAfter,
  });
}
