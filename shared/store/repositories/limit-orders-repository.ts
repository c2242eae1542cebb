import { recordEvents } from '../../events/event-outbox';
import { LIMIT_ORDER_EVENTS, type ResourceRow } from '../../events/resource-kinds';
import type { Knex } from 'knex';
import type { Dialect } from '../create-knex';
import type { FastReader } from '../fast-reader';
import { BatchedLookup } from '../batched-lookup';
import { freshRowEvent, type EventInsert } from '../fresh-row-events';
import { GroupCommit } from '../group-commit';
import { runMysqlTransaction, type NativeStatement } from '../mysql-transaction';
import type { SqliteDirect, SqliteSession } from '../sqlite-direct';
import type { LimitOrder, LimitOrderChanges, LimitOrderStatus } from '../../domain/limit-order';
import { limitOrderFromRow, limitOrderToRow, type LimitOrderRow } from './limit-order-rows';

export interface LimitOrderFilters {
  status?: LimitOrderStatus;
  chainId?: number;
  /** Exact and case-sensitive (the column has a binary collation on MySQL). */
  accountTo?: string;
}

/** Outcome of a write that only applies to a pending order. */
export type PendingWriteResult =
  | { kind: 'updated'; order: LimitOrder }
  | { kind: 'not-found' }
  | { kind: 'conflict'; status: LimitOrderStatus };

const TABLE = 'limit_orders';
/** Order batches committing at once on MySQL (a few of the pool's connections; SQLite has one). */
const MYSQL_CREATE_TRANSACTIONS = 6;
/** Rows per insert statement: each binds at most 36 values, far under MySQL's limit. */
const INSERT_CHUNK = 100;

/**
 * A keeper may move an order out of `pending` and back (a released lease) between our conditional write and
 * the read that explains its failure; a few rounds tell a real conflict from that race.
 */
const PENDING_WRITE_ATTEMPTS = 3;

/** Column values for the client-changeable fields, with the derived columns kept in step. */
function changeColumns(changes: LimitOrderChanges): Partial<LimitOrderRow> {
  const columns: Partial<LimitOrderRow> = {};
  if (changes.amount !== undefined) columns.amount = changes.amount;
  if (changes.price !== undefined) columns.price = changes.price;
  if (changes.priceTrigger !== undefined) {
    columns.price_trigger = changes.priceTrigger;
    columns.price_trigger_num = Number(changes.priceTrigger);
  }
  if (changes.gasPrice !== undefined) columns.gas_price = changes.gasPrice;
  if (changes.slippage !== undefined) columns.slippage = changes.slippage;
  if (changes.expired !== undefined) {
    columns.expired = changes.expired;
    columns.expires_at = Number(changes.expired);
  }
  return columns;
}

/**
 * Limit orders: written by the api, claimed and settled by the keeper. The api writes an existing order only
 * through the conditional updates below, so it can never change an order the keeper has taken out of `pending`.
 */
export class LimitOrdersRepository {
  /** New orders arriving together are inserted together: one transaction per batch. */
  private readonly creates: GroupCommit<LimitOrder>;
  /** MySQL: reads by id of one turn of the event loop in one query (SQLite reads in-process, one by one). */
  private readonly byId?: BatchedLookup<LimitOrderRow>;

  constructor(
    protected readonly knex: Knex,
    private readonly reader: FastReader,
    private readonly dialect: Dialect = knex.client.config.client === 'mysql2' ? 'mysql' : 'sqlite',
    /** SQLite: order batches with statements prepared once, on knex's own connection. */
    private readonly sqlite?: SqliteDirect,
  ) {
    this.creates = new GroupCommit((orders) => this.insertBatch(orders), {
      concurrency: this.dialect === 'mysql' ? MYSQL_CREATE_TRANSACTIONS : 1,
    });
    if (this.dialect === 'mysql') {
      this.byId = new BatchedLookup(async (ids) => {
        const marks = ids.map(() => '?').join(', ');
        const rows = await this.reader.all<LimitOrderRow>(
          `select * from ${TABLE} where id in (${marks})`,
          ids,
        );
        return new Map(rows.map((row) => [row.id, row]));
      });
    }
  }

  /**
   * Inserts the order with its first `limit_order.updated` event (status `pending`); resolves once committed. Orders
   * inserted at the same time share a transaction (group commit); a batch that fails is retried order by order.
   */
  async insert(order: LimitOrder): Promise<void> {
    await this.creates.submit(order);
  }

  /** One transaction for the batch: its rows with their first events. */
  private async insertBatch(orders: LimitOrder[]): Promise<void> {
    const sqlite = this.sqlite;
    if (sqlite) {
      await sqlite.run((session) => insertBatchOn(session, orders));
      return;
    }
    // Each row goes in with its first event's mark, and the events after (freshRowEvent: what recordEvents would
    // read back, send and mark): two statements per batch besides the transaction's own.
    const rows: Array<LimitOrderRow & { event_key: string | null }> = [];
    const events: EventInsert[] = [];
    for (const order of orders) {
      const row = limitOrderToRow(order);
      const { event, eventKey } = freshRowEvent(
        LIMIT_ORDER_EVENTS,
        row as unknown as ResourceRow,
        order.createdAt,
      );
      rows.push({ ...row, event_key: eventKey });
      if (event) events.push(event);
    }
    // knex writes the statements (its escaping and types, as before); they run without a knex transaction object.
    const statements = [
      ...chunkedInserts(this.knex, TABLE, rows),
      ...chunkedInserts(this.knex, 'events', events),
    ];
    // Every SQLite store has its direct session (above): this is MySQL.
    await runMysqlTransaction(this.knex, statements);
  }

  /** The order when it exists and belongs to the key; another key's order is as good as missing. */
  async findForKey(apiKey: string, id: string): Promise<LimitOrder | undefined> {
    if (this.byId) {
      // The column's collation pads with spaces (an id with trailing spaces finds its order, as `id = ?` does).
      const row = await this.byId.get(id.replace(/ +$/, ''));
      return row && row.api_key === apiKey ? limitOrderFromRow(row) : undefined;
    }
    const row = await this.reader.first<LimitOrderRow>(
      `select * from ${TABLE} where id = ? and api_key = ?`,
      [id, apiKey],
    );
    return row ? limitOrderFromRow(row) : undefined;
  }

  /** Every order of the key matching all given filters, oldest first. */
  async listForKey(apiKey: string, filters: LimitOrderFilters = {}): Promise<LimitOrder[]> {
    const query = this.knex<LimitOrderRow>(TABLE).where({ api_key: apiKey });
    if (filters.status !== undefined) query.andWhere({ status: filters.status });
    if (filters.accountTo !== undefined) query.andWhere({ account_to: filters.accountTo });
    if (filters.chainId !== undefined) query.andWhere({ chain_id: filters.chainId });
    const rows = await query.orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
    return rows.map(limitOrderFromRow);
  }

  /**
   * The key's orders of one maker selling `tokenIn` on a chain that are still open (the maker's allowance must
   * cover them) or that trade the pair `tokenIn`/`tokenOut` (they carry the pair signatures the service holds).
   * Addresses are stored as sent, so they compare case-insensitively here: the chain sees one maker and one token.
   */
  async listOfMakerSelling(
    apiKey: string,
    pair: { chainId: number; maker: string; tokenIn: string; tokenOut: string },
    openStatuses: readonly LimitOrderStatus[],
  ): Promise<LimitOrder[]> {
    const rows = await this.knex<LimitOrderRow>(TABLE)
      .where({ api_key: apiKey, chain_id: pair.chainId })
      .andWhereRaw('lower(account_to) = ?', [pair.maker.toLowerCase()])
      .andWhereRaw('lower(in_token) = ?', [pair.tokenIn.toLowerCase()])
      .andWhere((q) =>
        q
          .whereIn('status', [...openStatuses])
          .orWhereRaw('lower(out_token) = ?', [pair.tokenOut.toLowerCase()]),
      )
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]);
    return rows.map(limitOrderFromRow);
  }

  /** Applies client changes to a pending order in one conditional UPDATE. */
  async updateIfPending(
    apiKey: string,
    id: string,
    changes: LimitOrderChanges,
    now: number,
  ): Promise<PendingWriteResult> {
    return this.writeIfPending(apiKey, id, { ...changeColumns(changes), updated_at: now });
  }

  /** Cancels a pending order in one conditional UPDATE; the order stays readable and listed. */
  async cancelIfPending(apiKey: string, id: string, now: number): Promise<PendingWriteResult> {
    return this.writeIfPending(apiKey, id, { status: 'cancelled', updated_at: now, deleted_at: now });
  }

  private async findIn(
    db: Knex | Knex.Transaction,
    apiKey: string,
    id: string,
  ): Promise<LimitOrder | undefined> {
    const row = await db<LimitOrderRow>(TABLE).where({ id, api_key: apiKey }).first();
    return row ? limitOrderFromRow(row) : undefined;
  }

  private async writeIfPending(
    apiKey: string,
    id: string,
    columns: Partial<LimitOrderRow>,
  ): Promise<PendingWriteResult> {
    for (let attempt = 1; ; attempt += 1) {
      // The read shares the write's transaction so the answer is the order exactly as this write left it.
      const result = await this.knex.transaction(async (trx): Promise<PendingWriteResult | undefined> => {
        // By the primary key on MySQL: through the (api_key, status) index the UPDATE would lock that index's entry
        // before the row, the opposite order of a keeper's claim (row, then index), and the two deadlock.
        const table =
          trx.client.config.client === 'mysql2' ? trx.raw('?? force index (primary)', [TABLE]) : TABLE;
        const changed = await trx
          .from(table)
          .where({ id, api_key: apiKey, status: 'pending' })
          .update({ ...columns, version: trx.raw('version + 1') });
        if (changed > 0) await recordEvents(trx, LIMIT_ORDER_EVENTS, [id], Number(columns.updated_at));
        const order = await this.findIn(trx, apiKey, id);
        if (!order) return { kind: 'not-found' };
        if (changed > 0) return { kind: 'updated', order };
        if (order.status !== 'pending') return { kind: 'conflict', status: order.status };
        return undefined;
      });
      if (result) return result;
      if (attempt >= PENDING_WRITE_ATTEMPTS) return { kind: 'conflict', status: 'pending' };
    }
  }
}

/** Inserts of `rows` into `table`, INSERT_CHUNK rows per statement, as knex writes them. */
function chunkedInserts(knex: Knex, table: string, rows: readonly object[]): NativeStatement[] {
  const statements: NativeStatement[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    statements.push(
      knex(table)
        .insert(rows.slice(i, i + INSERT_CHUNK))
        .toSQL()
        .toNative(),
    );
  }
  return statements;
}

const INSERT_EVENT =
  'insert into events (id, api_key, webhook_id, type, resource_id, body, created_at) values (?, ?, ?, ?, ?, ?, ?)';

/**
 * The SQLite batch: each row inserted with its first event and the event's mark (freshRowEvent: what recordEvents
 * would read back and write), in one transaction committed with synchronous=FULL, so the WAL is on disk before any
 * order of the batch is acknowledged. The setting is changed outside the transaction (SQLite refuses it inside) and
 * put back after, while this batch holds the connection.
 */
function insertBatchOn(session: SqliteSession, orders: LimitOrder[]): void {
  const rows = orders.map(limitOrderToRow);
  const columns = [...Object.keys(rows[0]!), 'event_key'];
  const insertRow = session.statement(
    `insert into ${TABLE} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
  const insertEvent = session.statement(INSERT_EVENT);
  session.db.pragma('synchronous = FULL');
  try {
    session.db.transaction(() => {
      rows.forEach((row, i) => {
        const { event, eventKey } = freshRowEvent(
          LIMIT_ORDER_EVENTS,
          row as unknown as ResourceRow,
          orders[i]!.createdAt,
        );
        insertRow.run(...(Object.values(row) as unknown[]), eventKey);
        if (event) {
          insertEvent.run(
            event.id,
            event.api_key,
            event.webhook_id,
            event.type,
            event.resource_id,
            event.body,
            event.created_at,
          );
        }
      });
    })();
  } finally {
    session.db.pragma('synchronous = NORMAL');
  }
}
