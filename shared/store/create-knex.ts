import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';

export type Dialect = 'sqlite' | 'mysql';

export interface StoreConnectionConfig {
  databaseUrl: string;
  dataDir: string;
}

export function dialectOf(config: StoreConnectionConfig): Dialect {
  return config.databaseUrl ? 'mysql' : 'sqlite';
}

export const SQLITE_FILE_NAME = 'store.sqlite';

/** The one knex instance of a process: MySQL/MariaDB when DATABASE_URL is set, else SQLite (WAL) in the data folder. */
export function createKnex(config: StoreConnectionConfig): Knex {
  if (dialectOf(config) === 'mysql') {
    return knexFactory({
      client: 'mysql2',
      connection: {
        uri: config.databaseUrl,
        // DECIMAL stays a string (exact); BIGINT millisecond times fit a double.
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: false,
        timezone: 'Z',
        charset: 'utf8mb4',
      } as unknown as Knex.MySql2ConnectionConfig,
      pool: { min: 0, max: 10 },
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return knexFactory({
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
