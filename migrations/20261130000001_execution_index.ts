import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Execution indices (issue 26): the OrderExecutor records executed orders as bits of a bitmap indexed by an index
 * the service assigns once per order, unique among the limit orders and DCA iterations of this store and
 * consecutive for the orders of one claim (they share the bitmap's storage words, the cheapest way to mark them).
 * - `exec_index` on `limit_orders` and `dca_orders`: NULL until the order's first claim, which takes it from the
 *   counter in the claim's store transaction; never changed afterwards (an order re-planned after a dropped or
 *   reorged transaction carries the same index, so the contract can execute it once at most). Unique per table;
 *   unique across both through the one counter.
 * - `execution_index_counter`: one row (`id` 1), `next_index` the first index not handed out yet. A new store starts
 *   at a random multiple of 256 below 2^52 (a safe integer for JavaScript, far inside the contract's uint64): a store
 *   started afresh against an OrderExecutor an earlier store used (a database reset, a second environment) almost
 *   surely never hands out an index that one spent, which would fail its order ALREADY_EXECUTED.
 */
const TABLES = ['limit_orders', 'dca_orders'] as const;
const EXECUTION_INDEX_COUNTER = 'execution_index_counter';

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('exec_index').nullable();
      t.unique(['exec_index'], { indexName: `${table}_exec_index_unique` });
    });
  }
  await knex.schema.createTable(EXECUTION_INDEX_COUNTER, (t) => {
    t.integer('id').primary();
    t.bigInteger('next_index').notNullable();
  });
  // Never 0: a 0 read from a row always means a bug, never an order.
  await knex(EXECUTION_INDEX_COUNTER).insert({ id: 1, next_index: randomInt(1, 2 ** 44) * 256 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable(EXECUTION_INDEX_COUNTER);
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropUnique(['exec_index'], `${table}_exec_index_unique`);
      t.dropColumn('exec_index');
    });
  }
}
