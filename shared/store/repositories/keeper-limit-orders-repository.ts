import { LIMIT_ORDER_EVENTS } from '../../events/resource-kinds';
import type { Knex } from 'knex';
import type { Dialect } from '../create-knex';
import type { LimitOrder, LimitOrderStatus } from '../../domain/limit-order';
import { chunks, KeeperRowMoves, type Db, type RowFilter } from './keeper-row-moves';
import { OPEN_KEEPER_TRANSACTION_STATUSES } from './keeper-transaction-statuses';
import type {
  ExecutionFields,
  FailOptions,
  KeeperOrderRef,
  KeeperOrderRepository,
  OrderSuccess,
  SubmittedFields,
} from './keeper-order-repository';
import { limitOrderFromRow, parseReasonFail, type LimitOrderRow } from './limit-order-rows';
import { assignExecutionIndices, executionIndexOf } from './execution-indices';

/**
 * The keeper's side of `limit_orders`: every move of the state machine
 *
 *   pending ─claim─> executing ─submitBatch─> submitted ─settle─> completed | failed
 *      ^  ^             │  │                      │
 *      │  └─release/retry┘  └─fail(final)─> failed │
 *      └──────────── dropped transaction ─────────┘          pending ─expire─> failed ['expired']
 *
 * is one statement or one transaction, written only where the row still is in the state the move starts from
 * (status, and lease owner or version where the keeper holds the order), and bumps `version` and `updated_at`.
 * The api changes an order only with `... WHERE status = 'pending'`, so whichever of the two writes lands second
 * finds the row no longer matching and changes nothing: a PATCH or DELETE can never overwrite a claimed order,
 * and a claim can never take a cancelled one.
 *
 * SQLite: a transaction here always writes first. A deferred SQLite transaction that reads and then writes fails
 * with SQLITE_BUSY when another connection wrote in between; one that starts with a write holds the write lock.
 */

/** The fields the keeper's in-memory trigger index keeps per order. */
export interface LimitOrderIndexEntry {
  id: string;
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  priceTrigger: number;
  expiresAt: number;
  nextAttemptAt: number;
  version: number;
  status: LimitOrderStatus;
  updatedAt: number;
}

/** An order as the keeper selected it: claiming by version refuses one that changed since. */
export type LimitOrderRef = KeeperOrderRef;
export type { ExecutionFields, FailOptions, SubmittedFields };

/** An order with the keeper transaction that carries it (set while `submitted`, kept for audit after). */
export interface KeeperLimitOrder extends LimitOrder {
  keeperTxId: string | null;
  /**
   * The order's execution index (its bit in the OrderExecutor's executed bitmap): given by its first claim, never
   * changed; null before it.
   */
  execIndex: bigint | null;
}

type Numeric = number | string;

interface KeeperLimitOrderRow extends LimitOrderRow {
  keeper_tx_id: string | null;
  exec_index: Numeric | bigint | null;
}

type IndexRow = Pick<
  LimitOrderRow,
  | 'id'
  | 'chain_id'
  | 'in_token'
  | 'out_token'
  | 'price_trigger_num'
  | 'expires_at'
  | 'next_attempt_at'
  | 'version'
  | 'status'
  | 'updated_at'
>;

const TABLE = 'limit_orders';
const KEEPER_TRANSACTIONS = 'keeper_transactions';
/** Rows a sweep (lease reclaim) moves per call; the keeper calls again while it gets a full page. */
const SWEEP_LIMIT = 1000;
/** An optimistic read-then-write retried this often before the row is reported as changing under us. */
const WRITE_ATTEMPTS = 5;

function fromRow(row: KeeperLimitOrderRow): KeeperLimitOrder {
  return { ...limitOrderFromRow(row), keeperTxId: row.keeper_tx_id, execIndex: executionIndexOf(row) };
}

function indexEntryFromRow(row: IndexRow): LimitOrderIndexEntry {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    tokenIn: row.in_token,
    tokenOut: row.out_token,
    priceTrigger: Number(row.price_trigger_num),
    expiresAt: Number(row.expires_at),
    nextAttemptAt: Number(row.next_attempt_at),
    version: Number(row.version),
    status: row.status as LimitOrderStatus,
    updatedAt: Number(row.updated_at),
  };
}

/** Claims answer in the order the keeper asked (its trigger order), whatever order the rows came back in. */
function inGivenOrder<T extends { id: string }>(items: T[], ids: readonly string[]): T[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  return items.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
}

function executionColumns(fields: Partial<ExecutionFields> | undefined): Partial<LimitOrderRow> {
  const columns: Partial<LimitOrderRow> = {};
  if (fields?.allowance !== undefined) columns.allowance = fields.allowance;
  if (fields?.estimateGas !== undefined) columns.estimate_gas = fields.estimateGas;
  if (fields?.effectivePriceGas !== undefined) columns.effective_price_gas = fields.effectivePriceGas;
  return columns;
}

/**
 * Constructed with the store's knex, or with a knex transaction to compose its moves into a larger atomic write
 * (the keeper transactions repository does so): every method then runs inside that transaction.
 */
export class KeeperLimitOrdersRepository implements KeeperOrderRepository<
  KeeperLimitOrder,
  KeeperLimitOrder,
  KeeperLimitOrder | undefined
> {
  readonly kind = 'limit';
  private readonly moves: KeeperRowMoves<KeeperLimitOrderRow>;

  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {
    this.moves = new KeeperRowMoves(knex, dialect, TABLE, LIMIT_ORDER_EVENTS);
  }

  /** Open orders per chain and status (pending, executing, submitted): the keeper's gauge. */
  async countOpen(): Promise<{ chainId: number; status: string; count: number }[]> {
    const rows: { chain_id: Numeric; status: string; count: Numeric }[] = await this.knex(TABLE)
      .select('chain_id', 'status')
      .count({ count: '*' })
      .whereIn('status', ['pending', 'executing', 'submitted'])
      .groupBy('chain_id', 'status');
    return rows.map((r) => ({ chainId: Number(r.chain_id), status: r.status, count: Number(r.count) }));
  }

  /**
   * One keyset page of orders changed after (sinceUpdatedAt, afterId), oldest change first, for the keeper's
   * incremental index. `updated_at` is the writer's clock and a write commits a little after it stamps the row,
   * so a row can appear behind a cursor already passed: the keeper re-reads from a cursor a few seconds back
   * (deduplicating by version) and rebuilds the index from scratch now and then. A stale index can only delay an
   * order: a claim re-reads every row.
   */
  async listChangedSince(
    sinceUpdatedAt: number,
    afterId: string,
    limit: number,
  ): Promise<LimitOrderIndexEntry[]> {
    const rows: IndexRow[] = await this.knex(TABLE)
      .select(
        'id',
        'chain_id',
        'in_token',
        'out_token',
        'price_trigger_num',
        'expires_at',
        'next_attempt_at',
        'version',
        'status',
        'updated_at',
      )
      .where('updated_at', '>', sinceUpdatedAt)
      .orWhere((q) => q.where('updated_at', '=', sinceUpdatedAt).andWhere('id', '>', afterId))
      .orderBy([
        { column: 'updated_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(limit);
    return rows.map(indexEntryFromRow);
  }

  async findById(id: string): Promise<KeeperLimitOrder | undefined> {
    const row: KeeperLimitOrderRow | undefined = await this.knex(TABLE).where({ id }).first();
    return row ? fromRow(row) : undefined;
  }

  async findByIds(ids: readonly string[]): Promise<KeeperLimitOrder[]> {
    const found: KeeperLimitOrder[] = [];
    for (const chunk of chunks([...new Set(ids)])) {
      const rows: KeeperLimitOrderRow[] = await this.knex(TABLE).whereIn('id', chunk);
      found.push(...rows.map(fromRow));
    }
    return found;
  }

  /**
   * Takes the given orders that are still claimable (`pending`, due, not expired) into `executing` under the
   * owner's lease, and returns them as they are now, with whatever values they hold at the claim.
   *
   * Why that is safe against the api: the api's PATCH and DELETE write only `WHERE status = 'pending'`. On MySQL
   * the claim locks each row (`FOR UPDATE`, a locking read that sees the latest committed values, not a
   * snapshot) before moving it, and a row being written by the api or another keeper is skipped (`SKIP LOCKED`)
   * rather than waited for; SQLite runs the claim as one UPDATE, and the database serialises writers. So an order
   * PATCHed before the claim is claimed with its new values (the keeper must judge the returned order, not its
   * index entry: see `claimVersioned`), one cancelled before is no longer pending and is not claimed, and a PATCH
   * or DELETE after the claim finds it `executing` and answers 409. Another keeper claiming the same ids at the
   * same time gets only rows this claim did not take.
   *
   * A claimed order without an execution index gets one in the claim's store transaction (consecutive for the
   * claim's orders, from the counter limit orders and DCA iterations share): see assignExecutionIndices.
   */
  async claim(
    ids: readonly string[],
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<KeeperLimitOrder[]> {
    const claimed: KeeperLimitOrder[] = [];
    for (const chunk of chunks([...new Set(ids)])) {
      claimed.push(...(await this.claimWhere((q) => q.whereIn('id', chunk), owner, leaseMs, nowMs)));
    }
    return inGivenOrder(claimed, ids);
  }

  /**
   * As `claim`, but only orders whose version is still the one the keeper selected them at: an order PATCHed
   * after selection (its trigger or amount may have moved) stays `pending` and is judged again from the
   * refreshed index on a later block. This is the variant the keeper uses; `claim` suits callers that judge
   * the returned orders themselves.
   */
  async claimVersioned(
    refs: readonly LimitOrderRef[],
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<KeeperLimitOrder[]> {
    const claimed: KeeperLimitOrder[] = [];
    for (const chunk of chunks(refs)) {
      // One CASE instead of a chain of ORs, which SQLite caps at its expression depth.
      const cases = chunk.map(() => 'when ? then ?').join(' ');
      const bindings = chunk.flatMap((ref) => [ref.id, ref.version]);
      claimed.push(
        ...(await this.claimWhere(
          (q) =>
            q
              .whereIn(
                'id',
                chunk.map((ref) => ref.id),
              )
              .andWhereRaw(`version = (case id ${cases} end)`, bindings),
          owner,
          leaseMs,
          nowMs,
        )),
      );
    }
    return inGivenOrder(
      claimed,
      refs.map((ref) => ref.id),
    );
  }

  /**
   * Orders left `executing` by a keeper whose lease ran out go back to `pending`. Safe because an executing
   * order is never in a transaction: `submitBatch` records the signed transaction and moves its orders to
   * `submitted` in one store transaction before anything is broadcast. Submitted orders are not touched here:
   * see `listTrackedWithExpiredLease`.
   */
  async reclaimExpiredLeases(nowMs: number): Promise<string[]> {
    return this.moves.atomic(async (db) => {
      const rows = await this.moves.unsentClaimsToPending(
        db,
        (q) => q.andWhere('lease_expires_at', '<', nowMs),
        SWEEP_LIMIT,
        nowMs,
        'sweep',
      );
      return rows.map((row) => row.id);
    });
  }

  /**
   * executing → pending for the orders `owner` claimed and never put in a transaction, whatever their lease's
   * expiry: a keeper restarted under the same KEEPER_ID knows these claims are its own and that nothing of them was
   * signed (submitBatch moves an order out of this state in the same store transaction that records its batch), so
   * it takes them back at once instead of waiting out the lease. Not counted as an attempt.
   */
  async releaseLeasesOf(owner: string, nowMs: number): Promise<string[]> {
    return this.moves.atomic(async (db) => {
      const rows = await this.moves.unsentClaimsToPending(
        db,
        (q) => q.andWhere('lease_owner', owner),
        SWEEP_LIMIT,
        nowMs,
        'all',
      );
      return rows.map((row) => row.id);
    });
  }

  /**
   * Submitted orders whose tracker stopped renewing its lease. They are never moved back blindly: the
   * transaction carrying them (`keeperTxId`) may be mined, pending, or dropped, and the contract's events (with
   * `isExecuted(index)`) say which. The keeper transactions repository's `takeOverExpired` hands those transactions, and
   * with them these orders, to a live tracker; this list is for checks and metrics.
   */
  async listTrackedWithExpiredLease(nowMs: number, limit = SWEEP_LIMIT): Promise<KeeperLimitOrder[]> {
    return (await this.moves.listTrackedWithExpiredLease('submitted', nowMs, limit)).map(fromRow);
  }

  /**
   * executing → submitted, only for the owner and the version it claimed. Use through the keeper transactions
   * repository's `submitBatch`, which writes the transaction record in the same store transaction.
   */
  async markSubmitted(
    ref: LimitOrderRef,
    owner: string,
    fields: SubmittedFields,
    nowMs: number,
    deferredEvents?: string[],
  ): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(TABLE)
        .where({ id: ref.id, version: ref.version, status: 'executing', lease_owner: owner })
        .whereNull('keeper_tx_id')
        .update({
          ...executionColumns(fields),
          status: 'submitted',
          keeper_tx_id: fields.keeperTxId,
          tx_hash: fields.txHash,
          executor_address: fields.executorAddress,
          lease_expires_at: fields.leaseExpiresAt,
          ...this.moves.bump(nowMs),
        });
      if (changed > 0 && deferredEvents) deferredEvents.push(ref.id);
      else if (changed > 0) await this.moves.recordChanged(db, [ref.id], nowMs);
      return changed > 0;
    });
  }

  /** A replacement (or the mined one of several hashes) becomes the order's `txHash`. */
  async setTxHashOfTransaction(keeperTxId: string, txHash: string, nowMs: number): Promise<number> {
    return this.moves.atomic(async (db) => {
      const ids = await this.openInTransaction(keeperTxId, db);
      const changed = await db(TABLE)
        .where({ keeper_tx_id: keeperTxId, status: 'submitted' })
        .update({ tx_hash: txHash, ...this.moves.bump(nowMs) });
      await this.moves.recordChanged(db, ids, nowMs);
      return changed;
    });
  }

  /** The tracker's lease moves with its transaction's (renewal or take-over). */
  leaseOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<number> {
    return this.moves.leaseRowsOfTransaction('submitted', keeperTxId, owner, leaseExpiresAt, nowMs);
  }

  /**
   * The transaction was dropped or its nonce used by another one, and the contract shows these orders not
   * executed: back to `pending` for a new attempt. Not counted as an attempt (not the maker's doing).
   */
  async returnOrdersOfTransaction(keeperTxId: string, nowMs: number): Promise<string[]> {
    return this.moves.atomic(async (db) => {
      const rows = await this.moves.moveReturning(
        db,
        (q) => q.where({ keeper_tx_id: keeperTxId, status: 'submitted' }),
        { status: 'pending', tx_hash: '', executor_address: '', keeper_tx_id: null, ...this.moves.noLease() },
        nowMs,
        'all',
      );
      return rows.map((row) => row.id);
    });
  }

  async openInTransaction(keeperTxId: string, db: Db = this.knex): Promise<string[]> {
    const rows: Array<{ id: string }> = await db(TABLE)
      .select('id')
      .where({ keeper_tx_id: keeperTxId, status: 'submitted' });
    return rows.map((row) => row.id);
  }

  /**
   * completed → submitted for the orders a reopened transaction had completed (its block left the chain): they
   * wait on it again, under `owner`'s lease. Returns their ids.
   */
  async reopenOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<string[]> {
    return this.moves.reopenRowsOfTransaction(
      'completed',
      'submitted',
      keeperTxId,
      owner,
      leaseExpiresAt,
      nowMs,
    );
  }

  /**
   * submitted | executing → completed: the contract emitted OrderExecuted for it, which is final whoever holds
   * the lease. Returns false when the order is not in either status (already settled: a repeat is harmless).
   */
  async recordChanged(ids: readonly string[], nowMs: number): Promise<void> {
    if (ids.length) await this.moves.atomic((db) => this.moves.recordChanged(db, ids, nowMs));
  }

  async complete(
    id: string,
    success: OrderSuccess,
    nowMs: number,
    deferredEvents?: string[],
  ): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(TABLE)
        .where({ id })
        .whereIn('status', ['submitted', 'executing'])
        .update({
          status: 'completed',
          tx_hash: success.transactionHash,
          ...this.moves.noLease(),
          ...this.moves.bump(nowMs),
        });
      if (changed > 0 && deferredEvents) deferredEvents.push(id);
      else if (changed > 0) await this.moves.recordChanged(db, [id], nowMs);
      return changed > 0;
    });
  }

  /**
   * An attempt failed (plan, simulation, or an OrderFailed event), for an order the owner holds.
   * Final: `failed`, the reason appended to `reasonFail`, `attemptNumber` + 1.
   * Retryable: back to `pending` from `nextAttemptAt`, `attemptNumber` + 1, lease and transaction cleared. The
   * reason is not written to `reasonFail`: the spec shows `reasonFail` empty unless the order failed, and a
   * pending order listing reasons would read as failed; the keeper logs and counts retry reasons instead.
   * A submitted order fails only once its transaction is closed (from `settleBatch`, which closes the row
   * first). Returns the order as written, or undefined when the owner no longer holds it or its transaction is
   * still open.
   */
  async fail(
    id: string,
    owner: string,
    options: FailOptions,
    nowMs: number,
  ): Promise<KeeperLimitOrder | undefined> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
      const current = await this.findIn(this.knex, id);
      if (!current || current.lease_owner !== owner) return undefined;
      if (current.status !== 'executing' && current.status !== 'submitted') return undefined;
      // A transaction still open may yet execute the order: only its settlement decides (a row never reopens).
      if (await this.inOpenTransaction(current.keeper_tx_id)) return undefined;
      const columns: Record<string, unknown> = options.final
        ? {
            status: 'failed',
            reason_fail: JSON.stringify([...parseReasonFail(current.reason_fail), options.reason]),
            ...this.moves.noLease(),
          }
        : {
            status: 'pending',
            next_attempt_at: options.nextAttemptAt ?? nowMs,
            tx_hash: '',
            executor_address: '',
            keeper_tx_id: null,
            ...this.moves.noLease(),
          };
      // Written over the exact row read: the reason list is read-modify-write.
      const changed = await this.moves.atomic(async (db) => {
        const written = await db(TABLE)
          .where({ id, version: current.version, status: current.status, lease_owner: owner })
          .update({
            ...executionColumns(options.fields),
            ...columns,
            attempt_number: Number(current.attempt_number) + 1,
            ...this.moves.bump(nowMs),
          });
        if (written > 0) await this.moves.recordChanged(db, [id], nowMs);
        return written;
      });
      if (changed > 0) return this.findById(id);
    }
    throw new Error(`Limit order ${id} kept changing while its failure was being written`);
  }

  /** pending → failed ['expired'] for the given orders that are past `expired`; returns those moved. */
  async expire(ids: readonly string[], nowMs: number): Promise<string[]> {
    const expired: string[] = [];
    for (const chunk of chunks([...new Set(ids)])) {
      const rows = await this.moves.atomic((db) =>
        this.moves.moveReturning(
          db,
          // The expiry is re-checked in the write: a PATCH that moved `expired` later wins.
          (q) => q.whereIn('id', chunk).andWhere('status', 'pending').andWhere('expires_at', '<=', nowMs),
          { status: 'failed', reason_fail: JSON.stringify(['expired']), ...this.moves.noLease() },
          nowMs,
          'claim',
        ),
      );
      expired.push(...rows.map((row) => row.id));
    }
    return expired;
  }

  /**
   * executing → pending without counting an attempt: the plan found it should not run yet (price moved back
   * before the batch, an RPC could not be read). Only the owner, and never once the order is in a transaction.
   */
  releaseLease(id: string, owner: string, nowMs: number, nextAttemptAt?: number): Promise<boolean> {
    return this.moves.releaseClaim(this.knex, id, owner, nowMs, nextAttemptAt);
  }

  private async claimWhere(
    filter: RowFilter,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<KeeperLimitOrder[]> {
    const rows = await this.moves.atomic(async (db) => {
      const claimed = await this.moves.moveReturning(
        db,
        (q) =>
          filter(q)
            .andWhere('status', 'pending')
            .andWhere('next_attempt_at', '<=', nowMs)
            .andWhere('expires_at', '>', nowMs),
        { status: 'executing', lease_owner: owner, lease_expires_at: nowMs + leaseMs },
        nowMs,
        'claim',
      );
      await assignExecutionIndices(db, this.dialect, TABLE, claimed);
      return claimed;
    });
    return rows.map(fromRow);
  }

  private async inOpenTransaction(keeperTxId: string | null): Promise<boolean> {
    if (keeperTxId === null) return false;
    const row: { status: string } | undefined = await this.knex(KEEPER_TRANSACTIONS)
      .select('status')
      .where({ id: keeperTxId })
      .first();
    return row !== undefined && OPEN_KEEPER_TRANSACTION_STATUSES.some((status) => status === row.status);
  }

  private async findIn(db: Db, id: string): Promise<KeeperLimitOrderRow | undefined> {
    return db(TABLE).where({ id }).first();
  }
}
