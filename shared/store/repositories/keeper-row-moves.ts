import type { Knex } from 'knex';
import { recordEventsIn } from '../../events/event-outbox';
import type { ResourceKind } from '../../events/resource-kinds';
import type { Dialect } from '../create-knex';

/** Bound parameters per statement stay far under SQLite's and MySQL's limits. */
const IDS_PER_QUERY = 500;

export type Db = Knex | Knex.Transaction;
/** Narrows a query on the moved table to the rows a move takes. */
export type RowFilter = (query: Knex.QueryBuilder) => Knex.QueryBuilder;
/**
 * How a move finds and locks its rows on MySQL. `claim`: by primary key (a list of ids), skipping rows another
 * writer holds (taken on a later tick). `sweep`: through an index, skipping likewise. `all`: through an index,
 * waiting for held rows, for moves that must leave no row behind (the orders of a dropped transaction).
 */
export type MoveMode = 'claim' | 'sweep' | 'all';

/** Splits a list of ids (or refs) into lists small enough for one statement's bound parameters. */
export function chunks<T>(items: readonly T[], size = IDS_PER_QUERY): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The write primitives the keeper's repositories share for one table (rows of type `Row`, an `id` primary key,
 * a `version` column): every move bumps `version` and `updated_at`, runs in the repository's transaction or a
 * new one, and a move of many rows returns them as written. Built on the repository's knex, which may be a knex
 * transaction the move then joins.
 */
export class KeeperRowMoves<Row> {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
    private readonly table: string,
    /** The events the table's rows send; absent: its moves send none. */
    private readonly events?: ResourceKind,
  ) {}

  /** Sends the events of rows this store transaction changed (those whose evented fields moved), after the write. */
  async recordChanged(db: Db, ids: readonly string[], nowMs: number): Promise<void> {
    if (this.events) await recordEventsIn(db, this.events, ids, nowMs);
  }

  bump(nowMs: number): Record<string, unknown> {
    return { version: this.knex.raw('version + 1'), updated_at: nowMs };
  }

  noLease(): Record<string, unknown> {
    return { lease_owner: null, lease_expires_at: null };
  }

  /** Runs in the transaction the repository was built on, or in a new one. */
  atomic<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    if (this.knex.isTransaction) return fn(this.knex);
    // READ COMMITTED on MySQL: no gap locks, and the locks on rows a filter examined but did not match are
    // released at once, so a claim never holds up the api's writes to orders it did not take.
    return this.dialect === 'mysql'
      ? this.knex.transaction(fn, { isolationLevel: 'read committed' })
      : this.knex.transaction(fn);
  }

  /**
   * executing → pending for claims `which` picks that never reached a transaction (at most `limit` of them). Safe
   * whatever their lease says: submitBatch moves an order out of `executing` in the store transaction that records
   * its batch, so nothing of these was signed. Not counted as an attempt.
   */
  unsentClaimsToPending(
    db: Db,
    which: RowFilter,
    limit: number,
    nowMs: number,
    mode: MoveMode,
  ): Promise<Row[]> {
    return this.moveReturning(
      db,
      (q) => which(q.where('status', 'executing').whereNull('keeper_tx_id')).limit(limit),
      { status: 'pending', ...this.noLease() },
      nowMs,
      mode,
    );
  }

  /**
   * executing → pending without counting an attempt, for the lease owner, never once the row is in a transaction.
   * Returns whether the row moved.
   */
  async releaseClaim(
    db: Db,
    id: string,
    owner: string,
    nowMs: number,
    nextAttemptAt?: number,
  ): Promise<boolean> {
    const write = async (trx: Db): Promise<boolean> => {
      const changed = await trx(this.table)
        .where({ id, status: 'executing', lease_owner: owner })
        .whereNull('keeper_tx_id')
        .update({
          status: 'pending',
          ...this.noLease(),
          ...(nextAttemptAt === undefined ? {} : { next_attempt_at: nextAttemptAt }),
          ...this.bump(nowMs),
        });
      if (changed > 0) await this.recordChanged(trx, [id], nowMs);
      return changed > 0;
    };
    return db.isTransaction ? write(db) : db.transaction(write);
  }

  /** The tracker's lease on the rows of a transaction, which sit in `status` while it is open. */
  leaseRowsOfTransaction(
    status: string,
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<number> {
    return this.knex(this.table)
      .where({ keeper_tx_id: keeperTxId, status })
      .update({ lease_owner: owner, lease_expires_at: leaseExpiresAt, ...this.bump(nowMs) });
  }

  /**
   * The transaction's rows in `from` (its executed orders) back to `to` under `owner`'s lease: the transaction was
   * reopened after a reorg took its block. Run inside the reopening store transaction; resolves their ids.
   */
  async reopenRowsOfTransaction(
    from: string,
    to: string,
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.knex(this.table)
      .select('id')
      .where({ keeper_tx_id: keeperTxId, status: from });
    if (!rows.length) return [];
    await this.knex(this.table)
      .where({ keeper_tx_id: keeperTxId, status: from })
      .update({ status: to, lease_owner: owner, lease_expires_at: leaseExpiresAt, ...this.bump(nowMs) });
    const ids = rows.map((row) => row.id);
    await this.recordChanged(this.knex, ids, nowMs);
    return ids;
  }

  /** Rows inside a transaction (in `status`) whose tracker stopped renewing its lease, oldest lease first. */
  listTrackedWithExpiredLease(status: string, nowMs: number, limit: number): Promise<Row[]> {
    return this.knex(this.table)
      .where('status', status)
      .whereNotNull('keeper_tx_id')
      .andWhere('lease_expires_at', '<', nowMs)
      .orderBy('lease_expires_at', 'asc')
      .limit(limit);
  }

  /**
   * Moves every row matching the filter and returns the rows as written. SQLite: one UPDATE … RETURNING (the
   * statement is atomic and holds the write lock). MySQL, which has no UPDATE … RETURNING: the rows are locked
   * with FOR UPDATE (SKIP LOCKED but in mode `all`: a row another writer holds is left for later instead of
   * waited on), then updated by id (they stay locked until commit) and read back inside the transaction.
   */
  async moveReturning(
    db: Db,
    filter: RowFilter,
    set: Record<string, unknown>,
    nowMs: number,
    mode: MoveMode,
  ): Promise<Row[]> {
    const columns = { ...set, ...this.bump(nowMs) };
    if (this.dialect === 'sqlite') {
      // The filter runs as a subquery of the UPDATE: one statement, so nothing can change between them.
      const rows: Row[] = await db(this.table)
        .whereIn('id', filter(db(this.table).select('id')))
        .update(columns)
        .returning('*');
      await this.recordChanged(
        db,
        rows.map((row) => (row as { id: string }).id),
        nowMs,
      );
      return rows;
    }
    // A claim by ids must lock only those rows: on a small table the optimizer may prefer the status index,
    // and a locking read locks every row it scans.
    const source: Knex.QueryBuilder =
      mode === 'claim' ? db.from(db.raw('?? force index (primary)', [this.table])) : db(this.table);
    const query = filter(source.select('id')).forUpdate();
    const locked: Array<{ id: string }> = mode === 'all' ? await query : await query.skipLocked();
    if (!locked.length) return [];
    const ids = locked.map((row) => row.id);
    await db(this.table).whereIn('id', ids).update(columns);
    await this.recordChanged(db, ids, nowMs);
    return db(this.table).whereIn('id', ids);
  }
}
