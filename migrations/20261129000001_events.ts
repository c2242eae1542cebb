import type { Knex } from 'knex';

/**
 * Push delivery (issue 25):
 * - `diagnosis` on pending orders: why the keeper has not filled them (JSON, shared/domain/diagnosis.ts).
 * - `event_key` on every resource that sends events: the fields an event is sent for, as last sent, so a write
 *   that changes none of them (a lease, a gas estimate) sends nothing.
 * - `events`: the outbox, written in the store transaction of the change it describes. `seq` is the insertion
 *   order; `published_seq` is given by one publisher at a time in commit order, so a reader that follows it never
 *   passes an event a slower transaction commits later.
 * - `webhooks` (each with its cursor over `published_seq`, its retry state and a delivery lease) and
 *   `webhook_deliveries` (recent attempts, for GET /webhooks/{id}/deliveries).
 */
const RESOURCES = ['limit_orders', 'dca_strategies', 'dca_orders', 'cross_chain_transfers'] as const;
const DIAGNOSED = ['limit_orders', 'dca_orders'] as const;

function binary(t: Knex.CreateTableBuilder, knex: Knex): void {
  if (knex.client.config.client === 'mysql2') {
    t.charset('utf8mb4');
    t.collate('utf8mb4_bin');
  }
}

export async function up(knex: Knex): Promise<void> {
  for (const table of DIAGNOSED) {
    await knex.schema.alterTable(table, (t) => {
      t.text('diagnosis').nullable();
    });
  }
  for (const table of RESOURCES) {
    await knex.schema.alterTable(table, (t) => {
      t.string('event_key', 400).nullable();
    });
  }
  await knex.schema.createTable('events', (t) => {
    binary(t, knex);
    t.bigIncrements('seq').primary();
    t.string('id', 40).notNullable().unique('events_id_unique');
    t.string('api_key', 36).notNullable();
    /** Set on a `ping`: the one webhook it is for. */
    t.string('webhook_id', 36).nullable();
    t.string('type', 40).notNullable();
    t.string('resource_id', 100).notNullable();
    /** The delivered body, exactly: `{"id","type","createdAt","data"}`. */
    t.text('body', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('published_seq').nullable().unique('events_published_seq_unique');
    t.index(['published_seq', 'seq'], 'events_unpublished_idx');
    t.index(['api_key', 'published_seq'], 'events_key_published_idx');
    t.index(['created_at'], 'events_created_idx');
  });
  await knex.schema.createTable('event_publisher', (t) => {
    t.string('name', 20).primary();
    t.bigInteger('last_seq').notNullable();
  });
  await knex('event_publisher').insert({ name: 'events', last_seq: 0 });
  await knex.schema.createTable('webhooks', (t) => {
    binary(t, knex);
    t.string('id', 36).primary();
    t.string('api_key', 36).notNullable();
    t.string('url', 2048).notNullable();
    /** JSON list of event types. */
    t.text('events').notNullable();
    t.string('secret_sealed', 300).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at').nullable();
    /** The last published_seq delivered (or passed over: another type, given up after the retry window). */
    t.bigInteger('cursor').notNullable();
    /** Failed attempts at the event after the cursor, and when the first of them was. */
    t.integer('attempt').notNullable().defaultTo(0);
    t.bigInteger('failing_since').nullable();
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    t.string('lease_owner', 100).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.index(['api_key', 'deleted_at'], 'webhooks_key_idx');
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    binary(t, knex);
    t.bigIncrements('id').primary();
    t.string('webhook_id', 36).notNullable();
    t.string('event_id', 40).notNullable();
    t.string('event_type', 40).notNullable();
    t.integer('attempt').notNullable();
    t.integer('status_code').nullable();
    t.string('error', 300).nullable();
    t.integer('duration_ms').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['webhook_id', 'id'], 'webhook_deliveries_webhook_idx');
    t.index(['created_at'], 'webhook_deliveries_created_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhooks');
  await knex.schema.dropTable('event_publisher');
  await knex.schema.dropTable('events');
  for (const table of RESOURCES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('event_key');
    });
  }
  for (const table of DIAGNOSED) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('diagnosis');
    });
  }
}
