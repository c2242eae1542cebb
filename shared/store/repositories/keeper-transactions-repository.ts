import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Dialect } from '../create-knex';
import { KeeperDcaRepository } from './keeper-dca-repository';
import { KeeperLimitOrdersRepository } from './keeper-limit-orders-repository';
import type {
  AnyKeeperOrderRepository,
  ExecutionFields,
  KeeperOrderKind,
  KeeperOrderRef,
  OrderSuccess,
} from './keeper-order-repository';
import { chunks, KeeperRowMoves, type Db } from './keeper-row-moves';
import {
  OPEN_KEEPER_TRANSACTION_STATUSES,
  type KeeperTransactionStatus,
} from './keeper-transaction-statuses';

export {
  KEEPER_TRANSACTION_STATUSES,
  OPEN_KEEPER_TRANSACTION_STATUSES,
  type KeeperTransactionStatus,
} from './keeper-transaction-statuses';

/**
 * The keeper's batch transactions (`keeper_transactions`), one row per nonce it signs a batch for, and the
 * moves that carry orders into and out of them. A row's status:
 *
 *   signed ─markBroadcast─> pending ─markMined─> mined ─settleBatch─> settled
 *     ^  │                   │  ^                 │
 *     │  └──────────┬────────┘  └──markReorged────┘
 *     │             └─markDropped─> dropped | replaced      (orders not executed go back to pending)
 *     ├─recordReplacement (from signed or pending)
 *     └─reopenSettled (from settled: its block left the chain after the confirmations; orders back in it)
 *
 * `signed` means "may or may not have reached the network": the row, with the signed raw transaction and its
 * hash, is written BEFORE the transaction is broadcast, in the same store transaction that moves its orders
 * to `submitted` (`submitBatch`). `replaced` is a row whose nonce was used by another transaction (an empty
 * transaction that unjammed the nonce, say); a fee bump of the same batch stays in the same row.
 *
 * Recovery after a kill at each point (a restarted keeper has a new owner id; leases are how it finds the work):
 * 1. After the claim, before submitBatch commits (orders `executing`, no row): nothing recorded was signed and
 *    nothing unrecorded is ever broadcast. The leases expire and `reclaimExpiredLeases` (limit and DCA: only
 *    orders without a `keeper_tx_id`) puts the orders back to `pending`. Their nonce was never used on chain.
 * 2. Inside submitBatch: the store transaction rolls back whole, as 1.
 * 3. After submitBatch, before or after the broadcast, before markBroadcast (row `signed`, orders `submitted` /
 *    DCA `executing` with `keeper_tx_id`): the row's lease expires, `takeOverExpired` hands the row and its
 *    orders to a live tracker, which broadcasts `raw_tx` again (a node that has it answers "already known" or
 *    "nonce too low": both mean it went out) and follows every hash in `tx_hashes`.
 * 4. While replacing a stuck transaction: `recordReplacement` stores the new raw transaction and appends its
 *    hash (row back to `signed`) before it is broadcast; after a restart, as 3, and whichever hash of the nonce
 *    is mined is the one (only one can be).
 * 5. After mining, before or inside settlement (row `pending` or `mined`): the tracker finds the receipt of one
 *    of `tx_hashes` and settles from its OrderExecuted / OrderFailed events; `settleBatch` writes every order
 *    and the row in one store transaction and refuses to leave an order of the batch unsettled.
 * 6. Dropped: no hash has a receipt and the executor's nonce moved past the row's nonce (or the nodes forgot
 *    the transaction and rebroadcasting `raw_tx` fails): the tracker reads the contract's `isExecuted(index)` for
 *    every order, completes those executed (from their OrderExecuted log), then `markDropped` returns the rest
 *    to `pending`. No order runs twice: the contract refuses a spent index, and no order leaves `submitted`
 *    while a tracker holds its transaction except by these moves.
 * 7. Reorg: `markMined` keeps the block number and hash; settlement waits for the chain's confirmations and
 *    checks the block hash again; a mismatch is `markReorged` (back to `pending`, followed again).
 * 8. Deeper reorg: the settle stage re-checks the block hashes of settled rows within a window; a mismatch is
 *    `reopenSettled` (settled → signed, its completed orders back to `submitted`), followed again as 3.
 * A keeper broadcasts a raw transaction only after the store accepted it (submitBatch answered `submitted`,
 * recordReplacement true): one that lost its lease cannot record, so it never sends for orders it no longer holds.
 * Nonce managers must count open rows: the next nonce of an executor is at least its highest open row's + 1,
 * since a `signed` row holds a nonce the chain may not have seen yet.
 *
 * Leases: a claim's lease covers planning and signing (seconds); from submitBatch on, the row's lease (and the
 * same one on its orders) is renewed by its tracker with `renewLease` while the row is open.
 */

export interface KeeperTransaction {
  id: string;
  chainId: number;
  executor: string;
  nonce: number;
  /** The latest signed hash (`rawTx`'s), or the mined one once mined. */
  txHash: string;
  /** Every hash signed for this row, oldest first. */
  txHashes: string[];
  rawTx: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  status: KeeperTransactionStatus;
  triggerBlock: number | null;
  submittedBlock: number | null;
  minedBlock: number | null;
  minedBlockHash: string | null;
  /** What it carries, in the batch's order: (kind, id) rows of `keeper_transaction_items`. */
  orders: TransactionOrder[];
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** One item a keeper transaction carries. */
export interface TransactionOrder {
  kind: KeeperOrderKind;
  id: string;
}

/** An order of a batch as claimed (its version), with what the plan measured for it (kinds keep what they show). */
export interface BatchOrder extends TransactionOrder, KeeperOrderRef {
  fields?: ExecutionFields;
}

export interface NewBatchTransaction {
  /** Generated when absent. */
  id?: string;
  chainId: number;
  executor: string;
  nonce: number;
  txHash: string;
  rawTx: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** The block whose price triggered the batch (for latency metrics). */
  triggerBlock: number | null;
  /** Orders as claimed (kind, id and the version the claim returned), in the batch's order. */
  orders: BatchOrder[];
}

export type SubmitBatchResult =
  | { kind: 'submitted'; transaction: KeeperTransaction }
  /** Orders the owner no longer holds at the claimed version: nothing was written, do not broadcast. */
  | { kind: 'conflict'; orders: TransactionOrder[] };

export interface Replacement {
  txHash: string;
  rawTx: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface MinedAt {
  txHash: string;
  blockNumber: number;
  blockHash: string;
}

/** How one order of a batch ended, from the receipt's events. */
export type OrderOutcome = TransactionOrder &
  (
    | { outcome: 'executed'; success?: Omit<OrderSuccess, 'transactionHash'> }
    | { outcome: 'failed'; reason: string; final: boolean; nextAttemptAt?: number }
  );

/** Orders a move took out of (or put back into) a transaction. */
export type ReturnedOrders = TransactionOrder[];

export type SettleBatchResult =
  | { kind: 'settled'; orders: TransactionOrder[] }
  /** Not `mined` or not held by the owner: nothing written. */
  | { kind: 'not-held' };

type Numeric = number | string;

interface KeeperTransactionRow {
  id: string;
  chain_id: Numeric;
  executor: string;
  nonce: Numeric;
  tx_hash: string;
  tx_hashes: string;
  raw_tx: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  status: string;
  trigger_block: Numeric | null;
  submitted_block: Numeric | null;
  mined_block: Numeric | null;
  mined_block_hash: string | null;
  limit_order_ids: string;
  dca_order_ids: string;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  version: Numeric;
  created_at: Numeric;
  updated_at: Numeric;
}

const TABLE = 'keeper_transactions';
const ITEMS = 'keeper_transaction_items';
const SWEEP_LIMIT = 100;

const nullableNumber = (value: Numeric | null): number | null => (value === null ? null : Number(value));

function stringArray(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

function fromRow(row: KeeperTransactionRow): KeeperTransaction {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    executor: row.executor,
    nonce: Number(row.nonce),
    txHash: row.tx_hash,
    txHashes: stringArray(row.tx_hashes),
    rawTx: row.raw_tx,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    status: row.status as KeeperTransactionStatus,
    triggerBlock: nullableNumber(row.trigger_block),
    submittedBlock: nullableNumber(row.submitted_block),
    minedBlock: nullableNumber(row.mined_block),
    minedBlockHash: row.mined_block_hash,
    orders: [],
    leaseOwner: row.lease_owner,
    leaseExpiresAt: nullableNumber(row.lease_expires_at),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Thrown inside a store transaction to roll it back; never leaves this module. */
class Rollback extends Error {
  constructor(readonly result: SubmitBatchResult) {
    super('rollback');
  }
}

function repositoryOf(
  kinds: ReadonlyMap<KeeperOrderKind, AnyKeeperOrderRepository>,
  kind: KeeperOrderKind,
): AnyKeeperOrderRepository {
  const repository = kinds.get(kind);
  if (!repository) throw new Error(`no repository for keeper items of kind ${kind}`);
  return repository;
}

export class KeeperTransactionsRepository {
  private readonly moves: KeeperRowMoves<KeeperTransactionRow>;

  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {
    this.moves = new KeeperRowMoves(knex, dialect, TABLE);
  }

  /** Each kind's order repository on `db` (a store transaction or the store): how items of that kind move. */
  private kinds(db: Db): ReadonlyMap<KeeperOrderKind, AnyKeeperOrderRepository> {
    return new Map<KeeperOrderKind, AnyKeeperOrderRepository>([
      ['limit', new KeeperLimitOrdersRepository(db, this.dialect)],
      ['dca', new KeeperDcaRepository(db, this.dialect)],
    ]);
  }

  /** Rows with the items they carry. */
  private async withOrders(
    rows: readonly KeeperTransactionRow[],
    db: Db = this.knex,
  ): Promise<KeeperTransaction[]> {
    const out = rows.map(fromRow);
    if (!out.length) return out;
    const byId = new Map(out.map((t) => [t.id, t]));
    for (const ids of chunks(out.map((t) => t.id))) {
      const items: Array<{ transaction_id: string; kind: string; item_id: string }> = await db(ITEMS)
        .select('transaction_id', 'kind', 'item_id')
        .whereIn('transaction_id', ids)
        .orderBy('position', 'asc');
      for (const item of items)
        byId.get(item.transaction_id)?.orders.push({ kind: item.kind as KeeperOrderKind, id: item.item_id });
    }
    return out;
  }

  async findById(id: string): Promise<KeeperTransaction | undefined> {
    const row: KeeperTransactionRow | undefined = await this.knex(TABLE).where({ id }).first();
    return row ? (await this.withOrders([row]))[0] : undefined;
  }

  /** Open rows of a chain (optionally of one executor), oldest nonce first: what trackers and nonce managers read. */
  async listOpen(chainId: number, executor?: string): Promise<KeeperTransaction[]> {
    const query = this.knex(TABLE)
      .where('chain_id', chainId)
      .whereIn('status', [...OPEN_KEEPER_TRANSACTION_STATUSES]);
    if (executor !== undefined) query.andWhere('executor', executor);
    const rows: KeeperTransactionRow[] = await query.orderBy('nonce', 'asc').orderBy('created_at', 'asc');
    return this.withOrders(rows);
  }

  /**
   * Records a signed batch (status `signed`) and moves its orders into it, all in one store transaction:
   * limit orders executing → submitted (with txHash, executor and the plan's fields), DCA orders tied to it,
   * each only if the owner still holds it at the version the claim returned. If any order fails that check,
   * nothing is written and the caller must not broadcast (the nonce stays unused).
   */
  async submitBatch(
    batch: NewBatchTransaction,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<SubmitBatchResult> {
    if (!batch.orders.length) throw new Error('A batch needs at least one order');
    const id = batch.id ?? randomUUID();
    const leaseExpiresAt = nowMs + leaseMs;
    try {
      return await this.moves.atomic(async (db) => {
        // The row first: SQLite takes the write lock with the first statement.
        await db(TABLE).insert({
          id,
          chain_id: batch.chainId,
          executor: batch.executor,
          nonce: batch.nonce,
          tx_hash: batch.txHash,
          tx_hashes: JSON.stringify([batch.txHash]),
          raw_tx: batch.rawTx,
          max_fee_per_gas: batch.maxFeePerGas.toString(),
          max_priority_fee_per_gas: batch.maxPriorityFeePerGas.toString(),
          status: 'signed',
          trigger_block: batch.triggerBlock,
          submitted_block: null,
          mined_block: null,
          mined_block_hash: null,
          // Superseded by keeper_transaction_items; kept (empty) until a clean-up migration drops them.
          limit_order_ids: '[]',
          dca_order_ids: '[]',
          lease_owner: owner,
          lease_expires_at: leaseExpiresAt,
          version: 0,
          created_at: nowMs,
          updated_at: nowMs,
        } satisfies KeeperTransactionRow);
        for (const part of chunks(batch.orders.map((o, position) => ({ o, position })))) {
          await db(ITEMS).insert(
            part.map(({ o, position }) => ({ transaction_id: id, kind: o.kind, item_id: o.id, position })),
          );
        }
        const lost: TransactionOrder[] = [];
        const kinds = this.kinds(db);
        const evented = new Map<KeeperOrderKind, string[]>();
        for (const order of batch.orders) {
          const fields = {
            keeperTxId: id,
            txHash: batch.txHash,
            executorAddress: batch.executor,
            allowance: order.fields?.allowance ?? '0',
            estimateGas: order.fields?.estimateGas ?? '0',
            effectivePriceGas: order.fields?.effectivePriceGas ?? '0',
            leaseExpiresAt,
          };
          const ref = { id: order.id, version: order.version };
          const deferred = evented.get(order.kind) ?? [];
          evented.set(order.kind, deferred);
          if (!(await repositoryOf(kinds, order.kind).markSubmitted(ref, owner, fields, nowMs, deferred)))
            lost.push({ kind: order.kind, id: order.id });
        }
        if (lost.length) throw new Rollback({ kind: 'conflict', orders: lost });
        for (const [kind, ids] of evented) await repositoryOf(kinds, kind).recordChanged(ids, nowMs);
        const row: KeeperTransactionRow = await db(TABLE).where({ id }).first();
        return { kind: 'submitted', transaction: (await this.withOrders([row], db))[0]! } as const;
      });
    } catch (err) {
      if (err instanceof Rollback) return err.result;
      throw err;
    }
  }

  /** signed → pending: a node accepted the current raw transaction. */
  async markBroadcast(
    id: string,
    owner: string,
    submittedBlock: number | null,
    nowMs: number,
  ): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id, lease_owner: owner, status: 'signed' })
      .update({ status: 'pending', submitted_block: submittedBlock, ...this.moves.bump(nowMs) });
    return changed > 0;
  }

  /**
   * A fee bump of the same batch and nonce, recorded before it is broadcast: the row goes back to `signed` with
   * the new raw transaction, its hash appended to `tx_hashes`, and the orders' `txHash` follows, in one store
   * transaction.
   */
  async recordReplacement(
    id: string,
    owner: string,
    replacement: Replacement,
    nowMs: number,
  ): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const current: KeeperTransactionRow | undefined = await this.lockOpen(db, id, owner, [
        'signed',
        'pending',
      ]);
      if (!current) return false;
      const hashes = stringArray(current.tx_hashes);
      if (!hashes.includes(replacement.txHash)) hashes.push(replacement.txHash);
      const changed = await db(TABLE)
        .where({ id, version: current.version, lease_owner: owner })
        .whereIn('status', ['signed', 'pending'])
        .update({
          status: 'signed',
          tx_hash: replacement.txHash,
          tx_hashes: JSON.stringify(hashes),
          raw_tx: replacement.rawTx,
          max_fee_per_gas: replacement.maxFeePerGas.toString(),
          max_priority_fee_per_gas: replacement.maxPriorityFeePerGas.toString(),
          ...this.moves.bump(nowMs),
        });
      if (changed === 0) return false;
      for (const repository of this.kinds(db).values())
        await repository.setTxHashOfTransaction(id, replacement.txHash, nowMs);
      return true;
    });
  }

  /**
   * signed | pending → mined, by one of the row's hashes (any replacement may be the one mined): that hash
   * becomes the row's and its orders' `txHash`.
   */
  async markMined(id: string, owner: string, mined: MinedAt, nowMs: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const current = await this.lockOpen(db, id, owner, ['signed', 'pending']);
      if (!current || !stringArray(current.tx_hashes).includes(mined.txHash)) return false;
      const changed = await db(TABLE)
        .where({ id, version: current.version, lease_owner: owner })
        .whereIn('status', ['signed', 'pending'])
        .update({
          status: 'mined',
          tx_hash: mined.txHash,
          mined_block: mined.blockNumber,
          mined_block_hash: mined.blockHash,
          ...this.moves.bump(nowMs),
        });
      if (changed === 0) return false;
      for (const repository of this.kinds(db).values())
        await repository.setTxHashOfTransaction(id, mined.txHash, nowMs);
      return true;
    });
  }

  /** mined → pending: the block that held it is no longer canonical; the tracker follows it again. */
  async markReorged(id: string, owner: string, nowMs: number): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id, lease_owner: owner, status: 'mined' })
      .update({ status: 'pending', mined_block: null, mined_block_hash: null, ...this.moves.bump(nowMs) });
    return changed > 0;
  }

  /**
   * signed | pending → dropped (or replaced), and the orders still in it back to `pending`, in one store
   * transaction. Call only after completing the orders the contract reports executed (recovery rule 6).
   * Returns the orders returned, or undefined when the owner does not hold the row in those statuses.
   */
  async markDropped(
    id: string,
    owner: string,
    status: 'dropped' | 'replaced',
    nowMs: number,
  ): Promise<ReturnedOrders | undefined> {
    return this.moves.atomic(async (db) => {
      const changed = await db(TABLE)
        .where({ id, lease_owner: owner })
        .whereIn('status', ['signed', 'pending'])
        .update({ status, lease_owner: null, lease_expires_at: null, ...this.moves.bump(nowMs) });
      if (changed === 0) return undefined;
      const returned: ReturnedOrders = [];
      for (const [kind, repository] of this.kinds(db)) {
        for (const orderId of await repository.returnOrdersOfTransaction(id, nowMs))
          returned.push({ kind, id: orderId });
      }
      const stranded = await this.ordersStillIn(db, id);
      if (stranded.length)
        throw new Error(`Orders of keeper transaction ${id} were not returned: ${stranded.join(', ')}`);
      return returned;
    });
  }

  /**
   * mined → settled with every order's outcome from the receipt's events, in one store transaction. An outcome
   * for an order already settled is skipped (a repeat after a crash is harmless); an order of the batch left
   * without an outcome rolls the whole settlement back with an error, so no order is stranded in `submitted`.
   */
  async settleBatch(
    id: string,
    owner: string,
    outcomes: readonly OrderOutcome[],
    nowMs: number,
  ): Promise<SettleBatchResult> {
    return this.moves.atomic(async (db) => {
      const current = await this.lockOpen(db, id, owner, ['mined']);
      if (!current) return { kind: 'not-held' } as const;
      const changed = await db(TABLE)
        .where({ id, version: current.version, lease_owner: owner, status: 'mined' })
        .update({ status: 'settled', lease_owner: null, lease_expires_at: null, ...this.moves.bump(nowMs) });
      if (changed === 0) return { kind: 'not-held' } as const;
      const applied: TransactionOrder[] = [];
      const kinds = this.kinds(db);
      const evented = new Map<KeeperOrderKind, string[]>();
      for (const o of outcomes) {
        const repository = repositoryOf(kinds, o.kind);
        const deferred = evented.get(o.kind) ?? [];
        evented.set(o.kind, deferred);
        const written =
          o.outcome === 'executed'
            ? await repository.complete(
                o.id,
                { transactionHash: current.tx_hash, ...o.success },
                nowMs,
                deferred,
              )
            : await repository.fail(
                o.id,
                owner,
                { reason: o.reason, final: o.final, nextAttemptAt: o.nextAttemptAt },
                nowMs,
              );
        // `fail` answers the order written (limit) or true (DCA); nothing when it was not the owner's to fail.
        if (written) applied.push({ kind: o.kind, id: o.id });
      }
      for (const [kind, ids] of evented) await repositoryOf(kinds, kind).recordChanged(ids, nowMs);
      const stranded = await this.ordersStillIn(db, id);
      if (stranded.length) {
        throw new Error(
          `Settlement of keeper transaction ${id} leaves orders without an outcome: ${stranded.join(', ')}`,
        );
      }
      return { kind: 'settled', orders: applied } as const;
    });
  }

  /**
   * Settled rows of a chain mined at or after `fromBlock`, with their block: what the settle stage re-checks for
   * a reorg deeper than the confirmations it waited for.
   */
  async listSettledSince(chainId: number, fromBlock: number, limit = 500): Promise<KeeperTransaction[]> {
    const rows: KeeperTransactionRow[] = await this.knex(TABLE)
      .where({ chain_id: chainId, status: 'settled' })
      .andWhere('mined_block', '>=', fromBlock)
      .orderBy('mined_block', 'asc')
      .limit(limit);
    return this.withOrders(rows);
  }

  /**
   * settled → signed: the block that held a settled batch left the chain after its confirmations. In one store
   * transaction the row is reopened under `owner`'s lease (no block; `signed`: it may or may not be out there now,
   * so its tracker looks, puts it out again if the chain lacks it, and counts replacement waits from then) and what its receipt had made final goes back into it: its `completed` limit orders to
   * `submitted`, its `successful` DCA iterations to `executing` (and their strategy, if that finished it, to
   * `active`). Failures it settled stay as written: a retry already went back to pending, and a final failure
   * (signature, expiry) holds on any chain. Undefined when the row is no longer settled at that block hash.
   */
  async reopenSettled(
    id: string,
    blockHash: string,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<ReturnedOrders | undefined> {
    return this.moves.atomic(async (db) => {
      const until = nowMs + leaseMs;
      const changed = await db(TABLE)
        .where({ id, status: 'settled', mined_block_hash: blockHash })
        .update({
          status: 'signed',
          mined_block: null,
          mined_block_hash: null,
          submitted_block: null,
          lease_owner: owner,
          lease_expires_at: until,
          ...this.moves.bump(nowMs),
        });
      if (changed === 0) return undefined;
      const reopened: ReturnedOrders = [];
      for (const [kind, repository] of this.kinds(db)) {
        for (const orderId of await repository.reopenOrdersOfTransaction(id, owner, until, nowMs))
          reopened.push({ kind, id: orderId });
      }
      return reopened;
    });
  }

  /** Extends the owner's lease on an open row and on the orders in it. */
  async renewLease(id: string, owner: string, leaseMs: number, nowMs: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const until = nowMs + leaseMs;
      const changed = await db(TABLE)
        .where({ id, lease_owner: owner })
        .whereIn('status', [...OPEN_KEEPER_TRANSACTION_STATUSES])
        .update({ lease_expires_at: until, ...this.moves.bump(nowMs) });
      if (changed === 0) return false;
      await this.leaseOrders(db, id, owner, until, nowMs);
      return true;
    });
  }

  /**
   * Open rows whose tracker's lease expired (a crashed or stalled keeper) pass to `owner` with their orders;
   * SKIP LOCKED on MySQL so two keepers taking over at once split them. The new tracker resumes each from its
   * status (recovery rules 3 to 7). Rows `owner` holds already are not taken over even when their lease ran out
   * (it could not renew it while the store was unreachable): its tracker follows them still and renews the lease,
   * and must not count their wallets busy a second time.
   */
  async takeOverExpired(
    owner: string,
    leaseMs: number,
    nowMs: number,
    chainId?: number,
  ): Promise<KeeperTransaction[]> {
    return this.moves.atomic(async (db) => {
      const filter = (q: Knex.QueryBuilder): Knex.QueryBuilder => {
        q.whereIn('status', [...OPEN_KEEPER_TRANSACTION_STATUSES])
          .andWhere('lease_expires_at', '<', nowMs)
          .andWhere((mine) => mine.whereNot('lease_owner', owner).orWhereNull('lease_owner'));
        if (chainId !== undefined) q.andWhere('chain_id', chainId);
        return q.orderBy('nonce', 'asc').limit(SWEEP_LIMIT);
      };
      const until = nowMs + leaseMs;
      const rows = await this.moves.moveReturning(
        db,
        filter,
        { lease_owner: owner, lease_expires_at: until },
        nowMs,
        'sweep',
      );
      for (const row of rows) await this.leaseOrders(db, row.id, owner, until, nowMs);
      return (await this.withOrders(rows, db)).sort((a, b) => a.nonce - b.nonce);
    });
  }

  private async leaseOrders(db: Db, id: string, owner: string, until: number, nowMs: number): Promise<void> {
    for (const repository of this.kinds(db).values())
      await repository.leaseOrdersOfTransaction(id, owner, until, nowMs);
  }

  /** Ids of orders still carried by the row (each kind's in-transaction status). */
  private async ordersStillIn(db: Db, id: string): Promise<string[]> {
    const open: string[] = [];
    for (const repository of this.kinds(db).values()) open.push(...(await repository.openInTransaction(id)));
    return open;
  }

  /**
   * Locks the row and reads it, if the owner holds it in one of the statuses. MySQL: a locking read. SQLite: a
   * write that changes nothing comes first, because a transaction that reads before its first write fails with
   * SQLITE_BUSY when another connection wrote in between; after a write it holds the database's write lock.
   */
  private async lockOpen(
    db: Db,
    id: string,
    owner: string,
    statuses: KeeperTransactionStatus[],
  ): Promise<KeeperTransactionRow | undefined> {
    if (this.dialect === 'sqlite') {
      await db(TABLE)
        .where({ id })
        .update({ version: db.raw('version') });
    }
    const query = db(TABLE).where({ id, lease_owner: owner }).whereIn('status', statuses);
    if (this.dialect === 'mysql') query.forUpdate();
    return query.first();
  }
}
