import type { Knex } from 'knex';
import { createKnex, isDuplicateKeyError } from '../../shared/store/create-knex';
import { runMysqlTransaction } from '../../shared/store/mysql-transaction';
import { createStoreTarget, mysqlServerForTests, type StoreTarget } from '../helpers/store-targets';

/** Order batches' transaction on MySQL, run on a connection of knex's pool without knex's transaction object. */
(mysqlServerForTests() ? describe : describe.skip)('runMysqlTransaction [mysql]', () => {
  let target: StoreTarget;
  let knex: Knex;

  beforeAll(async () => {
    target = await createStoreTarget('mysql');
    knex = createKnex(target);
    await knex.schema.createTable('items', (t) => {
      t.string('id').primary();
      t.integer('n');
    });
  });
  afterAll(async () => {
    await knex.destroy();
    await target.cleanup();
  });
  beforeEach(() => knex('items').delete());

  const insert = (id: string, n: number) => knex('items').insert({ id, n }).toSQL().toNative();
  const ids = async () => (await knex('items').select('id').orderBy('id')).map((r: { id: string }) => r.id);

  it('commits every statement together', async () => {
    await runMysqlTransaction(knex, [insert('a', 1), insert('b', 2)]);
    expect(await ids()).toEqual(['a', 'b']);
  });

  it('rolls back the statements before a failing one and rejects with its error', async () => {
    await runMysqlTransaction(knex, [insert('a', 1)]);
    const failed = await runMysqlTransaction(knex, [insert('b', 2), insert('a', 3)]).catch(
      (err: unknown) => err,
    );
    expect(isDuplicateKeyError(failed)).toBe(true);
    expect(await ids()).toEqual(['a']);
    // The connection went back to the pool clean: the next transaction on it commits as usual.
    await runMysqlTransaction(knex, [insert('c', 4)]);
    expect(await ids()).toEqual(['a', 'c']);
  });

  it('gives its connection back whatever happens: more transactions than the pool has connections all finish', async () => {
    const runs = Array.from({ length: 30 }, (_, i) =>
      runMysqlTransaction(knex, [insert(`k${i}`, i), ...(i % 3 === 0 ? [insert(`k${i}`, i)] : [])]).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    const outcomes = await Promise.all(runs);
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(10);
    expect(await ids()).toHaveLength(20);
  });
});
