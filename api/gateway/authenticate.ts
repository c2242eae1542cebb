import type { Middleware, ParameterizedContext } from 'koa';
import { SIGNING_HEADERS } from '../../shared/signing/request-signature';
import type { StoreWatch } from '../../shared/store/store-watch';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../http/api-state';
import type { AccountAuthenticator } from './account-authenticator';
import { forbidden, storeUnavailable, tooManyRequests, unauthorized } from './gateway-error';
import type { RateLimiter } from './rate-limiter';
import type { RedisSignedGate } from './redis-signed-gate';

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const failureKeyOf = (ip: string): string => `auth-failures:${ip}`;

/** A refused attempt: counted, logged at debug, charged to the IP's failure budget, answered 403. */
async function refuse(
  ctx: ParameterizedContext<ApiState>,
  reason: string,
  metrics: ApiMetrics,
  failures: RateLimiter,
): Promise<never> {
  metrics.authFailures.inc({ reason });
  ctx.state.log.debug({ reason }, 'authentication refused');
  await failures.take(failureKeyOf(ctx.ip));
  throw forbidden();
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
    const failureKey = failureKeyOf(ctx.ip);
    const wait = failures.now ? failures.now.exhausted(failureKey) : await failures.exhausted(failureKey);
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
    if (!result.ok) await refuse(ctx, result.reason, metrics, failures);
    else ctx.state.auth = result.context;
    await next();
  };
}

export interface SignedGatewayDeps {
  authenticator: AccountAuthenticator;
  metrics: ApiMetrics;
  /** The IP's rate limit, authentication with the failure budget, the key's rate limit: the separate steps. */
  perIp: Middleware<ApiState>;
  auth: Middleware<ApiState>;
  perKey: Middleware<ApiState>;
  failures: RateLimiter;
  /** With Redis: the Redis work of the three steps in one round trip. */
  oneTrip?: RedisSignedGate;
}

/**
 * The gateway of a signed route: the IP's rate limit, authentication (with the IP's failure budget), then the key's
 * rate limit. With Redis, a request whose credentials this process can check alone (a known, fresh, active account
 * and a passphrase already verified) has its signature checked first, in memory, then the three steps' Redis work
 * done in one script with the same outcomes in the same order; anything else, or Redis not answering the script,
 * takes the separate steps (which know Redis's fallbacks).
 */
export function signedGateway(deps: SignedGatewayDeps): Middleware<ApiState> {
  const { perIp, auth, perKey, oneTrip, metrics } = deps;
  const separate: Middleware<ApiState> = (ctx, next) => perIp(ctx, () => auth(ctx, () => perKey(ctx, next)));
  if (!oneTrip) return separate;
  return async (ctx, next) => {
    const h = ctx.request.headers;
    const apiKey = header(h[SIGNING_HEADERS.apiKeyId]);
    const valueInfo = header(h[SIGNING_HEADERS.valueInfo]);
    const passphrase = header(h[SIGNING_HEADERS.passphrase]);
    const signature = header(h[SIGNING_HEADERS.signature]);
    const known =
      apiKey && valueInfo && passphrase && signature
        ? deps.authenticator.verifyKnown(
            { apiKey, valueInfo, passphrase, signature },
            { method: ctx.method, path: ctx.path, rawQuery: ctx.querystring },
          )
        : undefined;
    if (!known) return separate(ctx, next);
    let outcome;
    try {
      outcome = await oneTrip.run(ctx.ip, known.nonce);
    } catch {
      return separate(ctx, next);
    }
    switch (outcome.kind) {
      case 'too-late':
        return separate(ctx, next);
      case 'ip-limited':
      case 'failures-limited':
      case 'key-limited':
        metrics.rateLimited.inc();
        throw tooManyRequests(outcome.retryAfter);
      case 'replay':
        return refuse(ctx, 'replay', metrics, deps.failures);
      case 'passed':
        ctx.state.auth = known.context;
        return next();
    }
  };
}
