import type { Middleware } from 'koa';
import { SIGNING_HEADERS } from '../../shared/signing/request-signature';
import type { StoreWatch } from '../../shared/store/store-watch';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../http/api-state';
import type { AccountAuthenticator } from './account-authenticator';
import { forbidden, storeUnavailable, tooManyRequests, unauthorized } from './gateway-error';
import type { RateLimiter } from './rate-limiter';

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Checks 1 to 4 of the spec: 401 when a signing header is missing, otherwise 403 for any failure of the
 * credentials, never saying which (the reason goes to metrics and debug logs only); 503 with `Retry-After` when
 * they could not be checked at all (the store or Redis did not answer).
 */
export function authenticate(
  authenticator: AccountAuthenticator,
  metrics: ApiMetrics,
  failures: RateLimiter,
  store: Pick<StoreWatch, 'failed'>,
): Middleware<ApiState> {
  return async (ctx, next) => {
    // Each refused attempt may have cost a scrypt hash: an IP that keeps failing waits before it may try again.
    const failureKey = `auth-failures:${ctx.ip}`;
    const wait = await failures.exhausted(failureKey);
    if (wait > 0) {
      metrics.rateLimited.inc();
      throw tooManyRequests(wait);
    }
    const h = ctx.request.headers;
    const apiKey = header(h[SIGNING_HEADERS.apiKeyId]);
    const valueInfo = header(h[SIGNING_HEADERS.valueInfo]);
    const passphrase = header(h[SIGNING_HEADERS.passphrase]);
    const signature = header(h[SIGNING_HEADERS.signature]);
    if (!apiKey || !valueInfo || !passphrase || !signature) {
      metrics.authFailures.inc({ reason: 'missing-header' });
      throw unauthorized();
    }
    let result;
    try {
      result = await authenticator.authenticate(
        { apiKey, valueInfo, passphrase, signature },
        { method: ctx.method, path: ctx.path, rawQuery: ctx.querystring },
      );
    } catch (err) {
      // Verification could not run: answered as the spec's "service briefly unavailable", not as the 403 that
      // sends integrators to their keys. It costs the IP none of its refused-attempt budget, which a client
      // retrying through an outage would otherwise spend. A store outage is logged once, by the store watch.
      if (!store.failed(err)) ctx.state.log.error({ err }, 'authentication could not be verified');
      metrics.authFailures.inc({ reason: 'unavailable' });
      throw storeUnavailable();
    }
    if (!result.ok) {
      metrics.authFailures.inc({ reason: result.reason });
      ctx.state.log.debug({ reason: result.reason }, 'authentication refused');
      await failures.take(failureKey);
      throw forbidden();
    }
    ctx.state.auth = result.context;
    await next();
  };
}
