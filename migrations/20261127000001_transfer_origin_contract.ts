import type { Knex } from 'knex';

/**
 * A deposit is named by its origin contract as well as its chain and id: a redeployed bridge (or SpokePool) counts
 * its nonces from 0 again, and its first lock must not rewrite the old bridge's transfer of the same nonce.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.unique(['provider', 'origin_chain_id', 'origin_contract', 'deposit_id'], {
      indexName: 'cross_chain_transfers_origin_deposit_uq',
    });
  });
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.dropUnique(['provider', 'origin_chain_id', 'deposit_id'], 'cross_chain_transfers_deposit_uq');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.unique(['provider', 'origin_chain_id', 'deposit_id'], {
      indexName: 'cross_chain_transfers_deposit_uq',
    });
  });
  await knex.schema.alterTable('cross_chain_transfers', (t) => {
    t.dropUnique(
      ['provider', 'origin_chain_id', 'origin_contract', 'deposit_id'],
      'cross_chain_transfers_origin_deposit_uq',
    );
  });
}
