import type { LeaseHolder } from './lease-holder';

/** The kinds of order the keeper executes through OrderExecutor batches. */
export type KeeperOrderKind = 'limit' | 'dca';

export const KEEPER_ORDER_KINDS: readonly KeeperOrderKind[] = ['limit', 'dca'];

/** An order as the keeper selected it: claiming by version refuses one that changed since. */
export interface KeeperOrderRef {
  id: string;
  version: number;
}

/** What the plan stage measured for an order, reported on it where its kind keeps such fields. */
export interface ExecutionFields {
  allowance: string;
  estimateGas: string;
  effectivePriceGas: string;
}

/** The store transaction that records a batch ties each of its orders to it (executing → in the transaction). */
export interface SubmittedFields extends ExecutionFields {
  keeperTxId: string;
  txHash: string;
  executorAddress: string;
  /** The tracker's lease on the order while its transaction is open. */
  leaseExpiresAt: number;
}

export interface FailOptions {
  /** A reason of the failure table (keeper/plan/failure-kinds.ts). */
  reason: string;
  /** Final: the kind's failed status with the reason. Otherwise back to `pending` for another attempt. */
  final: boolean;
  /** When a retried order may be claimed again (default: at once). */
  nextAttemptAt?: number;
  fields?: Partial<ExecutionFields>;
}

/** What the contract's OrderExecuted event says, in the terms the order's kind reports. */
export interface OrderSuccess {
  transactionHash: string;
  /** Output in whole tokens (a JSON number where the spec shows one); kinds that do not report it ignore it. */
  amountReceived?: number;
  /** Output per input, in whole tokens; likewise. */
  executionPrice?: number;
}

/**
 * The keeper's moves on one kind of order, under the same names for every kind (limit orders, DCA iterations, and
 * whatever kind comes next), so the keeper's stages never ask which kind they hold. Every move is guarded by the
 * state it starts from and by the lease owner where the keeper holds the order; see each repository for its
 * state machine.
 *
 * `Found` is the order as `findById` reads it, `Claimed` as a claim returns it (with whatever the kind needs to
 * execute it), `FailResult` what `fail` answers (truthy when the failure was written).
 */
export interface KeeperOrderRepository<
  Found extends { attemptNumber: number },
  Claimed,
  FailResult,
> extends LeaseHolder {
  readonly kind: KeeperOrderKind;
  /** Open orders per chain and status: the keeper's gauge. */
  countOpen(): Promise<{ chainId: number; status: string; count: number }[]>;
  findById(id: string): Promise<Found | undefined>;
  /** The orders of these ids that exist, in no particular order (a settled batch's orders, read at once). */
  findByIds(ids: readonly string[]): Promise<Found[]>;
  /**
   * pending (claimable) → executing under the owner's lease, by id, whatever their version. An order claimed for the
   * first time gets its execution index (OrderExecutor's bitmap bit) in the same store transaction: consecutive for
   * the claim's orders, unique across every kind, never changed afterwards.
   */
  claim(ids: readonly string[], owner: string, leaseMs: number, nowMs: number): Promise<Claimed[]>;
  /** As `claim`, only for orders still at the version the keeper selected them at. */
  claimVersioned(
    refs: readonly KeeperOrderRef[],
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<Claimed[]>;
  /** Unsent claims whose lease ran out go back to pending; returns their ids. */
  reclaimExpiredLeases(nowMs: number): Promise<string[]>;
  /** Unsent claims of `owner` go back to pending at once (a restart under the same KEEPER_ID). */
  releaseLeasesOf(owner: string, nowMs: number): Promise<string[]>;
  /** Orders inside a transaction whose tracker stopped renewing its lease. */
  listTrackedWithExpiredLease(nowMs: number, limit?: number): Promise<Found[]>;
  /**
   * executing → in the transaction `fields.keeperTxId`, for the owner and version claimed (see submitBatch). With
   * `deferredEvents`, an order whose change is evented is pushed there instead of having its event recorded: the
   * caller records the whole list with `recordChanged` in the same store transaction (a batch of hundreds of orders
   * then writes its events in a few statements, not several per order).
   */
  markSubmitted(
    ref: KeeperOrderRef,
    owner: string,
    fields: SubmittedFields,
    nowMs: number,
    deferredEvents?: string[],
  ): Promise<boolean>;
  /** Records the events of changes written with `deferredEvents`. */
  recordChanged(ids: readonly string[], nowMs: number): Promise<void>;
  /** The tracker's lease moves with its transaction's (renewal or take-over). */
  leaseOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<number>;
  /** The transaction is gone and the contract shows these orders not executed: back to pending. */
  returnOrdersOfTransaction(keeperTxId: string, nowMs: number): Promise<string[]>;
  /** The kind's executed orders of a transaction reopened after a reorg wait on it again, under `owner`'s lease. */
  reopenOrdersOfTransaction(
    keeperTxId: string,
    owner: string,
    leaseExpiresAt: number,
    nowMs: number,
  ): Promise<string[]>;
  /** Ids of the orders the transaction still carries (not settled): a settlement must leave none. */
  openInTransaction(keeperTxId: string): Promise<string[]>;
  /** The transaction's current hash, on the orders of kinds that show one while in flight (0 rows otherwise). */
  setTxHashOfTransaction(keeperTxId: string, txHash: string, nowMs: number): Promise<number>;
  /** → the kind's executed status, from the contract's OrderExecuted event (final, whoever holds the lease). */
  complete(id: string, success: OrderSuccess, nowMs: number, deferredEvents?: string[]): Promise<boolean>;
  /** An attempt failed for an order the owner holds: final, or back to pending after a back-off. */
  fail(id: string, owner: string, options: FailOptions, nowMs: number): Promise<FailResult>;
  /** executing → pending without counting an attempt, for the owner, never once in a transaction. */
  releaseLease(id: string, owner: string, nowMs: number, nextAttemptAt?: number): Promise<boolean>;
}

/** Any kind's repository, as the keeper's stages hold it. */
export type AnyKeeperOrderRepository = KeeperOrderRepository<{ attemptNumber: number }, unknown, unknown>;
