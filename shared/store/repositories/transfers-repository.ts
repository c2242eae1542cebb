import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { TRANSFER_EVENTS } from '../../events/transfer-events';
import type { LeaseHolder } from './lease-holder';
import { isDuplicateKeyError, type Dialect } from '../create-knex';
import { KeeperRowMoves, type Db } from './keeper-row-moves';
import {
  DONE_STATUS,
  INITIAL_STATUS,
  IN_FLIGHT_STATUS,
  NO_FILL_TX,
  buildFromRow,
  depositColumns,
  errorText,
  linkColumns,
  transferFromRow,
  type DepositLink,
  type NewTransfer,
  type NewTransferBuild,
  type Transfer,
  type TransferBuild,
  type TransferBuildRow,
  type TransferProvider,
  type TransferRow,
  type TransferStatus,
} from './transfer-rows';

export * from './transfer-rows';

const TABLE = 'cross_chain_transfers';
const CURSORS = 'cross_chain_cursors';
const BUILDS = 'transfer_builds';
/** Builds are matched for this long: far past their calldata's deadline, for a keeper that indexes late. */
const BUILD_RETENTION_MS = 7 * 24 * 3_600_000;
/** Old builds are dropped once every this many builds recorded by a process. */
const BUILD_PRUNE_EVERY = 256;
/** Builds of one account and calldata looked at, at most (two keys already make it nobody's). */
const BUILDS_PER_MATCH = 100;
/** Rows a sweep looks at per call; the next tick takes the rest. */
const SWEEP_LIMIT = 100;
/** States in which a transfer's output has left (or is leaving) the relayer's or the bridge's hands. */
const PAID_OUT_STATUSES: readonly TransferStatus[] = [
  'filling',
  'filled',
  'repaid',
  'releasing',
  'release_queued',
  'released',
];

/**
 * Cross-chain transfers (`cross_chain_transfers`), one row per deposit, unique per (provider, origin chain,
 * deposit id), and the keeper's scan cursors (`cross_chain_cursors`). The keeper's moves, each one conditional
 * statement that writes only where the row still is in the state the move starts from (and, while the keeper holds
 * it, under the lease owner), bumping `version` and `updated_at`:
 *
 *   intent:        deposited ─claim─> filling ─markFilled─> filled ─(bundle)─> repaid
 *                     ^   │             │  └─markFilledByOther─> filled_by_other
 *                     │   │             └─releaseLease (revert, dropped: retry with back-off)─> deposited
 *                     │   └─markExpired─> expired ─(bundle)─> refunded
 *   lock-release:  locked ─claim─> releasing ─markFilled─> released
 *   both:          initial ─markReorged─> reorged ─upsertDeposit (found again)─> initial
 *
 * The destination transaction's hash, raw bytes and nonce are written (`markSubmitted`) after signing and BEFORE
 * the broadcast, so a keeper killed in between leaves something to follow rather than a fill nobody knows of. A
 * claim's lease covers signing and following that transaction; a row whose lease ran out goes back to its initial
 * state if nothing was signed (`reclaimExpiredLeases`), or is handed to a live keeper that follows the signed
 * transaction (`takeOverExpired`). So keepers sharing the store never send two fills for one deposit: only the
 * row's lease owner signs, and a new owner never signs while a signed transaction is unresolved.
 *
 * Settlement columns (repayment / refund) are written by the root bundles repository.
 *
 * Events: a transfer linked to the key whose POST /swap built its source transaction (`api_key`, see
 * shared/bridges/transfer-builds.ts) sends `transfer.updated` (shared/events/transfer-events.ts) from each move that
 * changes what its status shows, written in the move's store transaction.
 */
export class TransfersRepository implements LeaseHolder {
  private readonly moves: KeeperRowMoves<TransferRow>;
  private buildsRecorded = 0;

  constructor(
    private readonly knex: Knex,
    dialect: Dialect,
  ) {
    this.moves = new KeeperRowMoves(knex, dialect, TABLE, TRANSFER_EVENTS);
  }

  /** One conditional write of one row and its events, in one store transaction; resolves whether it wrote. */
  private writeOne(id: string, nowMs: number, write: (db: Db) => Promise<number>): Promise<boolean> {
    return this.moves.atomic(async (db) => {
      const changed = await write(db);
      if (changed > 0) await this.moves.recordChanged(db, [id], nowMs);
      return changed > 0;
    });
  }

  /** Set on the first keeper move of a deposit with its origin confirmations (a postponement or a claim). */
  private confirmedAt(db: Db, nowMs: number): Knex.Raw {
    return db.raw('coalesce(confirmed_at, ?)', [nowMs]);
  }

  /**
   * Stores a deposit read from the origin chain, linked to the build that made it (`link`, from the indexer) or to
   * none. A new one is inserted in its initial state. One already known is rewritten only while nothing was done
   * with it (initial or reorged): a re-read after a reorg may carry another block, or, as deposit ids are a counter,
   * another deposit under the same id, and its link is the new transaction's. Resolves what happened.
   */
  async upsertDeposit(
    deposit: NewTransfer,
    nowMs: number,
    link: DepositLink | null = null,
  ): Promise<'inserted' | 'updated' | 'unchanged'> {
    const initial = INITIAL_STATUS[deposit.provider];
    const id = randomUUID();
    try {
      await this.moves.atomic(async (db) => {
        await db(TABLE).insert({
          id,
          provider: deposit.provider,
          origin_chain_id: deposit.originChainId,
          deposit_id: deposit.depositId,
          ...depositColumns(deposit),
          ...linkColumns(link),
          confirmed_at: null,
          status: initial,
          ...NO_FILL_TX,
          fill_block_number: null,
          fill_block_hash: null,
          filled_by: null,
          lease_owner: null,
          lease_expires_at: null,
          attempts: 0,
          next_attempt_at: 0,
          last_error: null,
          version: 0,
          created_at: nowMs,
          updated_at: nowMs,
        });
        await this.moves.recordChanged(db, [id], nowMs);
      });
      return 'inserted';
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const key = {
      provider: deposit.provider,
      origin_chain_id: deposit.originChainId,
      origin_contract: deposit.originContract.toLowerCase(),
      deposit_id: deposit.depositId,
    };
    return this.moves.atomic(async (db) => {
      const existing: Pick<TransferRow, 'id' | 'api_key'> | undefined = await db(TABLE)
        .select('id', 'api_key')
        .where(key)
        .first();
      if (!existing) return 'unchanged';
      const relinked = (existing.api_key ?? null) !== (link?.apiKey ?? null);
      const changed = await db(TABLE)
        .where({ id: existing.id })
        .whereIn('status', [initial, 'reorged'])
        .andWhere((q) =>
          q
            .where('status', 'reorged')
            .orWhereNot('deposit_block_hash', deposit.depositBlockHash)
            .orWhereNot('deposit_tx_hash', deposit.depositTxHash)
            .orWhereNot('deposit_log_index', deposit.depositLogIndex),
        )
        .update({
          ...depositColumns(deposit),
          ...linkColumns(link),
          // Another key's transfer now: its first event is sent whatever the last one to the other key said.
          ...(relinked ? { event_key: null } : {}),
          confirmed_at: null,
          status: initial,
          next_attempt_at: 0,
          ...this.moves.bump(nowMs),
        });
      if (changed === 0) return 'unchanged';
      await this.moves.recordChanged(db, [existing.id], nowMs);
      return 'updated';
    });
  }

  /**
   * Records a cross-chain swap POST /swap built for our bridges, so that the deposit its calldata makes is linked to
   * the key (shared/bridges/transfer-builds.ts). Builds past their retention are dropped now and then.
   */
  async recordBuild(build: NewTransferBuild, nowMs: number): Promise<string> {
    const id = randomUUID();
    await this.knex(BUILDS).insert({
      id,
      api_key: build.apiKey,
      provider: build.provider,
      origin_chain_id: build.originChainId,
      destination_chain_id: build.destinationChainId,
      account: build.account.toLowerCase(),
      entry: build.entry.toLowerCase(),
      calldata_hash: build.calldataHash.toLowerCase(),
      value: build.value.toString(),
      source_amount: build.source.amount,
      source_token: build.source.token,
      delivered_token: build.source.deliveredToken,
      created_at: nowMs,
    } satisfies TransferBuildRow);
    this.buildsRecorded += 1;
    if (this.buildsRecorded % BUILD_PRUNE_EVERY === 1) await this.pruneBuilds(nowMs - BUILD_RETENTION_MS);
    return id;
  }

  /** Drops builds recorded before `beforeMs`; resolves how many. */
  pruneBuilds(beforeMs: number): Promise<number> {
    return this.knex(BUILDS).where('created_at', '<', beforeMs).delete();
  }

  /** Whether an account has builds on a chain (the indexer reads a deposit's transaction only then). */
  async hasBuilds(originChainId: number, account: string): Promise<boolean> {
    const row = await this.knex(BUILDS)
      .select('id')
      .where({ origin_chain_id: originChainId, account: account.toLowerCase() })
      .first();
    return row !== undefined;
  }

  /** The builds of an account on a chain with this calldata, oldest first. */
  async buildsOf(originChainId: number, account: string, calldataHash: string): Promise<TransferBuild[]> {
    const rows: TransferBuildRow[] = await this.knex(BUILDS)
      .where({
        origin_chain_id: originChainId,
        account: account.toLowerCase(),
        calldata_hash: calldataHash.toLowerCase(),
      })
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(BUILDS_PER_MATCH);
    return rows.map(buildFromRow);
  }

  async findById(id: string): Promise<Transfer | undefined> {
    const row: TransferRow | undefined = await this.knex(TABLE).where({ id }).first();
    return row ? transferFromRow(row) : undefined;
  }

  /** The transfer of one deposit (the api's status reads it for the destination tx and the refund). */
  async findByDeposit(
    provider: TransferProvider,
    originChainId: number,
    depositId: string,
    originContract?: string,
  ): Promise<Transfer | undefined> {
    const row: TransferRow | undefined = await this.knex(TABLE)
      .where({ provider, origin_chain_id: originChainId, deposit_id: depositId })
      .modify((q) => {
        if (originContract) void q.where('origin_contract', originContract.toLowerCase());
      })
      .orderBy('created_at', 'desc')
      .first();
    return row ? transferFromRow(row) : undefined;
  }

  /** The transfers a source transaction made, in log order. */
  async listByDepositTx(originChainId: number, txHash: string): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ origin_chain_id: originChainId })
      .andWhere('deposit_tx_hash', txHash)
      .orderBy('deposit_log_index', 'asc');
    return rows.map(transferFromRow);
  }

  /**
   * Transfers waiting for the keeper on a destination chain: initial state, due, the longest due first (then the
   * oldest deposit), so that rows put off (a stranger's junk, a transfer that cannot go yet) never hold the page
   * against newer ones. A page: the keeper's work per tick is bounded.
   */
  async listWaiting(
    provider: TransferProvider,
    destinationChainId: number,
    nowMs: number,
    limit: number,
  ): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider, destination_chain_id: destinationChainId, status: INITIAL_STATUS[provider] })
      .andWhere('next_attempt_at', '<=', nowMs)
      .orderBy('next_attempt_at', 'asc')
      .orderBy('deposit_block_number', 'asc')
      .orderBy('deposit_log_index', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /** Transfers of a destination chain in flight (filling / releasing) under `owner`'s lease. */
  async listInFlight(
    provider: TransferProvider,
    destinationChainId: number,
    owner: string,
  ): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({
        provider,
        destination_chain_id: destinationChainId,
        status: IN_FLIGHT_STATUS[provider],
        lease_owner: owner,
      })
      .orderBy('updated_at', 'asc');
    return rows.map(transferFromRow);
  }

  /** Transfers from an origin chain in the given states, oldest first (settlement reads filled and expired ones). */
  async listByOrigin(
    provider: TransferProvider,
    originChainId: number,
    statuses: readonly TransferStatus[],
    limit: number,
    filter: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q,
  ): Promise<Transfer[]> {
    const rows: TransferRow[] = await filter(
      this.knex(TABLE)
        .where({ provider, origin_chain_id: originChainId })
        .whereIn('status', [...statuses]),
    )
      .orderBy('deposit_block_number', 'asc')
      .orderBy('deposit_log_index', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /**
   * Intent deposits of an origin still unfilled whose fill deadline (chain seconds) is before `beforeSeconds`,
   * earliest deadline first.
   */
  async listPastDeadline(originChainId: number, beforeSeconds: number, limit: number): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider: 'intent', origin_chain_id: originChainId, status: 'deposited' })
      .andWhere('fill_deadline', '<', beforeSeconds)
      .orderBy('fill_deadline', 'asc')
      .orderBy('id', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /** Intent transfers of an origin that need settling: our fills not yet repaid, expired deposits not refunded. */
  async listToSettle(originChainId: number, limit: number): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider: 'intent', origin_chain_id: originChainId })
      .andWhere((q) =>
        q
          .where((f) => f.where('status', 'filled').whereNull('repayment_bundle_row'))
          .orWhere((e) => e.where('status', 'expired').whereNull('refund_bundle_row')),
      )
      .orderBy('deposit_block_number', 'asc')
      .orderBy('deposit_log_index', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /** Open transfers towards a recipient on a destination (the rebalancer's inventory on its way). */
  async listOpenTo(
    provider: TransferProvider,
    destinationChainId: number,
    recipient: string,
  ): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider, destination_chain_id: destinationChainId })
      .whereIn('status', [INITIAL_STATUS[provider], IN_FLIGHT_STATUS[provider]])
      .andWhereRaw('lower(recipient) = ?', [recipient.toLowerCase()]);
    return rows.map(transferFromRow);
  }

  /**
   * What was paid out of one token on a destination chain since `sinceMs`: the output amounts (base units) of the
   * transfers of either provider whose destination transaction was sent then or later and is in flight or done.
   * Summed here as exact integers: the column is a decimal string, which SQL would sum as a float.
   */
  async sumOutputSentSince(destinationChainId: number, token: string, sinceMs: number): Promise<bigint> {
    const address = token.toLowerCase();
    // Intents store the token as bytes32, locks as an address.
    const forms = [address, `0x${'0'.repeat(24)}${address.slice(2)}`];
    const rows: { output_amount: string }[] = await this.knex(TABLE)
      .where({ destination_chain_id: destinationChainId })
      .whereIn('status', [...PAID_OUT_STATUSES])
      .andWhere('fill_sent_at', '>=', sinceMs)
      .andWhereRaw('lower(output_token) in (?, ?)', forms)
      .select('output_amount');
    return rows.reduce((sum, r) => sum + BigInt(r.output_amount), 0n);
  }

  /**
   * What releases of `token` on a destination chain are about to pay out of its bridge: sent (releasing) or waiting
   * the bridge's delay (release_queued), so still in the bridge's balance.
   */
  async sumReleasesOutstanding(destinationChainId: number, token: string): Promise<bigint> {
    const rows: { output_amount: string }[] = await this.knex(TABLE)
      .where({ provider: 'lock-release', destination_chain_id: destinationChainId })
      .whereIn('status', ['releasing', 'release_queued'])
      .andWhereRaw('lower(output_token) = ?', [token.toLowerCase()])
      .select('output_amount');
    return rows.reduce((sum, r) => sum + BigInt(r.output_amount), 0n);
  }

  /** Transfers per provider and status: the keeper's gauge. */
  async countByStatus(): Promise<{ provider: TransferProvider; status: TransferStatus; count: number }[]> {
    const rows: { provider: string; status: string; count: number | string }[] = await this.knex(TABLE)
      .select('provider', 'status')
      .count({ count: '*' })
      .groupBy('provider', 'status');
    return rows.map((r) => ({
      provider: r.provider as TransferProvider,
      status: r.status as TransferStatus,
      count: Number(r.count),
    }));
  }

  /**
   * initial → in flight (filling / releasing) under `owner`'s lease, if still waiting and due. One conditional
   * UPDATE: of several keepers claiming the same row, exactly one changes it. Resolves the row as claimed, or
   * undefined when another keeper (or a state move) got there first.
   */
  async claim(id: string, owner: string, leaseMs: number, nowMs: number): Promise<Transfer | undefined> {
    const row = await this.findById(id);
    if (!row) return undefined;
    const changed = await this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, status: INITIAL_STATUS[row.provider] })
        .andWhere('next_attempt_at', '<=', nowMs)
        .update({
          status: IN_FLIGHT_STATUS[row.provider],
          lease_owner: owner,
          lease_expires_at: nowMs + leaseMs,
          confirmed_at: this.confirmedAt(db, nowMs),
          ...NO_FILL_TX,
          ...this.moves.bump(nowMs),
        }),
    );
    return changed ? this.findById(id) : undefined;
  }

  /** The lease of an in-flight row, renewed by its owner while it follows the transaction. */
  async renewLease(id: string, owner: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id, lease_owner: owner })
      .whereIn('status', Object.values(IN_FLIGHT_STATUS))
      .update({ lease_expires_at: nowMs + leaseMs, ...this.moves.bump(nowMs) });
    return changed > 0;
  }

  /**
   * Records the signed destination transaction, for the lease owner of an in-flight row: called after signing and
   * before broadcasting (ExecutorWallet's `beforeBroadcast`). False: the row is no longer held, do not broadcast.
   */
  async markSubmitted(
    id: string,
    owner: string,
    tx: { txHash: string; rawTx: string; sender: string; nonce: number; sentBlock: number },
    leaseMs: number,
    nowMs: number,
  ): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, lease_owner: owner })
        .whereIn('status', Object.values(IN_FLIGHT_STATUS))
        .andWhere('lease_expires_at', '>=', nowMs)
        .update({
          fill_tx_hash: tx.txHash,
          fill_tx_hashes: JSON.stringify([tx.txHash]),
          fill_raw_tx: tx.rawTx,
          fill_sender: tx.sender,
          fill_nonce: tx.nonce,
          fill_sent_block: tx.sentBlock,
          fill_last_sent_block: tx.sentBlock,
          fill_sent_at: nowMs,
          lease_expires_at: nowMs + leaseMs,
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * A fee bump of the in-flight destination transaction (same nonce), recorded before it is broadcast: its hash is
   * added to the row's hashes and becomes the current one, with its raw transaction; waits for the next bump count
   * from `sentBlock`. False: the owner no longer holds the row with `previousHash` current, do not broadcast.
   */
  async recordFillReplacement(
    id: string,
    owner: string,
    previousHash: string,
    tx: { txHash: string; rawTx: string; sentBlock: number },
    leaseMs: number,
    nowMs: number,
  ): Promise<boolean> {
    const current = await this.findById(id);
    if (!current || current.leaseOwner !== owner || current.fillTxHash !== previousHash) return false;
    const hashes = [...current.fillTxHashes.filter((h) => h !== tx.txHash), tx.txHash];
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, lease_owner: owner, fill_tx_hash: previousHash, version: current.version })
        .whereIn('status', Object.values(IN_FLIGHT_STATUS))
        .update({
          fill_tx_hash: tx.txHash,
          fill_tx_hashes: JSON.stringify(hashes),
          fill_raw_tx: tx.rawTx,
          fill_last_sent_block: tx.sentBlock,
          lease_expires_at: nowMs + leaseMs,
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * → filled / released: the destination shows our transaction (or, found after a crash, an earlier one of ours)
   * succeeded. A receipt is a fact whoever holds the lease, so only the state is checked (initial or in flight).
   */
  async markFilled(
    id: string,
    fill: { txHash: string; blockNumber: number; blockHash: string },
    nowMs: number,
  ): Promise<boolean> {
    const row = await this.findById(id);
    if (!row) return false;
    const from: TransferStatus[] = [INITIAL_STATUS[row.provider], IN_FLIGHT_STATUS[row.provider]];
    if (row.provider === 'lock-release') from.push('release_queued');
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id })
        .whereIn('status', from)
        .update({
          status: DONE_STATUS[row.provider],
          fill_tx_hash: fill.txHash,
          fill_block_number: fill.blockNumber,
          fill_block_hash: fill.blockHash,
          fill_raw_tx: null,
          last_error: null,
          ...this.moves.noLease(),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * locked | releasing → release_queued: our release was mined and waits the bridge's delay (it was past the token's
   * hourly limit); the lease is given up.
   */
  async markReleaseQueued(
    id: string,
    release: { txHash: string; blockNumber: number; blockHash: string },
    nowMs: number,
  ): Promise<boolean> {
    // A receipt is a fact whoever holds the lease (a release found after a crash too).
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'lock-release' })
        .whereIn('status', ['locked', 'releasing'])
        .update({
          fill_tx_hash: release.txHash,
          fill_block_number: release.blockNumber,
          fill_block_hash: release.blockHash,
          status: 'release_queued',
          fill_raw_tx: null,
          ...this.moves.noLease(),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * release_queued → release_cancelled: the bridge's owner cancelled the delayed release. Final for the keeper: it
   * is never sent again on its own (the owner stopped it for a reason; a veto that came back would be none).
   */
  async markReleaseCancelled(id: string, reason: string, nowMs: number): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'lock-release', status: 'release_queued' })
        .update({
          status: 'release_cancelled',
          fill_raw_tx: null,
          last_error: errorText(reason),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /** Delayed releases of a destination chain, oldest first. */
  async listReleaseQueued(destinationChainId: number, limit: number): Promise<Transfer[]> {
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider: 'lock-release', destination_chain_id: destinationChainId, status: 'release_queued' })
      .orderBy('updated_at', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /**
   * locked → refused: the keeper will never release the lock (or it was accepted by a key this keeper did not
   * use); its depositor may still refund it on the origin after its deadline when it is not accepted.
   */
  async markLockRefused(id: string, reason: string, nowMs: number): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'lock-release', status: 'locked' })
        .update({ status: 'refused', last_error: errorText(reason), ...this.moves.bump(nowMs) }),
    );
  }

  /** locked → refunded: the origin bridge paid the lock back to its depositor. */
  async markLockRefunded(id: string, reason: string, nowMs: number): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'lock-release', status: 'locked' })
        .update({ status: 'refunded', last_error: errorText(reason), ...this.moves.bump(nowMs) }),
    );
  }

  /**
   * filled → filling, released → releasing: the block of our destination transaction left the chain; the transfer
   * is followed again under `owner`'s lease (its raw transaction was cleared when it was done, so its stage finds
   * nothing to re-send, hands it back, and it is filled or released anew: the destination's own state decides,
   * never a second payout). A fill already in a repayment bundle is left alone.
   */
  async markFillReorged(id: string, owner: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const row = await this.findById(id);
    if (!row || row.status !== DONE_STATUS[row.provider]) return false;
    return this.writeOne(id, nowMs, (db) => {
      const query = db(TABLE).where({ id, status: DONE_STATUS[row.provider] });
      if (row.provider === 'intent') query.whereNull('repayment_bundle_row');
      return query.update({
        status: IN_FLIGHT_STATUS[row.provider],
        fill_block_number: null,
        fill_block_hash: null,
        lease_owner: owner,
        lease_expires_at: nowMs + leaseMs,
        ...this.moves.bump(nowMs),
      });
    });
  }

  /**
   * Transfers done on a destination chain (filled, released, or filled by another relayer) whose destination block
   * is at or above `fromBlock`: what the relay re-checks against a reorg of the destination.
   */
  async listDoneSince(
    provider: TransferProvider,
    destinationChainId: number,
    fromBlock: number,
    limit = 500,
  ): Promise<Transfer[]> {
    const done: TransferStatus[] = [DONE_STATUS[provider]];
    if (provider === 'intent') done.push('filled_by_other');
    const rows: TransferRow[] = await this.knex(TABLE)
      .where({ provider, destination_chain_id: destinationChainId })
      .whereIn('status', done)
      .andWhere('fill_block_number', '>=', fromBlock)
      .orderBy('fill_block_number', 'asc')
      .limit(limit);
    return rows.map(transferFromRow);
  }

  /**
   * deposited | filling → filled_by_other: the destination's fill status is Filled, by another relayer. `fill` is
   * that relayer's FilledRelay (who, which transaction, which block), when it was found: the transfer's destination
   * transaction as the integrator sees it, and what a reorg of the destination is checked against.
   */
  async markFilledByOther(
    id: string,
    filledBy: string | null,
    fill: { txHash: string; blockNumber: number; blockHash: string } | undefined,
    nowMs: number,
  ): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'intent' })
        .whereIn('status', ['deposited', 'filling'])
        .update({
          status: 'filled_by_other',
          filled_by: filledBy,
          ...NO_FILL_TX,
          fill_tx_hash: fill?.txHash ?? null,
          fill_block_number: fill?.blockNumber ?? null,
          fill_block_hash: fill?.blockHash ?? null,
          ...this.moves.noLease(),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * filled_by_other → deposited: the other relayer's fill left the destination in a reorg, so the deposit may be
   * unfilled again; the fill stage looks at the destination afresh (filled again, by whom, or ours to fill).
   */
  async markOtherFillReorged(id: string, nowMs: number): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'intent', status: 'filled_by_other' })
        .update({
          status: INITIAL_STATUS.intent,
          filled_by: null,
          ...NO_FILL_TX,
          fill_block_number: null,
          fill_block_hash: null,
          next_attempt_at: 0,
          ...this.moves.noLease(),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * in flight → initial for the lease owner: the transaction reverted, was dropped or never went out, and the
   * transfer is tried again from `nextAttemptAt`. `attempt` counts it and keeps the error.
   */
  async releaseLease(
    id: string,
    owner: string,
    nowMs: number,
    retry: { nextAttemptAt?: number; error?: string; attempt?: boolean } = {},
  ): Promise<boolean> {
    const row = await this.findById(id);
    if (!row || row.leaseOwner !== owner || row.status !== IN_FLIGHT_STATUS[row.provider]) return false;
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, lease_owner: owner, status: IN_FLIGHT_STATUS[row.provider], version: row.version })
        .update({
          status: INITIAL_STATUS[row.provider],
          ...NO_FILL_TX,
          ...this.moves.noLease(),
          next_attempt_at: retry.nextAttemptAt ?? nowMs,
          ...(retry.error === undefined ? {} : { last_error: errorText(retry.error) }),
          attempts: row.attempts + (retry.attempt ? 1 : 0),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /**
   * A waiting transfer is looked at again from `nextAttemptAt` (a check said "not yet"); not an attempt. Only
   * deposits with their origin confirmations are checked, so the first postponement marks the deposit confirmed.
   */
  async postpone(
    id: string,
    nextAttemptAt: number,
    reason: string,
    nowMs: number,
    attempt = false,
  ): Promise<boolean> {
    const row = await this.findById(id);
    if (!row) return false;
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, status: INITIAL_STATUS[row.provider] })
        .update({
          next_attempt_at: nextAttemptAt,
          last_error: errorText(reason),
          attempts: row.attempts + (attempt ? 1 : 0),
          confirmed_at: this.confirmedAt(db, nowMs),
          ...this.moves.bump(nowMs),
        }),
    );
  }

  /** initial → reorged: the deposit's block is no longer canonical; nothing may be done with it until re-read. */
  async markReorged(id: string, nowMs: number): Promise<boolean> {
    const row = await this.findById(id);
    if (!row) return false;
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, status: INITIAL_STATUS[row.provider] })
        .update({ status: 'reorged', confirmed_at: null, ...this.moves.bump(nowMs) }),
    );
  }

  /**
   * deposited → expired: the destination's confirmed clock is past the fill deadline and the deposit unfilled
   * there, so no fill can ever happen; its refund is due. Never from `filling`: a fill in flight is resolved first.
   */
  async markExpired(id: string, nowMs: number): Promise<boolean> {
    return this.writeOne(id, nowMs, (db) =>
      db(TABLE)
        .where({ id, provider: 'intent', status: 'deposited' })
        .update({ status: 'expired', ...this.moves.bump(nowMs) }),
    );
  }

  /**
   * In-flight rows whose lease ran out with nothing signed go back to their initial state (not an attempt): the
   * keeper that claimed them stopped before signing. Resolves their ids.
   */
  async reclaimExpiredLeases(nowMs: number): Promise<string[]> {
    const rows: Pick<TransferRow, 'id' | 'provider'>[] = await this.knex(TABLE)
      .select('id', 'provider')
      .whereIn('status', Object.values(IN_FLIGHT_STATUS))
      .whereNull('fill_tx_hash')
      .andWhere('lease_expires_at', '<', nowMs)
      .limit(SWEEP_LIMIT);
    const reclaimed: string[] = [];
    for (const row of rows) {
      const provider = row.provider as TransferProvider;
      const changed = await this.writeOne(row.id, nowMs, (db) =>
        db(TABLE)
          .where({ id: row.id, status: IN_FLIGHT_STATUS[provider] })
          .whereNull('fill_tx_hash')
          .andWhere('lease_expires_at', '<', nowMs)
          .update({ status: INITIAL_STATUS[provider], ...this.moves.noLease(), ...this.moves.bump(nowMs) }),
      );
      if (changed) reclaimed.push(row.id);
    }
    return reclaimed;
  }

  /** In-flight rows `owner` holds with nothing signed go back at once (a restart under the same KEEPER_ID). */
  async releaseLeasesOf(owner: string, nowMs: number): Promise<string[]> {
    const released: string[] = [];
    for (const [provider, status] of Object.entries(IN_FLIGHT_STATUS)) {
      const rows: Pick<TransferRow, 'id'>[] = await this.knex(TABLE)
        .select('id')
        .where({ provider, status, lease_owner: owner })
        .whereNull('fill_tx_hash')
        .limit(SWEEP_LIMIT);
      for (const row of rows) {
        const changed = await this.writeOne(row.id, nowMs, (db) =>
          db(TABLE)
            .where({ id: row.id, status, lease_owner: owner })
            .whereNull('fill_tx_hash')
            .update({
              status: INITIAL_STATUS[provider as TransferProvider],
              ...this.moves.noLease(),
              ...this.moves.bump(nowMs),
            }),
        );
        if (changed) released.push(row.id);
      }
    }
    return released;
  }

  /**
   * In-flight rows of a destination whose keeper stopped renewing its lease while a signed transaction is
   * unresolved: each goes to `owner`, who follows that transaction (it may be mined, pending or never sent).
   */
  async takeOverExpired(
    provider: TransferProvider,
    destinationChainId: number,
    owner: string,
    leaseMs: number,
    nowMs: number,
  ): Promise<Transfer[]> {
    const rows: Pick<TransferRow, 'id' | 'version'>[] = await this.knex(TABLE)
      .select('id', 'version')
      .where({ provider, destination_chain_id: destinationChainId, status: IN_FLIGHT_STATUS[provider] })
      .whereNotNull('fill_tx_hash')
      .andWhere('lease_expires_at', '<', nowMs)
      // Its own rows (a lease it could not renew while the store was away) the keeper follows already.
      .andWhere((mine) => mine.whereNot('lease_owner', owner).orWhereNull('lease_owner'))
      .limit(SWEEP_LIMIT);
    const taken: Transfer[] = [];
    for (const row of rows) {
      const changed = await this.knex(TABLE)
        .where({ id: row.id, version: row.version })
        .andWhere('lease_expires_at', '<', nowMs)
        .update({ lease_owner: owner, lease_expires_at: nowMs + leaseMs, ...this.moves.bump(nowMs) });
      if (changed > 0) {
        const found = await this.findById(row.id);
        if (found) taken.push(found);
      }
    }
    return taken;
  }

  /** The last block a contract's logs were read to, with its hash; undefined before the first read. */
  async cursor(
    chainId: number,
    contract: string,
  ): Promise<{ blockNumber: number; blockHash: string } | undefined> {
    const row: { block_number: number | string; block_hash: string } | undefined = await this.knex(CURSORS)
      .where({ chain_id: chainId, contract: contract.toLowerCase() })
      .first();
    return row ? { blockNumber: Number(row.block_number), blockHash: row.block_hash } : undefined;
  }

  /** Moves a contract's scan cursor; saved only after the deposits up to that block are stored. */
  async setCursor(
    chainId: number,
    contract: string,
    blockNumber: number,
    blockHash: string,
    nowMs: number,
  ): Promise<void> {
    await this.knex(CURSORS)
      .insert({
        chain_id: chainId,
        contract: contract.toLowerCase(),
        block_number: blockNumber,
        block_hash: blockHash,
        updated_at: nowMs,
      })
      .onConflict(['chain_id', 'contract'])
      .merge(['block_number', 'block_hash', 'updated_at']);
  }
}
