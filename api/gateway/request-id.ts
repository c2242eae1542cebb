import { randomUUID } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import type { Logger } from '../../shared/log/create-logger';
import type { AuthContext } from './account-authenticator';
import type { ApiState } from '../http/api-state';

export const REQUEST_ID_HEADER = 'apigw-requestid';

/**
 * A request's state, of one shape for every request. Most requests log nothing beyond the access line, and a pino
 * child costs more than a cached read: the request's logger is built on first use, bound to the request id and,
 * once authenticated, the API key id.
 */
class RequestState implements ApiState {
  auth?: AuthContext;
  routeTemplate?: string;
  params?: Record<string, string>;
  rawBody?: Buffer;
  readonly #root: Logger;
  #child: Logger | undefined;

  constructor(
    readonly requestId: string,
    root: Logger,
  ) {
    this.#root = root;
  }

  get log(): Logger {
    return (this.#child ??= this.#root.child({
      requestId: this.requestId,
      ...(this.auth ? { apiKeyId: this.auth.apiKey } : {}),
    }));
  }

  set log(replacement: Logger) {
    this.#child = replacement;
  }
}

/** Gives the request a unique id, on the response header and on the request's logger. */
export function startRequest(ctx: ParameterizedContext<ApiState>, log: Logger): void {
  const id = randomUUID();
  ctx.state = new RequestState(id, log);
  ctx.set(REQUEST_ID_HEADER, id);
}
