import type { Knex } from 'knex';
import { MIGRATIONS } from '../../migrations';

class StaticMigrationSource implements Knex.MigrationSource<string> {
  async getMigrations(): Promise<string[]> {
    return MIGRATIONS.map(([name]) => name);
  }
  getMigrationName(name: string): string {
    return name;
  }
  async getMigration(name: string): Promise<Knex.Migration> {
    const found = MIGRATIONS.find(([n]) => n === name);
    if (!found) throw new Error(`Unknown migration ${name}`);
    return found[1];
  }
}

/*
 * knex creates its bookkeeping tables without a lock (check, then create) and refuses, instead of waiting, when
 * another process holds the migration lock: a process starting beside another one (api and keeper on one store)
 * retries until the other has migrated, then finds nothing left to do.
 */
const CONCURRENT_MIGRATION = /already exists|already locked|Duplicate entry|UNIQUE constraint failed/i;
const MIGRATION_WAIT_MS = 60_000;

/** MySQL's named lock one migrating process holds at a time, per database (GET_LOCK names are server-wide). */
const MYSQL_MIGRATION_LOCK = "CONCAT('tas:migrations:', DATABASE())";

/**
 * Brings the store to the latest schema; safe to call from several processes at once. On MySQL the processes take
 * turns under a named lock: knex inserts its one lock row after checking that its lock table is empty, so two
 * processes creating the tables together can insert two rows, and knex then refuses every lock for good (it wants
 * exactly one row updated). SQLite's writers are serialised by the database; the retries cover the rest.
 */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  if (knex.client.config?.client !== 'mysql2') return latestWithRetries(knex);
  // The lock's session is a transaction's connection, held for the turn; the migration runs on the pool's others.
  return knex.transaction(async (session) => {
    const [rows] = (await session.raw(`SELECT GET_LOCK(${MYSQL_MIGRATION_LOCK}, ?) AS got`, [
      MIGRATION_WAIT_MS / 1000,
    ])) as [Array<{ got: number | null }>];
    if (rows[0]?.got !== 1)
      throw new Error(`another process kept the migration lock for ${MIGRATION_WAIT_MS} ms`);
    try {
      return await latestWithRetries(knex);
    } finally {
      await session.raw(`SELECT RELEASE_LOCK(${MYSQL_MIGRATION_LOCK})`);
    }
  });
}

async function latestWithRetries(knex: Knex): Promise<string[]> {
  const deadline = Date.now() + MIGRATION_WAIT_MS;
  for (;;) {
    try {
      const [, applied] = (await knex.migrate.latest({ migrationSource: new StaticMigrationSource() })) as [
        number,
        string[],
      ];
      return applied;
    } catch (err) {
      if (!CONCURRENT_MIGRATION.test((err as Error).message) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}

/** Undoes every migration: the store is left empty (used by `npm run devnet:reset --force` on MySQL). */
export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource: new StaticMigrationSource() }, true);
}
