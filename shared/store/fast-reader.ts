import path from 'node:path';
import Database from 'better-sqlite3';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import {
  MYSQL_CONNECT_TIMEOUT_MS,
  SQLITE_FILE_NAME,
  dialectOf,
  type StoreConnectionConfig,
} from './create-knex';

/**
 * Prepared, cached single-statement reads for the api's hot paths (a row by primary key on every signed read).
 * knex builds and prepares every query anew, which costs more than the read itself; these go to the drivers
 * directly with statements prepared once. Reads only: every write goes through knex and its transactions.
 * SQL given here must be valid on both dialects.
 */
export interface FastReader {
  first<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T | undefined>;
  all<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T[]>;
  close(): Promise<void>;
}

class SqliteReader implements FastReader {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(dataDir: string) {
    // A second, read-only connection: in WAL mode a reader never waits for the writer, so this synchronous
    // driver can never block the event loop on a lock held by a knex transaction.
    this.db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  }

  async first<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T | undefined> {
    return this.statement(sql).get(...params) as T | undefined;
  }

  async all<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T[]> {
    return this.statement(sql).all(...params) as T[];
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

class MysqlReader implements FastReader {
  private readonly pool: Pool;

  constructor(databaseUrl: string) {
    this.pool = createPool({
      uri: databaseUrl,
      connectionLimit: 10,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: false,
      timezone: 'Z',
      charset: 'utf8mb4',
      // As the knex pool's: an unreachable store fails the read within seconds (mysql2's pool drops the
      // connections that broke, so reads resume on new ones once it is back).
      connectTimeout: MYSQL_CONNECT_TIMEOUT_MS,
    });
  }

  async first<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T | undefined> {
    const [rows] = await this.pool.execute<RowDataPacket[]>(sql, params as Array<string | number>);
    return rows[0] as T | undefined;
  }

  async all<T>(sql: string, params: ReadonlyArray<string | number>): Promise<T[]> {
    const [rows] = await this.pool.execute<RowDataPacket[]>(sql, params as Array<string | number>);
    return rows as T[];
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Opened after the migrations ran (the SQLite reader needs the file to exist). */
export function createFastReader(config: StoreConnectionConfig): FastReader {
  return dialectOf(config) === 'mysql'
    ? new MysqlReader(config.databaseUrl)
    : new SqliteReader(config.dataDir);
}
