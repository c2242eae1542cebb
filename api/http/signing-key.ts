import { UnauthorizedError } from '../../shared/domain/errors';
import type { AuthContext } from '../gateway/account-authenticator';

/**
 * The API key that signed the request: orders and strategies belong to it. The gateway always sets it on signed
 * routes; reaching a handler without it is the spec's server-side `401 UNAUTHORIZED`.
 */
export function signingKeyOf(auth: AuthContext | undefined): string {
  if (!auth) throw new UnauthorizedError();
  return auth.apiKey;
}
