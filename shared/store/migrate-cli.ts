import { loadConfig } from '../config/load-config';
import { createKnex, dialectOf } from './create-knex';
import { migrateToLatest } from './migrate';

async function main(): Promise<void> {
  const config = loadConfig();
  const knex = createKnex(config);
  try {
    const applied = await migrateToLatest(knex);
    console.log(
      applied.length
        ? `Applied ${applied.length} migration(s) on ${dialectOf(config)}: ${applied.join(', ')}`
        : `Store on ${dialectOf(config)} is up to date`,
    );
  } finally {
    await knex.destroy();
  }
}

main().catch((err: Error) => {
  console.error(`Migration failed: ${err.message}`);
  process.exitCode = 1;
});
