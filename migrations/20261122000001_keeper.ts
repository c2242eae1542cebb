import type { Knex } from 'knex';

/**
 * The keeper's durable state: one row per batch transaction it signs (`keeper_transactions`), and the columns
 * that tie an order to the transaction carrying it. The recovery rules these serve are written down in
 * shared/store/repositories/keeper-transactions-repository.ts.
 */
function binaryCollation(t: Knex.CreateTableBuilder, knex: Knex): void {
  if (knex.client.config.client !== 'mysql2') return;
  t.charset('utf8mb4');
  t.collate('utf8mb4_bin');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('keeper_transactions', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    t.integer('chain_id').notNullable();
    /** The executor wallet that signed it. */
    t.string('executor', 42).notNullable();
    t.bigInteger('nonce').notNullable();
    /** The hash of `raw_tx`: the latest replacement. */
    t.string('tx_hash', 66).notNullable();
    /** JSON array of every hash signed for this nonce and batch, oldest first: any of them may be the one mined. */
    t.text('tx_hashes', 'mediumtext').notNullable();
    /** The signed transaction, stored before it is broadcast so a restarted keeper can broadcast it again. */
    t.text('raw_tx', 'mediumtext').notNullable();
    /** Wei as decimal strings: they can exceed 2^53 and SQLite has no exact wide DECIMAL. */
    t.string('max_fee_per_gas', 78).notNullable();
    t.string('max_priority_fee_per_gas', 78).notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('trigger_block').nullable();
    t.bigInteger('submitted_block').nullable();
    t.bigInteger('mined_block').nullable();
    t.string('mined_block_hash', 66).nullable();
    /** JSON arrays of the order ids the batch carries, as written at submission (kept after settlement). */
    t.text('limit_order_ids', 'mediumtext').notNullable();
    t.text('dca_order_ids', 'mediumtext').notNullable();
    /** The keeper tracking the transaction; another takes it over once the lease has expired. */
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.integer('version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['chain_id', 'status'], 'keeper_transactions_chain_status_idx');
    t.index(['status', 'lease_expires_at'], 'keeper_transactions_lease_idx');
    t.index(['chain_id', 'executor', 'nonce'], 'keeper_transactions_nonce_idx');
  });

  await knex.schema.alterTable('limit_orders', (t) => {
    /** The keeper transaction carrying the order while it is `submitted` (null otherwise). */
    t.string('keeper_tx_id', 36).nullable();
    t.index(['keeper_tx_id'], 'limit_orders_keeper_tx_idx');
    // The keeper's incremental index reads by (updated_at, id) keyset pages.
    t.index(['updated_at', 'id'], 'limit_orders_updated_id_idx');
  });

  await knex.schema.alterTable('dca_orders', (t) => {
    /**
     * DCA orders have no `submitted` status (the spec's states are pending → executing → final), so an executing
     * order inside a transaction is told apart from one merely claimed by this column.
     */
    t.string('keeper_tx_id', 36).nullable();
    /** Unix milliseconds before which a retried order is not claimed again. */
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    /** Bumped on every keeper write, so a keeper can tell an order changed under it. */
    t.integer('version').notNullable().defaultTo(0);
    t.index(['keeper_tx_id'], 'dca_orders_keeper_tx_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dca_orders', (t) => {
    t.dropIndex(['keeper_tx_id'], 'dca_orders_keeper_tx_idx');
    t.dropColumn('keeper_tx_id');
    t.dropColumn('next_attempt_at');
    t.dropColumn('version');
  });
  await knex.schema.alterTable('limit_orders', (t) => {
    t.dropIndex(['keeper_tx_id'], 'limit_orders_keeper_tx_idx');
    t.dropIndex(['updated_at', 'id'], 'limit_orders_updated_id_idx');
    t.dropColumn('keeper_tx_id');
  });
  await knex.schema.dropTableIfExists('keeper_transactions');
}
