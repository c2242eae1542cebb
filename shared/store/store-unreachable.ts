/**
 * Codes that say the store's server could not be reached or dropped the connection, as opposed to a statement it
 * refused (a duplicate key, a deadlock): the network's, mysql2's connection-level ones and the MySQL client's.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
  'CR_CONNECTION_ERROR',
  'CR_CONN_HOST_ERROR',
  // SQLite's file cannot be opened or read: its disk or mount went away.
  'SQLITE_CANTOPEN',
]);

interface ErrorFields {
  code?: unknown;
  fatal?: unknown;
  name?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Whether an error of a store call means the store could not be reached (down, restarting, unreachable on the
 * network, or every pooled connection busy past the pool's acquire timeout), not that the statement itself failed.
 * Such a call can be tried again once the store is back: nothing about the request or the row was wrong.
 */
export function isStoreUnreachable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as ErrorFields;
  // mysql2 marks every error that ends the connection (refused, reset, lost, closed) fatal; a statement's is not.
  if (e.fatal === true) return true;
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('SQLITE_IOERR')))
    return true;
  // knex's pool gave up waiting for a connection (acquireConnectionTimeout).
  if (e.name === 'KnexTimeoutError') return true;
  // A host name with several addresses fails with one error per address (net's AggregateError).
  if (Array.isArray(e.errors) && e.errors.some((inner) => isStoreUnreachable(inner, depth + 1))) return true;
  return isStoreUnreachable(e.cause, depth + 1);
}
