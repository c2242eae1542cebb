import type { Knex } from 'knex';

/** A mysql2 connection of knex's pool, as much of it as a transaction needs. */
interface PooledConnection {
  query(sql: string, values: readonly unknown[], done: (err: Error | null) => void): void;
}

interface KnexClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
}

/** A statement with its bindings, as knex's `toSQL().toNative()` gives them. */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
}

function query(connection: PooledConnection, sql: string, values: readonly unknown[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    connection.query(sql, values, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * Statements in one MySQL transaction on a connection of knex's pool (its size, timeouts and health checks apply),
 * without `knex.transaction`: that builds a knex instance per transaction whose properties are accessors defined on
 * the instance, a hidden class of its own in the old generation holding the transaction's work, so under a burst of
 * writes every waiting request's objects survived young collections and were promoted. Rolled back and rejected
 * with the statement's error when one fails; committed only when every one succeeded.
 */
export async function runMysqlTransaction(knex: Knex, statements: readonly NativeStatement[]): Promise<void> {
  const client = knex.client as unknown as KnexClient;
  const connection = await client.acquireConnection();
  try {
    await query(connection, 'START TRANSACTION');
    try {
      for (const statement of statements) await query(connection, statement.sql, statement.bindings);
      await query(connection, 'COMMIT');
    } catch (err) {
      // A connection that broke cannot roll back, and needs not: the server drops its open transaction.
      await query(connection, 'ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
