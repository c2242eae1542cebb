import type { Knex } from 'knex';

const TABLE = 'keeper_transaction_items';

/**
 * What a keeper transaction carries becomes a join of (transaction, kind, item) instead of one JSON column per kind
 * of order: a new kind of keeper work is a new `kind` value, not a new column and a new branch in every move.
 * Rows recorded before are carried over; their JSON columns stay (written `[]` from now on) for a later clean-up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('transaction_id', 36).notNullable();
    t.string('kind', 16).notNullable();
    t.string('item_id', 36).notNullable();
    // The item's place in the transaction (the batch's order), for a stable listing.
    t.integer('position').notNullable();
    t.primary(['transaction_id', 'kind', 'item_id']);
    t.index(['kind', 'item_id'], 'keeper_transaction_items_item_idx');
  });
  const rows: Array<{ id: string; limit_order_ids: string; dca_order_ids: string }> = await knex(
    'keeper_transactions',
  ).select('id', 'limit_order_ids', 'dca_order_ids');
  for (const row of rows) {
    const ids = (text: string): string[] => {
      const parsed: unknown = JSON.parse(text || '[]');
      return Array.isArray(parsed) ? parsed.map(String) : [];
    };
    const items = [
      ...ids(row.limit_order_ids).map((id) => ({ kind: 'limit', id })),
      ...ids(row.dca_order_ids).map((id) => ({ kind: 'dca', id })),
    ].map((item, position) => ({ transaction_id: row.id, kind: item.kind, item_id: item.id, position }));
    if (items.length) await knex(TABLE).insert(items);
  }
}

export async function down(knex: Knex): Promise<void> {
  const items: Array<{ transaction_id: string; kind: string; item_id: string }> = await knex(TABLE)
    .select('transaction_id', 'kind', 'item_id')
    .orderBy('position', 'asc');
  const byTx = new Map<string, { limit: string[]; dca: string[] }>();
  for (const item of items) {
    const entry = byTx.get(item.transaction_id) ?? { limit: [], dca: [] };
    if (item.kind === 'limit' || item.kind === 'dca') entry[item.kind].push(item.item_id);
    byTx.set(item.transaction_id, entry);
  }
  for (const [id, entry] of byTx) {
    await knex('keeper_transactions')
      .where({ id })
      .update({ limit_order_ids: JSON.stringify(entry.limit), dca_order_ids: JSON.stringify(entry.dca) });
  }
  await knex.schema.dropTable(TABLE);
}
