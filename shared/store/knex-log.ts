import type { Knex } from 'knex';
import type { Logger } from '../log/create-logger';

/** knex's own messages about connections it could not make or had to drop. */
const CONNECTION_NOISE = /^(Acquire connection error|Connection Error)/;

/**
 * knex's messages on the process's logger rather than bare console lines among the JSON ones. Its connection
 * errors go to debug: each failed call of an outage would print one, and the store watch reports the outage once
 * (shared/store/store-watch.ts); the failed call itself reaches its caller as an error.
 */
export function knexLog(log: Logger): Knex.Logger {
  const text = (message: unknown): string => (typeof message === 'string' ? message : String(message));
  return {
    warn: (message: unknown) => {
      const knex = text(message);
      if (CONNECTION_NOISE.test(knex)) log.debug({ knex }, 'knex: connection failed');
      else log.warn({ knex }, 'knex warning');
    },
    error: (message: unknown) => log.error({ knex: text(message) }, 'knex error'),
    deprecate: (method: string, alternative: string) =>
      log.warn({ knex: `${method} is deprecated: use ${alternative}` }, 'knex warning'),
    debug: (message: unknown) => log.debug({ knex: text(message) }, 'knex debug'),
  };
}
