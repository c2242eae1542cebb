import type { Knex } from 'knex';

/**
 * A relay fill or release stuck in the mempool is replaced with higher fees under the same nonce, as the keeper's
 * batches are: every hash signed for it is kept (any of them may be the one mined), and the block of the latest
 * broadcast, from which the next replacement counts (`fill_sent_block` stays the first send, for latency).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.text('fill_tx_hashes').nullable();
    t.bigInteger('fill_last_sent_block').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.dropColumn('fill_tx_hashes');
    t.dropColumn('fill_last_sent_block');
  });
}
