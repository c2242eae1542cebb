import { recordEventsIn } from '../../events/event-outbox';
import { DCA_ORDER_EVENTS, DCA_STRATEGY_EVENTS } from '../../events/resource-kinds';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { isDuplicateKeyError, type Dialect } from '../create-knex';
import type { DcaOrder, DcaStrategy, DcaStrategyStatus } from '../../domain/dca';
import { orderFromRow, strategyFromRow, type DcaOrderRow, type DcaStrategyRow } from './dca-rows';
import { chunks, KeeperRowMoves, type Db, type MoveMode, type RowFilter } from './keeper-row-moves';
import type {
  FailOptions,
  KeeperOrderRef,
  KeeperOrderRepository,
  OrderSuccess,
  SubmittedFields,
} from './keeper-order-repository';
import { OPEN_KEEPER_TRANSACTION_STATUSES } from './keeper-transaction-statuses';
import { assignExecutionIndices, executionIndexOf } from './execution-indices';

/**
 * The keeper's side of DCA strategies and their orders. Order states (the spec's):
 *
 *   (created at its slot) pending ─claim─> executing ─settle─> successful | error
 *                           │  ^  ^           │  │
 *                           │  │  └─release / retry (back off)─┘
 *                           │  └─ lease expired, never in a transaction
 *                           ├─> expired (its slot passed outside the price bounds)
 *                           └─> cancelled (strategy cancelled before the order ran)
 *
 * DCA orders have no `submitted` status: an executing order inside a keeper transaction carries its
 * `keeper_tx_id`, and only the tracker of that transaction moves it on. An order that goes back to `pending`
 * while its strategy is no longer active becomes `cancelled` instead, in the same store transaction, so a
 * cancelled strategy never gets an order run after the cancel.
 *
 * As in the limit orders repository: every move is guarded by the state it starts from (and the lease owner
 * where the keeper holds the order), bumps `version` and `updated_at`, and a SQLite transaction writes first.
 */

export interface KeeperDcaOrder extends DcaOrder {
  attemptNumber: number;
  nextAttemptAt: number;
  version: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  keeperTxId: string | null;
  /**
   * The iteration's execution index (its bit in the OrderExecutor's executed bitmap): given by its first claim,
   * never changed; null before it.
   */
  execIndex: bigint | null;
}

/** A claimed order with its strategy (price bounds, signature, tokens) as read in the claim's transaction. */
export interface ClaimedDcaOrder {
  order: KeeperDcaOrder;
  strategy: DcaStrategy;
}

export type DcaOrderRef = KeeperOrderRef;

export type CreateIterationResult =
  | { kind: 'created'; order: KeeperDcaOrder }
  /** The slot's order already exists: a repeated creation is harmless. */
  | { kind: 'exists'; order: KeeperDcaOrder }
  | { kind: 'not-found' }
  /** Cancelled or finished: no more orders. */
  | { kind: 'not-active'; status: DcaStrategyStatus }
  /** Iterations are created in order; `iterationsCreated` is the next one the strategy takes. */
  | { kind: 'not-next'; iterationsCreated: number; iterations: number };

/** What a successful iteration reports: its transaction, amount received and price (JSON numbers). */
export type DcaSuccess = OrderSuccess;

type Numeric = number | string;

interface KeeperDcaOrderRow extends DcaOrderRow {
  keeper_tx_id: string | null;
  next_attempt_at: Numeric;
  version: Numeric;
  exec_index: Numeric | bigint | null;
}

const STRATEGIES = 'dca_strategies';
const ORDERS = 'dca_orders';
const KEEPER_TRANSACTIONS = 'keeper_transactions';
const SWEEP_LIMIT = 1000;

function fromRow(row: KeeperDcaOrderRow): KeeperDcaOrder {
  return {
    ...orderFromRow(row),
    attemptNumber: Number(row.attempt_number),
    nextAttemptAt: Number(row.next_attempt_at),
    version: Number(row.version),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
    keeperTxId: row.keeper_tx_id,
    execIndex: executionIndexOf(row),
  };
}

/** Constructed with the store's knex, or with a knex transaction to run inside it (see the limit orders one). */
export class KeeperDcaRepository implements KeeperOrderRepository<KeeperDcaOrder, ClaimedDcaOrder, boolean> {
  readonly kind = 'dca';
  private readonly moves: KeeperRowMoves<KeeperDcaOrderRow>;

  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {
    this.moves = new KeeperRowMoves(knex, dialect, ORDERS, DCA_ORDER_EVENTS);
  }

  /** Open DCA orders per chain and status (pending, executing): the keeper's gauge. */
  async countOpen(): Promise<{ chainId: number; status: string; count: number }[]> {
    const rows: { chain_id: Numeric; status: string; count: Numeric }[] = await this.knex(ORDERS)
      .join(STRATEGIES, `${STRATEGIES}.id`, `${ORDERS}.strategy_id`)
      .select(`${STRATEGIES}.chain_id_from as chain_id`, `${ORDERS}.status as status`)
      .count({ count: '*' })
      .whereIn(`${ORDERS}.status`, ['pending', 'executing'])
      .groupBy(`${STRATEGIES}.chain_id_from`, `${ORDERS}.status`);
    return rows.map((r) => ({ chainId: Number(r.chain_id), status: r.status, count: Number(r.count) }));
  }

  /** Active strategies, oldest first, optionally of one chain: the keeper computes their due slots. */
  async listActiveStrategies(chainId?: number): Promise<DcaStrategy[]> {
    const query = this.knex<DcaStrategyRow>(STRATEGIES).select('*').where('status', 'active');
    if (chainId !== undefined) query.andWhere('chain_id_from', chainId);
    const rows: DcaStrategyRow[] = await query.orderBy('created_at', 'asc').orderBy('id', 'asc');
    return rows.map(strategyFromRow);
  }

  async findStrategy(id: string): Promise<DcaStrategy | undefined> {
    const row: DcaStrategyRow | undefined = await this.knex(STRATEGIES).where({ id }).first();
    return row ? strategyFromRow(row) : undefined;
  }

  async findById(id: string): Promise<KeeperDcaOrder | undefined> {
    const row: KeeperDcaOrderRow | undefined = await this.knex(ORDERS).where({ id }).first();
    return row ? fromRow(row) : undefined;
  }

  async findByIds(ids: readonly string[]): Promise<KeeperDcaOrder[]> {
    const found: KeeperDcaOrder[] = [];
    for (const chunk of chunks([...new Set(ids)])) {
      const rows: KeeperDcaOrderRow[] = await this.knex(ORDERS).whereIn('id', chunk);
      found.push(...rows.map(fromRow));
    }
    return found;
  }

  async listOrdersOfStrategy(strategyId: string): Promise<KeeperDcaOrder[]> {
    const rows: KeeperDcaOrderRow[] = await this.knex(ORDERS)
      .where({ strategy_id: strategyId })
      .orderBy('iteration', 'asc');
    return rows.map(fromRow);
  }

  /**
   * Creates the order of slot `iteration` and advances `iterations_created`, in one store transaction, only
   * while the strategy is `active` and this is its next iteration. The strategy row is written first, so a
   * concurrent cancel (which writes the same row, then cancels the pending orders) is ordered before or after
   * it as a whole: either this creates nothing, or the cancel finds the new order pending and cancels it.
   * Idempotent: a repeat finds the order and answers `exists`.
   */
  async createIteration(
    strategyId: string,
    iteration: number,
    slotAt: number,
    amount: number,
    nowMs: number,
  ): Promise<CreateIterationResult> {
    try {
      const created = await this.moves.atomic(async (db) => {
        const advanced = await db(STRATEGIES)
          .where({ id: strategyId, status: 'active', iterations_created: iteration })
          .andWhere('iterations', '>', iteration)
          .update({ iterations_created: iteration + 1, ...this.moves.bump(nowMs) });
        if (advanced === 0) return undefined;
        const strategy: DcaStrategyRow = await db(STRATEGIES).where({ id: strategyId }).first();
        const row: KeeperDcaOrderRow = {
          id: randomUUID(),
          strategy_id: strategyId,
          api_key: strategy.api_key,
          account_to: strategy.account_to,
          iteration,
          slot_at: slotAt,
          amount,
          amount_received: null,
          execution_price: null,
          status: 'pending',
          transaction_hash: null,
          error_message: null,
          attempt_number: 0,
          lease_owner: null,
          lease_expires_at: null,
          keeper_tx_id: null,
          next_attempt_at: 0,
          version: 0,
          // Given by the iteration's first claim.
          exec_index: null,
          created_at: nowMs,
          updated_at: nowMs,
        };
        await db(ORDERS).insert(row);
        await this.moves.recordChanged(db, [row.id], nowMs);
        return fromRow(row);
      });
      if (created) return { kind: 'created', order: created };
    } catch (err) {
      // Only a slot order written outside this method could collide; the transaction rolled back whole.
      if (!isDuplicateKeyError(err)) throw err;
    }
    const existing: KeeperDcaOrderRow | undefined = await this.knex(ORDERS)
      .where({ strategy_id: strategyId, iteration })
      .first();
    if (existing) return { kind: 'exists', order: fromRow(existing) };
    const strategy = await this.findStrategy(strategyId);
    if (!strategy) return { kind: 'not-found' };
    if (strategy.status !== 'active') return { kind: 'not-active', status: strategy.status };
    return {
      kind: 'not-next',
      iterationsCreated: strategy.iterationsCreated,
      iterations: strategy.iterations,
    };
  }

  /** Pending orders whose slot has come and that are not backing off, with their active strategies. */
  async listDueOrders(nowMs: number, chainId?: number, limit = SWEEP_LIMIT): Promise<ClaimedDcaOrder[]> {
    const query = this.knex(ORDERS)
      .select(`${ORDERS}.*`)
      .join(STRATEGIES, `${STRATEGIES}.id`, `${ORDERS}.strategy_id`)
      .where(`${ORDERS}.status`, 'pending')
      .andWhere(`${ORDERS}.slot_at`, '<=', nowMs)
      .andWhere(`${ORDERS}.next_attempt_at`, '<=', nowMs)
      .andWhere(`${STRATEGIES}.status`, 'active');
    if (chainId !== undefined) query.andWhere(`${STRATEGIES}.chain_id_from`, chainId);
    const rows: KeeperDcaOrderRow[] = await query
      .orderBy(`${ORDERS}.slot_at`, 'asc')
      .orderBy(`${ORDERS}.id`, 'asc')
      .limit(limit);
    return this.withStrategies(this.knex, rows);
  }

  /**
   * pending (due) → executing under the owner's lease, with SKIP LOCKED on MySQL (see the limit orders claim for
   * why this cannot take an order the api is changing). An order whose strategy is no longer active is cancelled
   * in the same transaction instead of claimed. Versions, when given, must still match. A claimed order without an
   * execution index gets one in the same transaction (see the limit orders claim).
   */
  claim(ids: readonly string[], owner: string, leaseMs: number, nowMs: number): Promise<ClaimedDcaOrder[]> {
    return this.claimRefs(ids, owner, leaseMs, nowMs);
  }

  /** As `claim`, only for orders still at the version the keeper selected them at. */
  claimVersioned(
    refs: readonly DcaOrderRef[],
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<ClaimedDcaOrder[]> {
    return this.claimRefs(refs, owner, leaseMs, nowMs);
  }

  private async claimRefs(
    refs: ReadonlyArray<string | DcaOrderRef>,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<ClaimedDcaOrder[]> {
    const claimed: ClaimedDcaOrder[] = [];
    for (const chunk of chunks(refs)) {
      const ids = chunk.map((ref) => (typeof ref === 'string' ? ref : ref.id));
      const versioned = chunk.filter((ref): ref is DcaOrderRef => typeof ref !== 'string');
      const cases = versioned.map(() => 'when ? then ?').join(' ');
      const filter: RowFilter = (q) => {
        q.whereIn('id', ids)
          .andWhere('status', 'pending')
          .andWhere('slot_at', '<=', nowMs)
          .andWhere('next_attempt_at', '<=', nowMs);
        if (versioned.length) {
          // Ids given without a version match whatever version they have.
          q.andWhereRaw(
            `version = (case id ${cases} else version end)`,
            versioned.flatMap((r) => [r.id, r.version]),
          );
        }
        return q;
      };
      const result = await this.moves.atomic(async (db) => {
        const rows = await this.moves.moveReturning(
          db,
          filter,
          { status: 'executing', lease_owner: owner, lease_expires_at: nowMs + leaseMs },
          nowMs,
          'claim',
        );
        const cancelled = new Set(
          await this.cancelWhereStrategyInactive(
            db,
            rows.map((row) => row.id),
            nowMs,
          ),
        );
        const taken = rows.filter((row) => !cancelled.has(row.id));
        await assignExecutionIndices(db, this.dialect, ORDERS, taken);
        return this.withStrategies(db, taken);
      });
      claimed.push(...result);
    }
    const position = new Map(refs.map((ref, i) => [typeof ref === 'string' ? ref : ref.id, i]));
    return claimed.sort((a, b) => (position.get(a.order.id) ?? 0) - (position.get(b.order.id) ?? 0));
  }

  /** Executing orders of a crashed keeper that never reached a transaction go back to pending (or cancelled). */
  reclaimExpiredLeases(nowMs: number): Promise<string[]> {
    return this.unsentToPending((q) => q.andWhere('lease_expires_at', '<', nowMs), 'sweep', nowMs);
  }

  /**
   * Executing orders `owner` claimed and never put in a transaction go back to pending (or cancelled), whatever
   * their lease's expiry: a keeper restarted under the same KEEPER_ID takes its own claims back at once (see the
   * limit one). Not counted as an attempt.
   */
  releaseLeasesOf(owner: string, nowMs: number): Promise<string[]> {
    return this.unsentToPending((q) => q.andWhere('lease_owner', owner), 'all', nowMs);
  }

  /** Unsent claims back to pending; those of a strategy no longer active are cancelled instead. */
  private unsentToPending(which: RowFilter, mode: MoveMode, nowMs: number): Promise<string[]> {
    return this.moves.atomic(async (db) => {
      const rows = await this.moves.unsentClaimsToPending(db, which, SWEEP_LIMIT, nowMs, mode);
      const ids = rows.map((row) => row.id);
      await this.cancelWhereStrategyInactive(db, ids, nowMs);
      return ids;
    });
  }

  /** Executing orders inside a transaction whose tracker stopped renewing its lease (see the limit one). */
  async listTrackedWithExpiredLease(nowMs: number, limit = SWEEP_LIMIT): Promise<KeeperDcaOrder[]> {
    return (await this.moves.listTrackedWithExpiredLease('executing', nowMs, limit)).map(fromRow);
  }

  /**
   * Ties a claimed order to its keeper transaction (use through `submitBatch`); a DCA order stays `executing`
   * and keeps no execution fields.
   */
  async markSubmitted(
    ref: DcaOrderRef,
    owner: string,
    fields: Pick<SubmittedFields, 'keeperTxId' | 'leaseExpiresAt'>,
    nowMs: number,
  ): Promise<boolean> {
    const changed = await this.knex(ORDERS)
      .where({ id: ref.id, version: ref.version, status: 'executing', lease_owner: owner })
      .whereNull('keeper_tx_id')
      .update({
        keeper_tx_id: fields.keeperTxId,
        lease_expires_at: fields.leaseExpiresAt,
        ...this.moves.bump(nowMs),
      });
    return changed > 0;
  }

  leaseOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<number> {
    return this.moves.leaseRowsOfTransaction('executing', keeperTxId, owner, leaseExpiresAt, nowMs);
  }

  async returnOrdersOfTransaction(keeperTxId: string, nowMs: number): Promise<string[]> {
    return this.moves.atomic(async (db) => {
      const rows = await this.moves.moveReturning(
        db,
        (q) => q.where({ keeper_tx_id: keeperTxId, status: 'executing' }),
        { status: 'pending', keeper_tx_id: null, lease_owner: null, lease_expires_at: null },
        nowMs,
        'all',
      );
      await this.cancelWhereStrategyInactive(
        db,
        rows.map((row) => row.id),
        nowMs,
      );
      return rows.map((row) => row.id);
    });
  }

  async openInTransaction(keeperTxId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.knex(ORDERS)
      .select('id')
      .where({ keeper_tx_id: keeperTxId, status: 'executing' });
    return rows.map((row) => row.id);
  }

  /** An iteration shows its transaction's hash once executed (`complete`), not while in flight. */
  setTxHashOfTransaction(): Promise<number> {
    return Promise.resolve(0);
  }

  /**
   * successful → executing for the iterations a reopened transaction had executed (its block left the chain), under
   * `owner`'s lease; a strategy that finished with them is active again. Returns their ids.
   */
  async reopenOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<string[]> {
    const ids = await this.moves.reopenRowsOfTransaction(
      'successful',
      'executing',
      keeperTxId,
      owner,
      leaseExpiresAt,
      nowMs,
    );
    if (!ids.length) return [];
    const strategies: Array<{ strategy_id: string }> = await this.knex(ORDERS)
      .distinct('strategy_id')
      .whereIn('id', ids);
    const strategyIds = strategies.map((row) => row.strategy_id);
    await this.knex(STRATEGIES)
      .whereIn('id', strategyIds)
      .andWhere('status', 'finished')
      .update({ status: 'active', ...this.moves.bump(nowMs) });
    await recordEventsIn(this.knex, DCA_STRATEGY_EVENTS, strategyIds, nowMs);
    return ids;
  }

  /** executing → successful, from the contract's OrderExecuted event (final, whoever holds the lease). */
  async recordChanged(ids: readonly string[], nowMs: number): Promise<void> {
    if (ids.length) await this.moves.atomic((db) => this.moves.recordChanged(db, ids, nowMs));
  }

  async complete(
    id: string,
    success: DcaSuccess,
    nowMs: number,
    deferredEvents?: string[],
  ): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(ORDERS)
        .where({ id, status: 'executing' })
        .update({
          status: 'successful',
          transaction_hash: success.transactionHash,
          amount_received: success.amountReceived ?? 0,
          execution_price: success.executionPrice ?? 0,
          lease_owner: null,
          lease_expires_at: null,
          ...this.moves.bump(nowMs),
        });
      if (changed > 0 && deferredEvents) deferredEvents.push(id);
      else if (changed > 0) await this.moves.recordChanged(db, [id], nowMs);
      return changed > 0;
    });
  }

  /**
   * An attempt failed for an order the owner holds. Final: `error` with `errorMessage`. Retryable: back to
   * `pending` from `nextAttemptAt` (or `cancelled` when the strategy was cancelled meanwhile), out of its
   * transaction. Both count an attempt. An order in a transaction fails only once that transaction is closed
   * (from `settleBatch`, which closes the row first).
   */
  async fail(id: string, owner: string, options: FailOptions, nowMs: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(ORDERS)
        .where({ id, status: 'executing', lease_owner: owner })
        // A transaction still open may yet execute the order: only its settlement decides (a row never reopens).
        .andWhere((q) =>
          q.whereNull('keeper_tx_id').orWhereNotIn(
            'keeper_tx_id',
            db(KEEPER_TRANSACTIONS)
              .select('id')
              .whereIn('status', [...OPEN_KEEPER_TRANSACTION_STATUSES]),
          ),
        )
        .update({
          ...(options.final
            ? { status: 'error', error_message: options.reason }
            : { status: 'pending', keeper_tx_id: null, next_attempt_at: options.nextAttemptAt ?? nowMs }),
          attempt_number: db.raw('attempt_number + 1'),
          lease_owner: null,
          lease_expires_at: null,
          ...this.moves.bump(nowMs),
        });
      if (changed === 0) return false;
      await this.moves.recordChanged(db, [id], nowMs);
      if (!options.final) await this.cancelWhereStrategyInactive(db, [id], nowMs);
      return true;
    });
  }

  /** executing → pending without counting an attempt (or cancelled when the strategy is no longer active). */
  async releaseLease(id: string, owner: string, nowMs: number, nextAttemptAt?: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      if (!(await this.moves.releaseClaim(db, id, owner, nowMs, nextAttemptAt))) return false;
      await this.cancelWhereStrategyInactive(db, [id], nowMs);
      return true;
    });
  }

  /**
   * → expired: a pending order whose slot passed while the price stayed outside the strategy's bounds, or an
   * executing one the owner holds that never reached a transaction.
   */
  async expireOrder(id: string, nowMs: number, owner?: string): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const query = db(ORDERS).where({ id });
      if (owner === undefined) query.andWhere('status', 'pending');
      else query.andWhere({ status: 'executing', lease_owner: owner }).whereNull('keeper_tx_id');
      const changed = await query.update({
        status: 'expired',
        lease_owner: null,
        lease_expires_at: null,
        ...this.moves.bump(nowMs),
      });
      if (changed > 0) await this.moves.recordChanged(db, [id], nowMs);
      return changed > 0;
    });
  }

  /**
   * Defence in depth: the api's cancel already cancels pending orders in its own transaction, and every move
   * back to pending here checks the strategy; this sweep catches anything else (a strategy cancelled by hand).
   */
  async cancelPendingOrdersOfCancelledStrategies(nowMs: number): Promise<number> {
    return this.moves.atomic(async (db) => {
      const rows: Array<{ id: string }> = await db(ORDERS)
        .select('id')
        .where('status', 'pending')
        .whereIn('strategy_id', db(STRATEGIES).select('id').whereNot('status', 'active'));
      const ids = rows.map((row) => row.id);
      let changed = 0;
      for (const part of chunks(ids)) {
        changed += await db(ORDERS)
          .whereIn('id', part)
          .andWhere('status', 'pending')
          .update({ status: 'cancelled', ...this.moves.bump(nowMs) });
      }
      await this.moves.recordChanged(db, ids, nowMs);
      return changed;
    });
  }

  /**
   * active → finished once every iteration was created and every order is final, in one conditional UPDATE.
   * Stable without locks: no order goes from a final status back to pending or executing (but for a reopened batch,
   * which also makes its strategy active again), and no iteration is
   * created once `iterations_created` reached `iterations`.
   */
  async finishStrategyIfDone(strategyId: string, nowMs: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(STRATEGIES)
        .where({ id: strategyId, status: 'active' })
        .andWhereRaw('iterations_created >= iterations')
        .whereNotExists(
          db(ORDERS)
            .select(db.raw('1'))
            .where('strategy_id', strategyId)
            .whereIn('status', ['pending', 'executing']),
        )
        .update({ status: 'finished', ...this.moves.bump(nowMs) });
      if (changed > 0) await recordEventsIn(db, DCA_STRATEGY_EVENTS, [strategyId], nowMs);
      return changed > 0;
    });
  }

  /** Of the given orders, those now pending under a strategy that is not active become cancelled. */
  private async cancelWhereStrategyInactive(
    db: Db,
    ids: readonly string[],
    nowMs: number,
  ): Promise<string[]> {
    if (!ids.length) return [];
    const inactive: Array<{ id: string }> = await db(ORDERS)
      .select(`${ORDERS}.id`)
      .join(STRATEGIES, `${STRATEGIES}.id`, `${ORDERS}.strategy_id`)
      .whereIn(`${ORDERS}.id`, ids)
      .whereNot(`${STRATEGIES}.status`, 'active');
    if (!inactive.length) return [];
    const inactiveIds = inactive.map((row) => row.id);
    await db(ORDERS)
      .whereIn('id', inactiveIds)
      .whereIn('status', ['pending', 'executing'])
      .whereNull('keeper_tx_id')
      .update({ status: 'cancelled', lease_owner: null, lease_expires_at: null, ...this.moves.bump(nowMs) });
    await this.moves.recordChanged(db, inactiveIds, nowMs);
    return inactiveIds;
  }

  private async withStrategies(db: Db, rows: readonly KeeperDcaOrderRow[]): Promise<ClaimedDcaOrder[]> {
    if (!rows.length) return [];
    const strategyRows: DcaStrategyRow[] = await db(STRATEGIES).whereIn('id', [
      ...new Set(rows.map((row) => row.strategy_id)),
    ]);
    const strategies = new Map(strategyRows.map((row) => [row.id, strategyFromRow(row)]));
    return rows.flatMap((row) => {
      const strategy = strategies.get(row.strategy_id);
      return strategy ? [{ order: fromRow(row), strategy }] : [];
    });
  }
}
