import type { ChainClient } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type {
  KeeperTransaction,
  KeeperTransactionsRepository,
} from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import { gasLimitOfRawTransaction } from '../../shared/chain/raw-transaction-data';
import { followTransaction } from '../outbox/follow-transaction';
import type { SendPolicy } from '../outbox/send-policy';
import type { RowGuard } from '../row-guard';
import type { BatchSettler } from '../settle/batch-settler';
import type { FeePolicy } from '../outbox/fee-policy';
import type { WalletPool } from '../submit/wallet-pool';

/** Transactions followed at once. */
const FOLLOWED_AT_ONCE = 8;

export interface TrackerDeps {
  chainId: number;
  client: ChainClient;
  pool: WalletPool;
  fees: FeePolicy;
  /** How re-sends go out (public or private RPCs). */
  policy: SendPolicy;
  transactions: KeeperTransactionsRepository;
  /** Told of each batch of ours mined: the gas it used of its limit (the block budget learns from it). */
  onMined?: (gasUsed: bigint, gasLimit: bigint) => void;
  /** What a dropped batch means for its orders. */
  settler: Pick<BatchSettler, 'settleDropped'>;
  metrics: KeeperMetrics;
  /** Each transaction is followed on its own; an outage only postpones it to a later block. */
  guard: RowGuard;
  owner: string;
  leaseMs: number;
  replaceAfterBlocks: number;
  log: Logger;
  now: () => number;
}

/**
 * Follows the keeper's batch transactions of one chain until they are mined, through the outbox's one follow path:
 * re-broadcasts recorded ones, replaces one stuck for `replaceAfterBlocks` blocks with fees at least 12.5% higher
 * (recorded before it goes out), records the block a hash is mined in (the settle stage takes it from there), and
 * hands a batch whose nonce another transaction used to the settler. Rows of a keeper whose lease ran out are taken
 * over first.
 */
export class TransactionTracker {
  /** Whether this process has looked at the rows its owner id held before it started. */
  private resumed = false;

  constructor(private readonly deps: TrackerDeps) {}

  /** Rows of this chain held by this keeper, after taking over rows whose keeper's lease ran out. */
  async track(head: number): Promise<void> {
    const { deps } = this;
    const taken = await deps.transactions.takeOverExpired(deps.owner, deps.leaseMs, deps.now(), deps.chainId);
    for (const row of taken) {
      deps.log.warn({ txId: row.id, txHash: row.txHash }, 'took over a transaction of an expired keeper');
      deps.pool.find(row.executor)?.take();
    }
    const rows = (await deps.transactions.listOpen(deps.chainId)).filter((r) => r.leaseOwner === deps.owner);
    if (!this.resumed) {
      // A keeper restarted under the same KEEPER_ID: the rows its previous run sent are its own to follow, at once
      // and with their wallets' slots taken as when they were sent.
      this.resumed = true;
      for (const row of rows.filter((r) => !taken.some((t) => t.id === r.id))) {
        deps.log.info({ txId: row.id, txHash: row.txHash }, 'following a transaction of a previous run');
        deps.pool.find(row.executor)?.take();
      }
    }
    // A batch sent after another of ours that is still unmined waits behind our own queue, not for want of fees:
    // only the oldest unmined one may be replaced (a wave queues several blocks of our batches).
    const unmined = rows.filter((r) => r.status !== 'mined');
    const oldest = unmined.reduce<KeeperTransaction | undefined>(
      (first, r) => (first === undefined || r.createdAt < first.createdAt ? r : first),
      undefined,
    );
    await deps.guard.each(
      'transaction',
      rows,
      (row) => row.id,
      (row) => this.follow(row, head, row === oldest),
      () => deps.metrics.unhandledError('track'),
      // Each row's receipt and node reads are round trips of their own; a wave keeps a dozen batches in flight.
      FOLLOWED_AT_ONCE,
    );
  }

  private async follow(row: KeeperTransaction, head: number, mayReplace: boolean): Promise<void> {
    const { deps } = this;
    await deps.transactions.renewLease(row.id, deps.owner, deps.leaseMs, deps.now());
    if (row.status === 'mined') return;
    const wallet = mayReplace ? deps.pool.find(row.executor) : undefined;
    const fate = await followTransaction(
      {
        hashes: row.txHashes,
        rawTx: row.rawTx,
        nonce: row.nonce,
        sender: row.executor,
        sentBlock: row.submittedBlock,
      },
      head,
      {
        client: deps.client,
        policy: deps.policy,
        log: deps.log.child({ txId: row.id }),
        replacing: wallet && {
          wallet,
          fees: deps.fees,
          afterBlocks: deps.replaceAfterBlocks,
          record: (signed) => {
            const fees = signed.fees;
            return deps.transactions.recordReplacement(
              row.id,
              deps.owner,
              {
                txHash: signed.hash,
                rawTx: signed.raw,
                maxFeePerGas: fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice,
                maxPriorityFeePerGas: fees.type === 2 ? fees.maxPriorityFeePerGas : fees.gasPrice,
              },
              deps.now(),
            );
          },
        },
      },
    );
    if (fate.kind === 'dropped') return deps.settler.settleDropped(row, head);
    if (fate.kind === 'mined') {
      const { receipt } = fate;
      if (deps.onMined) deps.onMined(receipt.gasUsed, gasLimitOfRawTransaction(row.rawTx));
      await deps.transactions.markMined(
        row.id,
        deps.owner,
        { txHash: receipt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash },
        deps.now(),
      );
      return;
    }
    if (fate.replacedBy) deps.metrics.transactionSent(deps.chainId, true);
    if (row.status === 'signed' || fate.replacedBy)
      await deps.transactions.markBroadcast(row.id, deps.owner, head, deps.now());
  }
}
