import type { Knex } from 'knex';

/**
 * `request_nonce_log` (SQLite only): the request nonces of a SQLite store as an append-only log, which the api
 * processes on the store read into memory (`shared/store/sqlite-nonce-log.ts`). `request_nonces` keeps them under a
 * primary key on (api_key, nonce), where every new nonce, a random key, dirtied a page of its own. The log's `id`
 * only grows (AUTOINCREMENT: an id is never handed out again after a purge), so a process reading the rows after
 * the last it saw sees every nonce another process recorded since. The nonces still inside their window are
 * carried over from `request_nonces`, which SQLite no longer uses (emptied). MySQL keeps `request_nonces`.
 */
const LOG = 'request_nonce_log';

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await knex.schema.createTable(LOG, (t) => {
    t.increments('id');
    t.string('api_key', 36).notNullable();
    t.string('nonce', 24).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at'], `${LOG}_expires_idx`);
  });
  await knex.raw(
    `insert into ${LOG} (api_key, nonce, expires_at) ` +
      'select api_key, nonce, expires_at from request_nonces where expires_at > ? order by expires_at',
    [Date.now()],
  );
  await knex('request_nonces').delete();
}

/** Back to `request_nonces`, with the nonces still inside their window (the latest record of each). */
export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await knex.raw(
    'insert into request_nonces (api_key, nonce, expires_at, claim) ' +
      `select api_key, nonce, max(expires_at), 'log' from ${LOG} where expires_at > ? group by api_key, nonce ` +
      'on conflict (api_key, nonce) do update set expires_at = excluded.expires_at',
    [Date.now()],
  );
  await knex.schema.dropTable(LOG);
}
