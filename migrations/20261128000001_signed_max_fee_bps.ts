import type { Knex } from 'knex';

/**
 * The fee cap each maker signed in its pair authorization (PairAuthorization.maxFeeBps): the keeper passes it to
 * the OrderExecutor, which takes at most min(its maxFeeBps, this) of an order. NULL: not given at creation, which
 * the keeper reads as the contract's cap when the order runs. Rows from before this migration get NULL: their
 * signatures were made without the field and verify on no OrderExecutor that checks it (the contracts are
 * redeployed with this change, so they also name another verifying contract). The keeper fails them
 * BAD_SIGNATURE; no value here could make them spendable, and none can make them cost more than the maker signed.
 */
const TABLES = ['limit_orders', 'dca_strategies'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.integer('max_fee_bps').nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('max_fee_bps');
    });
  }
}
