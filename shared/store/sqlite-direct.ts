import type { Database, Statement } from 'better-sqlite3';
import type { Knex } from 'knex';

/** Values a prepared statement binds. */
export type SqlValue = string | number | bigint | null;

/** The store's SQLite connection while `SqliteDirect.run` holds it: statements prepared once per connection. */
export interface SqliteSession {
  readonly db: Database;
  /** The statement for `sql`, prepared on first use and kept for the connection's life. */
  statement(sql: string): Statement;
}

interface KnexClient {
  acquireConnection(): Promise<Database>;
  releaseConnection(connection: Database): Promise<unknown>;
}

/**
 * Hot-path writes on SQLite without knex: knex builds and prepares every statement anew on each call, which costs
 * several times the write itself. `run` takes the one connection of knex's SQLite pool (so it serializes with every
 * knex query and transaction of the process, exactly as a knex query does), runs synchronous better-sqlite3 work
 * with statements prepared once, and hands the connection back. Only for SQLite stores.
 */
export class SqliteDirect {
  private readonly prepared = new WeakMap<Database, Map<string, Statement>>();

  constructor(private readonly knex: Knex) {}

  async run<T>(work: (session: SqliteSession) => T): Promise<T> {
    const client = this.knex.client as unknown as KnexClient;
    const db = await client.acquireConnection();
    try {
      let statements = this.prepared.get(db);
      if (!statements) {
        statements = new Map();
        this.prepared.set(db, statements);
      }
      const cache = statements;
      return work({
        db,
        statement(sql) {
          let statement = cache.get(sql);
          if (!statement) {
            statement = db.prepare(sql);
            cache.set(sql, statement);
          }
          return statement;
        },
      });
    } finally {
      await client.releaseConnection(db);
    }
  }
}
