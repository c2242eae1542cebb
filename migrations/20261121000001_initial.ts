import type { Knex } from 'knex';

/**
 * Tables shared by the api and the keeper. Times are Unix milliseconds (BIGINT) so both dialects compare them alike;
 * human amounts are kept as the exact decimal strings sent beside the doubles the API reports.
 */
/** MySQL compares strings case-insensitively by default; the spec's filters (accountTo) are exact. */
function binaryCollation(t: Knex.CreateTableBuilder, knex: Knex): void {
  if (knex.client.config.client !== 'mysql2') return;
  t.charset('utf8mb4');
  t.collate('utf8mb4_bin');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    binaryCollation(t, knex);
    t.string('api_key', 36).primary();
    t.string('name', 255).notNullable();
    t.string('passphrase_hash', 255).notNullable();
    t.text('secret_encrypted').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('request_nonces', (t) => {
    binaryCollation(t, knex);
    t.string('api_key', 36).notNullable();
    t.string('nonce', 24).notNullable();
    t.bigInteger('expires_at').notNullable();
    /** Random token of the request that recorded the nonce: tells a batch which of its rows it won. */
    t.string('claim', 32).notNullable();
    t.primary(['api_key', 'nonce']);
    t.index(['expires_at'], 'request_nonces_expires_idx');
  });

  await knex.schema.createTable('tokens', (t) => {
    binaryCollation(t, knex);
    t.integer('chain_id').notNullable();
    t.string('address_lower', 42).notNullable();
    t.string('address', 42).notNullable();
    t.string('symbol', 64).notNullable();
    t.string('name', 255).notNullable();
    t.integer('decimals').notNullable();
    t.string('logo_uri', 1024).nullable();
    t.boolean('native').notNullable().defaultTo(false);
    t.integer('position').notNullable().defaultTo(0);
    t.primary(['chain_id', 'address_lower']);
  });

  await knex.schema.createTable('reference_prices', (t) => {
    binaryCollation(t, knex);
    t.integer('chain_id').notNullable();
    t.string('base_symbol', 64).notNullable();
    t.string('quote_symbol', 64).notNullable();
    /** Units of the quote token per 1 base token, as an exact decimal string. */
    t.string('price', 100).notNullable();
    t.bigInteger('block_number').nullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['chain_id', 'base_symbol', 'quote_symbol']);
  });

  await knex.schema.createTable('limit_orders', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    t.string('api_key', 36).notNullable();
    t.string('account_to', 42).notNullable();
    t.integer('chain_id').notNullable();
    t.string('in_token', 42).notNullable();
    t.string('out_token', 42).notNullable();
    t.string('token_a_symbol', 64).notNullable();
    t.string('token_b_symbol', 64).notNullable();
    t.string('amount', 100).notNullable();
    t.string('price', 100).notNullable();
    t.string('price_trigger', 100).notNullable();
    /** The trigger as a double, for the keeper's sorted index and range scans. */
    t.double('price_trigger_num').notNullable();
    t.string('gas_price', 100).notNullable();
    t.string('slippage', 100).notNullable();
    t.string('expired', 13).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.string('signature', 132).notNullable();
    t.string('status', 16).notNullable();
    t.string('tx_hash', 66).notNullable().defaultTo('');
    t.string('executor_address', 42).notNullable().defaultTo('');
    t.text('reason_fail').notNullable();
    t.integer('attempt_number').notNullable().defaultTo(0);
    t.string('allowance', 100).notNullable().defaultTo('');
    t.string('estimate_gas', 100).notNullable().defaultTo('');
    t.string('effective_price_gas', 100).notNullable().defaultTo('');
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    /** Bumped on every change so a keeper can tell that an order changed under it. */
    t.integer('version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('deleted_at').nullable();
    t.index(['api_key', 'status'], 'limit_orders_key_status_idx');
    t.index(['api_key', 'account_to'], 'limit_orders_key_account_idx');
    t.index(
      ['chain_id', 'in_token', 'out_token', 'status', 'price_trigger_num'],
      'limit_orders_pair_open_idx',
    );
    t.index(['status', 'lease_expires_at'], 'limit_orders_lease_idx');
    t.index(['updated_at'], 'limit_orders_updated_idx');
  });

  await knex.schema.createTable('dca_strategies', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    t.string('api_key', 36).notNullable();
    t.string('account_to', 42).notNullable();
    t.integer('chain_id_from').notNullable();
    t.integer('chain_id_to').notNullable();
    t.string('token_from', 42).notNullable();
    t.string('token_to', 42).notNullable();
    t.string('symbol_from', 64).notNullable();
    t.string('symbol_to', 64).notNullable();
    t.string('pair', 130).notNullable();
    t.double('total_amount').notNullable();
    t.integer('iterations').notNullable();
    t.integer('frequency').notNullable();
    t.double('slippage').notNullable();
    t.double('min_price').nullable();
    t.double('max_price').nullable();
    t.string('status', 16).notNullable();
    t.string('signature', 132).notNullable();
    /** How many iterations the keeper has created so far (the next slot index). */
    t.integer('iterations_created').notNullable().defaultTo(0);
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.integer('version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['api_key', 'status', 'created_at'], 'dca_strategies_key_status_idx');
    t.index(['api_key', 'account_to'], 'dca_strategies_key_account_idx');
    t.index(['status', 'chain_id_from'], 'dca_strategies_status_chain_idx');
  });

  await knex.schema.createTable('dca_orders', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    t.string('strategy_id', 36).notNullable().references('id').inTable('dca_strategies');
    t.string('api_key', 36).notNullable();
    t.string('account_to', 42).notNullable();
    t.integer('iteration').notNullable();
    t.bigInteger('slot_at').notNullable();
    t.double('amount').notNullable();
    t.double('amount_received').nullable();
    t.double('execution_price').nullable();
    t.string('status', 16).notNullable();
    t.string('transaction_hash', 66).nullable();
    t.text('error_message').nullable();
    t.integer('attempt_number').notNullable().defaultTo(0);
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    // One order per slot: a keeper that retries creation can never make a second one.
    t.unique(['strategy_id', 'iteration'], { indexName: 'dca_orders_slot_unique' });
    t.index(['status', 'slot_at'], 'dca_orders_status_slot_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'dca_orders',
    'dca_strategies',
    'limit_orders',
    'reference_prices',
    'tokens',
    'request_nonces',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
