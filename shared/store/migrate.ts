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

/** Brings the store to the latest schema; safe to call from several processes at once (knex takes a lock). */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource: new StaticMigrationSource() })) as [
    number,
    string[],
  ];
  return applied;
}

/** Undoes every migration: the store is left empty (used by `npm run devnet:reset --force` on MySQL). */
export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource: new StaticMigrationSource() }, true);
}
