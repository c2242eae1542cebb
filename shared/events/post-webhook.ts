import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, InternalTargetError, isInternalAddress } from './webhook-target';

export interface PostResult {
  /** The receiver's status; null when none came (refused, timed out, not allowed). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowInternal: boolean;
}

/** How much of a receiver's answer is read (and thrown away) before the socket is closed. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one delivery. Redirects are not followed (a 3xx is a failed attempt: the integrator fixes the URL), and
 * the whole exchange, answer included, must end within the timeout.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): PostResult => ({
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(null, 'invalid URL'));
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowInternal && isIP(host) && isInternalAddress(host)) {
    return Promise.resolve(done(null, new InternalTargetError(host).message));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(options.allowInternal ? {} : { lookup: guardedLookup }),
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const status = response.statusCode ?? null;
        response.on('end', () => finish(done(status, null)));
        response.on('close', () => finish(done(status, null)));
        response.on('error', () => finish(done(status, null)));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(done(null, `no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (err) => finish(done(null, err.message)));
    request.end(body);
  });
}
