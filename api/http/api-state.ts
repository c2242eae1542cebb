import type { Logger } from '../../shared/log/create-logger';
import type { AuthContext } from '../gateway/account-authenticator';

/** What the middleware chain keeps on `ctx.state` for one request. */
export interface ApiState {
  requestId: string;
  log: Logger;
  /** Set once the gateway authenticated a signed request. */
  auth?: AuthContext;
  /** Route template (`/api/v1/limit-order/:id`), for metrics; unset for unknown routes. */
  routeTemplate?: string;
  /** The route's path parameters, decoded, once a route matched. */
  params?: Record<string, string>;
  /** The raw request body, once read. */
  rawBody?: Buffer;
}
