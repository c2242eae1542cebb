import type { Knex } from 'knex';

/**
 * Cross-chain transfers as the keeper relays and settles them (the state machines are written down in
 * shared/store/repositories/transfers-repository.ts): one row per bridge deposit, the scan cursors of the contracts
 * the keeper reads deposits from, and the root bundles it proposes to a SpokePool for repayments and refunds.
 * Token amounts are decimal strings (uint256 exceeds 2^53 and SQLite has no exact wide DECIMAL); times are Unix
 * milliseconds, chain timestamps Unix seconds.
 */
function binaryCollation(t: Knex.CreateTableBuilder, knex: Knex): void {
  if (knex.client.config.client !== 'mysql2') return;
  t.charset('utf8mb4');
  t.collate('utf8mb4_bin');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cross_chain_transfers', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    /** 'intent' (Across SpokePool deposit) or 'lock-release' (LockReleaseBridge lock). */
    t.string('provider', 16).notNullable();
    t.integer('origin_chain_id').notNullable();
    t.integer('destination_chain_id').notNullable();
    /** The SpokePool's depositId or the LockReleaseBridge's nonce, a uint256 in decimal. */
    t.string('deposit_id', 78).notNullable();
    /** Intents: bytes32 as the event carries them (the relay hash is over them); lock-release: addresses. */
    t.string('depositor', 66).notNullable();
    t.string('recipient', 66).notNullable();
    t.string('exclusive_relayer', 66).nullable();
    t.string('input_token', 66).notNullable();
    t.string('output_token', 66).notNullable();
    t.string('input_amount', 78).notNullable();
    t.string('output_amount', 78).notNullable();
    t.text('message', 'mediumtext').nullable();
    /** Chain seconds (intents only). */
    t.bigInteger('quote_timestamp').nullable();
    t.bigInteger('fill_deadline').nullable();
    t.bigInteger('exclusivity_deadline').nullable();
    t.string('relay_hash', 66).nullable();
    /** The origin contract that emitted the deposit (SpokePool or LockReleaseBridge). */
    t.string('origin_contract', 42).notNullable();
    t.string('deposit_tx_hash', 66).notNullable();
    t.bigInteger('deposit_block_number').notNullable();
    t.string('deposit_block_hash', 66).notNullable();
    t.integer('deposit_log_index').notNullable();
    t.string('status', 24).notNullable();
    /**
     * The destination transaction (intent fill or lock-release `release`): hash, raw and nonce are written when it
     * is signed, BEFORE it is broadcast, so a keeper that dies in between leaves a transaction to follow, not a gap.
     */
    t.string('fill_tx_hash', 66).nullable();
    t.text('fill_raw_tx', 'mediumtext').nullable();
    t.string('fill_sender', 42).nullable();
    t.bigInteger('fill_nonce').nullable();
    t.bigInteger('fill_sent_block').nullable();
    t.bigInteger('fill_sent_at').nullable();
    t.bigInteger('fill_block_number').nullable();
    t.string('fill_block_hash', 66).nullable();
    /** Who filled it when it was not us (filled_by_other), as the FilledRelay event names them. */
    t.string('filled_by', 66).nullable();
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    t.string('last_error', 500).nullable();
    /** Repayment of our fill (on the origin): the bundle row, the SpokePool's rootBundleId and leafId, the tx. */
    t.string('repayment_bundle_row', 36).nullable();
    t.integer('repayment_bundle_id').nullable();
    t.integer('repayment_leaf_id').nullable();
    t.string('repayment_tx_hash', 66).nullable();
    /** Refund of an expired unfilled deposit to its depositor (on the origin), likewise. */
    t.string('refund_bundle_row', 36).nullable();
    t.integer('refund_bundle_id').nullable();
    t.integer('refund_leaf_id').nullable();
    t.string('refund_tx_hash', 66).nullable();
    t.integer('version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['provider', 'origin_chain_id', 'deposit_id'], {
      indexName: 'cross_chain_transfers_deposit_uq',
    });
    t.index(
      ['provider', 'destination_chain_id', 'status', 'next_attempt_at'],
      'cross_chain_transfers_dest_idx',
    );
    t.index(['provider', 'origin_chain_id', 'status'], 'cross_chain_transfers_origin_idx');
    t.index(['status', 'lease_expires_at'], 'cross_chain_transfers_lease_idx');
    t.index(['deposit_tx_hash'], 'cross_chain_transfers_tx_idx');
  });

  await knex.schema.createTable('cross_chain_cursors', (t) => {
    binaryCollation(t, knex);
    t.integer('chain_id').notNullable();
    /** The contract whose logs are read, lowercase. */
    t.string('contract', 42).notNullable();
    /** The last block read completely, and its hash: a reorg shows as that hash no longer canonical. */
    t.bigInteger('block_number').notNullable();
    t.string('block_hash', 66).notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['chain_id', 'contract']);
  });

  await knex.schema.createTable('cross_chain_root_bundles', (t) => {
    binaryCollation(t, knex);
    t.string('id', 36).primary();
    t.integer('chain_id').notNullable();
    /** chain_id while the bundle is open, null once done: at most one open bundle per chain (NULLs never clash). */
    t.integer('open_chain_id').nullable();
    t.string('spoke_pool', 42).notNullable();
    t.string('relayer_refund_root', 66).notNullable();
    /** JSON: the leaves (amounts as decimal strings) with their proofs. */
    t.text('leaves', 'mediumtext').notNullable();
    /** planned → relayed → executed */
    t.string('state', 16).notNullable();
    /** The SpokePool's rootBundleId, from the RelayedRootBundle event. */
    t.integer('root_bundle_id').nullable();
    /** relayRootBundle: recorded when signed, before the broadcast. */
    t.string('relay_tx_hash', 66).nullable();
    t.text('relay_raw_tx', 'mediumtext').nullable();
    t.bigInteger('relay_nonce').nullable();
    t.string('sender', 42).nullable();
    /** JSON: per leafId, the executeRelayerRefundLeaf transaction (hash, raw, nonce) and whether it is mined. */
    t.text('leaf_txs', 'mediumtext').notNullable();
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.string('last_error', 500).nullable();
    t.integer('version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['open_chain_id'], { indexName: 'cross_chain_root_bundles_open_uq' });
    t.index(['chain_id', 'state'], 'cross_chain_root_bundles_chain_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('cross_chain_root_bundles');
  await knex.schema.dropTableIfExists('cross_chain_cursors');
  await knex.schema.dropTableIfExists('cross_chain_transfers');
}
