import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Logger } from '../log/create-logger';
import { knexLog } from './knex-log';

export type Dialect = 'sqlite' | 'mysql';

export interface StoreConnectionConfig {
  databaseUrl: string;
  dataDir: string;
}

export function dialectOf(config: StoreConnectionConfig): Dialect {
  return config.databaseUrl ? 'mysql' : 'sqlite';
}

export const SQLITE_FILE_NAME = 'store.sqlite';

/**
 * How long a MySQL connection attempt may take. A server that is down refuses at once; one cut off by the network
 * never answers, and mysql2's own default (10 s) would hold every request that long.
 */
export const MYSQL_CONNECT_TIMEOUT_MS = 3_000;
/**
 * How long a query waits for a pooled connection (knex's default is 60 s). While the store cannot be reached a
 * request must fail within seconds, to be answered 503 well inside the gateway's 30-second timeout, rather than
 * queue until the gateway gives up on it; a healthy pool hands out a connection in milliseconds.
 */
export const MYSQL_ACQUIRE_TIMEOUT_MS = 5_000;

/**
 * The one knex instance of a process: MySQL/MariaDB when DATABASE_URL is set, else SQLite (WAL) in the data folder.
 * knex's own messages go to `log` when given (else to the console, as knex does).
 */
export function createKnex(config: StoreConnectionConfig, log?: Logger): Knex {
  const logged = log ? { log: knexLog(log) } : {};
  if (dialectOf(config) === 'mysql') {
    return knexFactory({
      ...logged,
      client: 'mysql2',
      connection: {
        uri: config.databaseUrl,
        // DECIMAL stays a string (exact); BIGINT millisecond times fit a double.
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: false,
        timezone: 'Z',
        charset: 'utf8mb4',
        connectTimeout: MYSQL_CONNECT_TIMEOUT_MS,
      } as unknown as Knex.MySql2ConnectionConfig,
      // min 0: no connection is kept open for its own sake, so after an outage the pool holds none of the dead
      // ones; each is made anew on demand (knex drops a connection that reported an error).
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: MYSQL_ACQUIRE_TIMEOUT_MS,
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return knexFactory({
    ...logged,
    client: 'better-sqlite3',
    connection: { filename: path.join(config.dataDir, SQLITE_FILE_NAME) },
    useNullAsDefault: true,
    pool: {
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        done(null, conn);
      },
    },
  });
}

/** True when a knex error is a duplicate-key violation, in either dialect. */
export function isDuplicateKeyError(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return (
    e?.code === 'ER_DUP_ENTRY' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
