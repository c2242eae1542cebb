import type { ChainClient } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type {
  KeeperTransaction,
  KeeperTransactionsRepository,
} from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import type { RowGuard } from '../row-guard';
import type { StageTimer } from '../stage-timer';
import type { WalletPool } from '../submit/wallet-pool';
import type { BatchSettler } from './batch-settler';
import { CanonicalBlocks } from './canonical-blocks';

export interface SettleStageDeps {
  chainId: number;
  client: ChainClient;
  transactions: KeeperTransactionsRepository;
  settler: Pick<BatchSettler, 'settleMined'>;
  /** A reopened batch takes its wallet's slot again (its settlement frees it, as for any batch in flight). */
  pool: Pick<WalletPool, 'find'>;
  metrics: KeeperMetrics;
  guard: RowGuard;
  timer: StageTimer;
  owner: string;
  leaseMs: number;
  /**
   * Blocks back from the head within which settled batches' blocks are checked again: a reorg deeper than the
   * confirmations is still noticed while it is younger than this.
   */
  recheckBlocks: number;
  log: Logger;
  now: () => number;
}

/**
 * The settle stage of a chain's tick, after track: the mined batches this keeper holds are settled once deep
 * enough (BatchSettler), then the chain's recent block hashes are compared with what the stage saw before
 * (CanonicalBlocks: one block read per head when nothing changed), and the settled batches at and above a height a
 * reorg changed, within the last `recheckBlocks` blocks, are checked against the chain. A settled batch whose block is gone is reopened (its orders back in it, followed again from
 * its recorded transaction by the track stage): a warning, `tas_keeper_settlements_reopened_total`, and the
 * TasKeeperSettlementReorged alert. Any keeper may reopen a batch; the one that does holds it.
 */
export class SettleStage {
  private readonly canonical: CanonicalBlocks;

  constructor(private readonly deps: SettleStageDeps) {
    this.canonical = new CanonicalBlocks(deps.client, deps.recheckBlocks);
  }

  async run(head: number, newBlock: boolean): Promise<void> {
    if (!newBlock) return;
    await this.deps.timer.run('settle', async () => {
      await this.settleMined(head);
      await this.recheckSettled(head);
    });
  }

  private async settleMined(head: number): Promise<void> {
    const { deps } = this;
    const rows = (await deps.transactions.listOpen(deps.chainId)).filter(
      (row) => row.status === 'mined' && row.leaseOwner === deps.owner,
    );
    await deps.guard.each(
      'transaction',
      rows,
      (row) => row.id,
      (row) => deps.settler.settleMined(row, head),
      () => deps.metrics.unhandledError('settle'),
    );
  }

  private async recheckSettled(head: number): Promise<void> {
    const { deps } = this;
    const changedFrom = await this.canonical.advance(head);
    if (changedFrom === undefined) return;
    const rows = await deps.transactions.listSettledSince(deps.chainId, changedFrom);
    for (const row of rows) {
      if (row.minedBlock === null || row.minedBlockHash === null) continue;
      const canonical =
        this.canonical.hashAt(row.minedBlock) ??
        (await deps.client.getBlock(row.minedBlock))?.hash ??
        undefined;
      if (canonical !== row.minedBlockHash) await this.reopen(row, head);
    }
  }

  private async reopen(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    const reopened = await deps.transactions.reopenSettled(
      row.id,
      row.minedBlockHash!,
      deps.owner,
      deps.leaseMs,
      deps.now(),
    );
    if (!reopened) return;
    deps.pool.find(row.executor)?.take();
    deps.metrics.settlementReopened(deps.chainId);
    deps.log.warn(
      {
        txId: row.id,
        txHash: row.txHash,
        block: row.minedBlock,
        depth: head - row.minedBlock! + 1,
        orders: reopened.map((o) => `${o.kind}:${o.id}`),
      },
      'a settled batch left the chain in a reorg: its orders wait on it again',
    );
  }
}
