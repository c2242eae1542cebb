import type { Knex } from 'knex';
import { MIGRATIONS } from '../../migrations';
import { createKnex } from '../../shared/store/create-knex';
import { migrateToLatest } from '../../shared/store/migrate';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

/** The api and the keeper run apart on one store and both migrate it when they start. */
describeEachStore('migrations started by several processes at once', (kind) => {
  let target: StoreTarget;
  const connections: Knex[] = [];

  beforeEach(async () => {
    target = await createStoreTarget(kind);
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((k) => k.destroy()));
    await target.cleanup();
  });

  it('bring an empty store to the latest schema once, every caller succeeding', async () => {
    for (let i = 0; i < 8; i += 1)
      connections.push(createKnex({ databaseUrl: target.databaseUrl, dataDir: target.dataDir }));
    const applied = await Promise.all(connections.map((k) => migrateToLatest(k)));

    expect(applied.flat().sort()).toEqual(MIGRATIONS.map(([name]) => name).sort());
    const rows = (await connections[0]!('knex_migrations').select('name')) as Array<{ name: string }>;
    expect(rows.map((r) => r.name).sort()).toEqual(MIGRATIONS.map(([name]) => name).sort());
    expect(await migrateToLatest(connections[1]!)).toEqual([]);
    // knex's lock table holds exactly one row: with two, knex refuses every later lock ("already locked" for good).
    const locks = (await connections[0]!('knex_migrations_lock').select('is_locked')) as unknown[];
    expect(locks).toHaveLength(1);
  });
});
