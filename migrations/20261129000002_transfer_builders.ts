import type { Knex } from 'knex';

/**
 * `transfer.updated` events (issue 25) go to the API key that built a transfer's source transaction:
 * - `transfer_builds`: each cross-chain swap POST /swap handed out for our own bridges (the intent and the
 *   lock-release bridge, whose deposits the keeper indexes): the key, the origin chain, the account it was built
 *   for, the entry contract, the keccak256 of the calldata and the value, with the status fields the calldata
 *   alone fixes (what the account spends, in which token, and the token delivered), as POST /tx-status shows them.
 * - on `cross_chain_transfers`: the key (`api_key`) and build (`build_id`) a deposit was matched to by the indexer
 *   (the source transaction was sent by that account to that entry with exactly that calldata and value), those
 *   status fields copied from the build, and `confirmed_at`: when the keeper first acted on the deposit with its
 *   origin confirmations (WAITING before, BRIDGE_PENDING after).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('transfer_builds', (t) => {
    if (knex.client.config.client === 'mysql2') {
      t.charset('utf8mb4');
      t.collate('utf8mb4_bin');
    }
    t.string('id', 36).primary();
    t.string('api_key', 36).notNullable();
    /** 'intent' or 'lock-release', as cross_chain_transfers.provider. */
    t.string('provider', 16).notNullable();
    t.integer('origin_chain_id').notNullable();
    t.integer('destination_chain_id').notNullable();
    /** The account the calldata was built for (it sends the transaction), lowercase. */
    t.string('account', 42).notNullable();
    /** The CrossChainEntry the transaction goes to, lowercase. */
    t.string('entry', 42).notNullable();
    /** keccak256 of the calldata, lowercase hex. */
    t.string('calldata_hash', 66).notNullable();
    /** Wei, decimal. */
    t.string('value', 78).notNullable();
    /** POST /tx-status's fromAmount, fromTokenAddress and toTokenAddress for a transaction of this calldata. */
    t.string('source_amount', 78).notNullable();
    t.string('source_token', 42).notNullable();
    t.string('delivered_token', 42).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['origin_chain_id', 'account', 'calldata_hash'], 'transfer_builds_match_idx');
    t.index(['created_at'], 'transfer_builds_created_idx');
  });
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.string('api_key', 36).nullable();
    t.string('build_id', 36).nullable();
    t.string('source_amount', 78).nullable();
    t.string('source_token', 42).nullable();
    t.string('delivered_token', 42).nullable();
    t.bigInteger('confirmed_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.dropColumn('api_key');
    t.dropColumn('build_id');
    t.dropColumn('source_amount');
    t.dropColumn('source_token');
    t.dropColumn('delivered_token');
    t.dropColumn('confirmed_at');
  });
  await knex.schema.dropTable('transfer_builds');
}
