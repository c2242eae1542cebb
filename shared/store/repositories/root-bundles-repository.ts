import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { TRANSFER_EVENTS } from '../../events/transfer-events';
import { isDuplicateKeyError, type Dialect } from '../create-knex';
import { KeeperRowMoves } from './keeper-row-moves';
import { errorText, nullableNumber } from './transfer-rows';

/** One relayer-refund leaf as proposed (Across's RelayerRefundLeaf; amounts as decimal strings) with its proof. */
export interface StoredLeaf {
  leafId: number;
  chainId: number;
  amountToReturn: string;
  l2TokenAddress: string;
  refundAddresses: string[];
  refundAmounts: string[];
  proof: string[];
}

/** A transaction of the bridge admin, recorded after signing and before the broadcast. */
export interface SignedAdminTx {
  txHash: string;
  rawTx: string;
  nonce: number;
  sender: string;
}

export interface LeafTx extends SignedAdminTx {
  executed: boolean;
}

/** planned (relayRootBundle not yet mined) → relayed (rootBundleId known) → executed (every leaf executed). */
export type RootBundleState = 'planned' | 'relayed' | 'executed';

export interface RootBundle {
  id: string;
  chainId: number;
  spokePool: string;
  root: string;
  leaves: StoredLeaf[];
  state: RootBundleState;
  /** The SpokePool's id of the bundle, from its RelayedRootBundle event. */
  rootBundleId: number | null;
  relayTx: SignedAdminTx | null;
  /** By leafId. */
  leafTxs: Record<number, LeafTx>;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  lastError: string | null;
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** Which transfer a leaf pays: the repayment of our fill, or the refund of an expired deposit. */
export interface LeafAssignment {
  transferId: string;
  kind: 'repayment' | 'refund';
  leafId: number;
}

export interface BundlePlan {
  chainId: number;
  spokePool: string;
  root: string;
  leaves: StoredLeaf[];
  assignments: LeafAssignment[];
}

type Numeric = number | string;

interface RootBundleRow {
  id: string;
  chain_id: Numeric;
  open_chain_id: Numeric | null;
  spoke_pool: string;
  relayer_refund_root: string;
  leaves: string;
  state: string;
  root_bundle_id: Numeric | null;
  relay_tx_hash: string | null;
  relay_raw_tx: string | null;
  relay_nonce: Numeric | null;
  sender: string | null;
  leaf_txs: string;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  last_error: string | null;
  version: Numeric;
  created_at: Numeric;
  updated_at: Numeric;
}

const TABLE = 'cross_chain_root_bundles';
const TRANSFERS = 'cross_chain_transfers';
/** A read-modify-write of the leaf transactions retried this often before giving up for this tick. */
const WRITE_ATTEMPTS = 5;

function fromRow(row: RootBundleRow): RootBundle {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    spokePool: row.spoke_pool,
    root: row.relayer_refund_root,
    leaves: JSON.parse(row.leaves) as StoredLeaf[],
    state: row.state as RootBundleState,
    rootBundleId: nullableNumber(row.root_bundle_id),
    relayTx:
      row.relay_tx_hash && row.relay_raw_tx && row.sender && row.relay_nonce !== null
        ? {
            txHash: row.relay_tx_hash,
            rawTx: row.relay_raw_tx,
            nonce: Number(row.relay_nonce),
            sender: row.sender,
          }
        : null,
    leafTxs: JSON.parse(row.leaf_txs) as Record<number, LeafTx>,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: nullableNumber(row.lease_expires_at),
    lastError: row.last_error,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Thrown inside a store transaction to roll it back; never leaves this module. */
class Rollback extends Error {}

/**
 * The root bundles the keeper proposes to a chain's SpokePool as its HubPool would (`cross_chain_root_bundles`):
 * the plan (root, leaves, proofs, which transfer each leaf pays) is stored before `relayRootBundle` is sent, and
 * every transaction is recorded after signing and before its broadcast, so a keeper killed anywhere finds what it
 * sent and checks the chain before sending again. At most one bundle per chain is open at a time (a unique index on
 * `open_chain_id`), and its keeper holds it under a lease; a transfer joins one bundle per kind, ever.
 */
export class RootBundlesRepository {
  private readonly moves: KeeperRowMoves<RootBundleRow>;
  /** The transfers a bundle settles: their repaid / refunded moves send their `transfer.updated` events. */
  private readonly transferMoves: KeeperRowMoves<unknown>;

  constructor(
    private readonly knex: Knex,
    dialect: Dialect,
  ) {
    this.moves = new KeeperRowMoves(knex, dialect, TABLE);
    this.transferMoves = new KeeperRowMoves(knex, dialect, TRANSFERS, TRANSFER_EVENTS);
  }

  async findById(id: string): Promise<RootBundle | undefined> {
    const row: RootBundleRow | undefined = await this.knex(TABLE).where({ id }).first();
    return row ? fromRow(row) : undefined;
  }

  /** The chain's open bundle (planned or relayed), if any. */
  async findOpen(chainId: number): Promise<RootBundle | undefined> {
    const row: RootBundleRow | undefined = await this.knex(TABLE).where({ open_chain_id: chainId }).first();
    return row ? fromRow(row) : undefined;
  }

  /**
   * Stores a plan under `owner`'s lease and ties each transfer to its leaf, in one store transaction: nothing is
   * written when the chain already has an open bundle or a transfer is no longer in the state its leaf assumes
   * (filled without a repayment, expired without a refund). Resolves the bundle, or undefined then.
   */
  async create(
    plan: BundlePlan,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<RootBundle | undefined> {
    const id = randomUUID();
    try {
      await this.moves.atomic(async (db) => {
        await db(TABLE).insert({
          id,
          chain_id: plan.chainId,
          open_chain_id: plan.chainId,
          spoke_pool: plan.spokePool,
          relayer_refund_root: plan.root,
          leaves: JSON.stringify(plan.leaves),
          state: 'planned',
          root_bundle_id: null,
          relay_tx_hash: null,
          relay_raw_tx: null,
          relay_nonce: null,
          sender: null,
          leaf_txs: '{}',
          lease_owner: owner,
          lease_expires_at: nowMs + leaseMs,
          last_error: null,
          version: 0,
          created_at: nowMs,
          updated_at: nowMs,
        } satisfies RootBundleRow);
        for (const a of plan.assignments) {
          const [status, column, leafColumn] =
            a.kind === 'repayment'
              ? ['filled', 'repayment_bundle_row', 'repayment_leaf_id']
              : ['expired', 'refund_bundle_row', 'refund_leaf_id'];
          const changed = await db(TRANSFERS)
            .where({ id: a.transferId, status, provider: 'intent', origin_chain_id: plan.chainId })
            .whereNull(column)
            .update({
              [column]: id,
              [leafColumn]: a.leafId,
              version: db.raw('version + 1'),
              updated_at: nowMs,
            });
          if (changed === 0) throw new Rollback();
        }
      });
    } catch (err) {
      if (err instanceof Rollback || isDuplicateKeyError(err)) return undefined;
      throw err;
    }
    return this.findById(id);
  }

  /** Takes the bundle's lease when it is free, expired or already `owner`'s. */
  async claim(id: string, owner: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id })
      .whereNotNull('open_chain_id')
      .andWhere((q) =>
        q.whereNull('lease_owner').orWhere('lease_owner', owner).orWhere('lease_expires_at', '<', nowMs),
      )
      .update({ lease_owner: owner, lease_expires_at: nowMs + leaseMs, ...this.moves.bump(nowMs) });
    return changed > 0;
  }

  /** Records the signed relayRootBundle before its broadcast; false: not held, or already recorded. */
  async recordRelayTx(id: string, owner: string, tx: SignedAdminTx, nowMs: number): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id, lease_owner: owner, state: 'planned' })
      .whereNull('relay_tx_hash')
      .update({
        relay_tx_hash: tx.txHash,
        relay_raw_tx: tx.rawTx,
        relay_nonce: tx.nonce,
        sender: tx.sender,
        ...this.moves.bump(nowMs),
      });
    return changed > 0;
  }

  /** The recorded relayRootBundle never made it (dropped, or refused): a new one may be signed. */
  async clearRelayTx(id: string, owner: string, error: string, nowMs: number): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id, lease_owner: owner, state: 'planned' })
      .update({
        relay_tx_hash: null,
        relay_raw_tx: null,
        relay_nonce: null,
        last_error: errorText(error),
        ...this.moves.bump(nowMs),
      });
    return changed > 0;
  }

  /**
   * planned → relayed with the SpokePool's rootBundleId, copied to the transfers the bundle pays (the api reads
   * (rootBundleId, leafId) from them).
   */
  async markRelayed(id: string, rootBundleId: number, nowMs: number): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await db(TABLE)
        .where({ id, state: 'planned' })
        .update({ state: 'relayed', root_bundle_id: rootBundleId, ...this.moves.bump(nowMs) });
      if (changed === 0) return false;
      const bump = { version: db.raw('version + 1'), updated_at: nowMs };
      await db(TRANSFERS)
        .where({ repayment_bundle_row: id })
        .update({ repayment_bundle_id: rootBundleId, ...bump });
      await db(TRANSFERS)
        .where({ refund_bundle_row: id })
        .update({ refund_bundle_id: rootBundleId, ...bump });
      return true;
    });
  }

  /** Records a signed executeRelayerRefundLeaf before its broadcast; false when not held or one is recorded. */
  recordLeafTx(
    id: string,
    owner: string,
    leafId: number,
    tx: SignedAdminTx,
    nowMs: number,
  ): Promise<boolean> {
    return this.updateLeafTxs(id, owner, nowMs, (txs) => {
      if (txs[leafId]) return undefined;
      return { ...txs, [leafId]: { ...tx, executed: false } };
    });
  }

  /** The recorded leaf transaction never made it: a new one may be signed. */
  clearLeafTx(id: string, owner: string, leafId: number, nowMs: number): Promise<boolean> {
    return this.updateLeafTxs(id, owner, nowMs, (txs) => {
      if (!txs[leafId] || txs[leafId].executed) return undefined;
      const rest = { ...txs };
      delete rest[leafId];
      return rest;
    });
  }

  /**
   * A leaf is executed on the SpokePool (its ExecutedRelayerRefundRoot event, by `txHash`): its transfers become
   * repaid / refunded with the transaction, and the bundle closes once every leaf is executed. Idempotent.
   */
  async markLeafExecuted(
    id: string,
    leafId: number,
    txHash: string,
    nowMs: number,
  ): Promise<{ repaid: number; refunded: number }> {
    const counts = await this.transferMoves.atomic(async (db) => {
      const bump = { version: db.raw('version + 1'), updated_at: nowMs };
      const repayments = { repayment_bundle_row: id, repayment_leaf_id: leafId };
      const refunds = { refund_bundle_row: id, refund_leaf_id: leafId };
      const repaid = await db(TRANSFERS)
        .where({ ...repayments, status: 'filled' })
        .update({ status: 'repaid', repayment_tx_hash: txHash, ...bump });
      const refunded = await db(TRANSFERS)
        .where({ ...refunds, status: 'expired' })
        .update({ status: 'refunded', refund_tx_hash: txHash, ...bump });
      // The leaf's transfers as this transaction left them: those whose status now shows otherwise send an event.
      const settled: Array<{ id: string }> = await db(TRANSFERS)
        .select('id')
        .where((q) =>
          q
            .where({ ...repayments, status: 'repaid', repayment_tx_hash: txHash })
            .orWhere((r) => r.where({ ...refunds, status: 'refunded', refund_tx_hash: txHash })),
        );
      await this.transferMoves.recordChanged(
        db,
        settled.map((row) => row.id),
        nowMs,
      );
      return { repaid, refunded };
    });
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const row: RootBundleRow | undefined = await this.knex(TABLE).where({ id }).first();
      if (!row) return counts;
      const bundle = fromRow(row);
      const previous = bundle.leafTxs[leafId];
      if (previous?.executed && previous.txHash === txHash && bundle.state === 'executed') return counts;
      const txs = {
        ...bundle.leafTxs,
        [leafId]: { ...(previous ?? { rawTx: '', nonce: -1, sender: '' }), txHash, executed: true },
      };
      const done = bundle.leaves.every((leaf) => txs[leaf.leafId]?.executed);
      const changed = await this.knex(TABLE)
        .where({ id, version: bundle.version })
        .update({
          leaf_txs: JSON.stringify(txs),
          ...(done ? { state: 'executed', open_chain_id: null, ...this.moves.noLease() } : {}),
          ...this.moves.bump(nowMs),
        });
      if (changed > 0) return counts;
    }
    throw new Error(`root bundle ${id} kept changing while leaf ${leafId} was being marked executed`);
  }

  async setError(id: string, error: string, nowMs: number): Promise<void> {
    await this.knex(TABLE)
      .where({ id })
      .update({ last_error: errorText(error), ...this.moves.bump(nowMs) });
  }

  private async updateLeafTxs(
    id: string,
    owner: string,
    nowMs: number,
    change: (txs: Record<number, LeafTx>) => Record<number, LeafTx> | undefined,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const row: RootBundleRow | undefined = await this.knex(TABLE)
        .where({ id, lease_owner: owner, state: 'relayed' })
        .first();
      if (!row) return false;
      const next = change(fromRow(row).leafTxs);
      if (!next) return false;
      const changed = await this.knex(TABLE)
        .where({ id, version: row.version, lease_owner: owner })
        .update({ leaf_txs: JSON.stringify(next), ...this.moves.bump(nowMs) });
      if (changed > 0) return true;
    }
    return false;
  }
}
