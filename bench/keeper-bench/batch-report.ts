import type { JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';

export interface BatchRow {
  executor: string;
  nonce: number;
  txHash: string;
  status: string;
  orders: number;
  /** Head block when the keeper claimed the batch's orders. */
  triggerBlock: number | null;
  /** Head block when it was broadcast (keeper's view). */
  submittedBlock: number | null;
  minedBlock: number | null;
  gasUsed: number | null;
  gasLimit: number | null;
  /** Milliseconds from the crossing block to the row's creation (signed, before broadcast) and last update. */
  recordedAfterMs: number;
  updatedAfterMs: number;
}

export interface BatchReport {
  batches: BatchRow[];
  /** Block holding the market moves. */
  crossingBlock: number;
  /** Orders whose transaction was mined in crossingBlock + 1. */
  ordersInFirstBlock: number;
  batchesInFirstBlock: number;
  /** Gas used by every transaction of crossingBlock + 1, keeper's or not, and that block's gas limit. */
  firstBlockGasUsed: number;
  blockGasLimit: number;
  /**
   * Most batches signed and not yet settled at one time: when it stays below the executor count, no batch waited
   * for a free wallet (one transaction in flight per wallet).
   */
  maxInFlight: number;
  /** Orders by how many blocks after the crossing block their transaction was mined. */
  ordersByBlockOffset: Map<number, number>;
  /** Blocks from the crossing block to the one holding the last order's transaction (null: one is unmined). */
  blocksToLast: number | null;
  /** Gas used by all of the keeper's batches. */
  totalGasUsed: number;
  /** ceil(totalGasUsed / blockGasLimit): the fewest blocks that can hold the batches' gas. */
  floorBlocks: number;
}

interface TransactionRow {
  executor: string;
  nonce: number | string;
  tx_hash: string;
  status: string;
  trigger_block: number | string | null;
  submitted_block: number | string | null;
  mined_block: number | string | null;
  id: string;
  created_at: number | string;
  updated_at: number | string;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * The keeper's batch transactions recorded since `sinceMs` (on `chainId` only, when given: `provider` is that
 * chain's), with their receipts, seen from the crossing block.
 */
export async function batchReport(
  knex: Knex,
  provider: JsonRpcProvider,
  sinceMs: number,
  crossingBlock: number,
  crossedAtMs: number,
  chainId?: number,
): Promise<BatchReport> {
  const query = knex<TransactionRow>('keeper_transactions').where('created_at', '>=', sinceMs);
  if (chainId !== undefined) void query.where('chain_id', chainId);
  const rows = await query.orderBy('created_at', 'asc');
  const counts = new Map<string, number>();
  const items: Array<{ transaction_id: string }> = await knex('keeper_transaction_items')
    .select('transaction_id')
    .whereIn(
      'transaction_id',
      rows.map((r) => r.id),
    );
  for (const item of items) counts.set(item.transaction_id, (counts.get(item.transaction_id) ?? 0) + 1);
  const batches: BatchRow[] = await Promise.all(
    rows.map(async (r) => {
      const [receipt, tx] = await Promise.all([
        provider.getTransactionReceipt(r.tx_hash),
        provider.getTransaction(r.tx_hash),
      ]);
      return {
        executor: r.executor,
        nonce: Number(r.nonce),
        txHash: r.tx_hash,
        status: r.status,
        orders: counts.get(r.id) ?? 0,
        triggerBlock: num(r.trigger_block),
        submittedBlock: num(r.submitted_block),
        minedBlock: num(r.mined_block) ?? receipt?.blockNumber ?? null,
        gasUsed: receipt ? Number(receipt.gasUsed) : null,
        gasLimit: tx ? Number(tx.gasLimit) : null,
        recordedAfterMs: Number(r.created_at) - crossedAtMs,
        updatedAfterMs: Number(r.updated_at) - crossedAtMs,
      };
    }),
  );
  const first = crossingBlock + 1;
  const inFirst = batches.filter((b) => b.minedBlock === first);
  const block = await provider.getBlock(first);
  const ordersByBlockOffset = new Map<number, number>();
  for (const b of batches) {
    if (b.minedBlock === null) continue;
    const offset = b.minedBlock - crossingBlock;
    ordersByBlockOffset.set(offset, (ordersByBlockOffset.get(offset) ?? 0) + b.orders);
  }
  const maxInFlight = Math.max(
    0,
    ...batches.map(
      (b) =>
        batches.filter((o) => o.recordedAfterMs <= b.recordedAfterMs && b.recordedAfterMs < o.updatedAfterMs)
          .length,
    ),
  );
  const blockGasLimit = block ? Number(block.gasLimit) : 0;
  const totalGasUsed = batches.reduce((sum, b) => sum + (b.gasUsed ?? 0), 0);
  return {
    batches,
    crossingBlock,
    maxInFlight,
    blocksToLast: batches.every((b) => b.minedBlock !== null)
      ? Math.max(0, ...batches.map((b) => b.minedBlock! - crossingBlock))
      : null,
    totalGasUsed,
    floorBlocks: blockGasLimit > 0 ? Math.ceil(totalGasUsed / blockGasLimit) : 0,
    ordersInFirstBlock: inFirst.reduce((s, b) => s + b.orders, 0),
    batchesInFirstBlock: inFirst.length,
    firstBlockGasUsed: block ? Number(block.gasUsed) : 0,
    blockGasLimit,
    ordersByBlockOffset: new Map([...ordersByBlockOffset].sort((a, b) => a[0] - b[0])),
  };
}
