import type { ChainClient } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type { TransferProvider } from '../../shared/store/repositories/transfer-rows';
import type { TransfersRepository } from '../../shared/store/repositories/transfers-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import { CanonicalBlocks } from '../settle/canonical-blocks';

export interface DeliveryRecheckDeps {
  /** The destination chain. */
  chainId: number;
  client: ChainClient;
  transfers: TransfersRepository;
  provider: TransferProvider;
  metrics: KeeperMetrics;
  owner: string;
  leaseMs: number;
  /** Blocks back from the head within which done transfers are checked again. */
  recheckBlocks: number;
  log: Logger;
  now: () => number;
}

/**
 * Keeps a transfer `filled` / `released` / `filled_by_other` only while its destination transaction's block is on
 * the chain (another relayer's fill goes back to `deposited`, to be looked at afresh): on each
 * new head the chain's recent block hashes are compared with what was seen before (CanonicalBlocks, one block read
 * when nothing changed), and a done transfer at or above a height a reorg changed, within `recheckBlocks`, whose
 * recorded block is no longer canonical goes back in flight (markFillReorged): its stage hands it back and the
 * destination's own state (filled? released?) decides what is sent again. A warning and
 * `tas_keeper_settlements_reopened_total` count it, as for the order batches.
 */
export class DeliveryRecheck {
  private readonly canonical: CanonicalBlocks;
  private lastHead: number | undefined;

  constructor(private readonly deps: DeliveryRecheckDeps) {
    this.canonical = new CanonicalBlocks(deps.client, deps.recheckBlocks);
  }

  async run(head: number): Promise<void> {
    if (head === this.lastHead) return;
    this.lastHead = head;
    const { deps } = this;
    const changedFrom = await this.canonical.advance(head);
    if (changedFrom === undefined) return;
    const done = await deps.transfers.listDoneSince(deps.provider, deps.chainId, changedFrom);
    for (const t of done) {
      if (t.fillBlockNumber === null || t.fillBlockHash === null) continue;
      const canonical =
        this.canonical.hashAt(t.fillBlockNumber) ??
        (await deps.client.getBlock(t.fillBlockNumber))?.hash ??
        undefined;
      if (canonical === t.fillBlockHash) continue;
      const reopened =
        t.status === 'filled_by_other'
          ? await deps.transfers.markOtherFillReorged(t.id, deps.now())
          : await deps.transfers.markFillReorged(t.id, deps.owner, deps.leaseMs, deps.now());
      if (!reopened) continue;
      deps.metrics.settlementReopened(deps.chainId);
      deps.log.warn(
        {
          transferId: t.id,
          txHash: t.fillTxHash,
          block: t.fillBlockNumber,
          depth: head - t.fillBlockNumber + 1,
        },
        'a done transfer left its destination block in a reorg: following it again',
      );
    }
  }
}
