import { NetworkError } from './errors';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpAttempt {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Absent for GET and DELETE: they send no body at all. */
  body?: string;
}

function failureText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // Node's fetch says only "fetch failed"; the socket's reason is in the cause.
  const cause = err.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return err.message;
}

/** One HTTP exchange, body read included, within `timeoutMs`; any failure to get an answer is a NetworkError. */
export async function sendOnce(
  fetchImpl: typeof fetch,
  attempt: HttpAttempt,
  timeoutMs: number,
): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetchImpl(attempt.url, {
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body,
      signal: controller.signal,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  } catch (err) {
    if (controller.signal.aborted) throw new NetworkError(`no answer within ${timeoutMs} ms`, err);
    throw new NetworkError(failureText(err), err);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
