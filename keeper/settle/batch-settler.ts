import { calldataOfRawTransaction } from '../../shared/chain/raw-transaction-data';
import type { ChainClient } from '../../shared/chain/chain-client';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { orderRefOf } from '../../shared/domain/pair-authorization';
import type { Logger } from '../../shared/log/create-logger';
import type {
  KeeperTransaction,
  KeeperTransactionsRepository,
  OrderOutcome,
} from '../../shared/store/repositories/keeper-transactions-repository';
import { diagnosisOfRetry, type OrderDiagnoses } from '../diagnose/order-diagnoses';
import type { KeeperMetrics } from '../keeper-metrics';
import { workOf, type OrderWorks } from '../order-work';
import { batchOrderFees, batchOrderIdentities, type BatchOrderIdentity } from '../plan/execute-batch-call';
import type { RowGuard } from '../row-guard';
import type { WalletPool } from '../submit/wallet-pool';
import { batchOutcomes, executedAmounts, ordersOfTransaction } from './batch-outcomes';
import { executionEvents, isEventOf, type ExecutionEvent } from './execution-events';

type ExecutedEvent = Extract<ExecutionEvent, { kind: 'executed' }>;

/**
 * Where to look for an order's OrderExecuted event when another transaction may have executed it: from the block
 * the batch was planned at (its trigger), which no execution of its orders can precede — its send block may be
 * later (a batch reopened after a reorg is sent again) or unknown.
 */
function searchFrom(row: KeeperTransaction, fallback: number): number {
  return Math.min(row.triggerBlock ?? fallback, row.submittedBlock ?? fallback, fallback);
}

export interface BatchSettlerDeps {
  chainId: number;
  client: ChainClient;
  pool: Pick<WalletPool, 'find' | 'free'>;
  transactions: KeeperTransactionsRepository;
  works: OrderWorks;
  metrics: KeeperMetrics;
  guard: RowGuard;
  orderExecutor: string;
  owner: string;
  /** Blocks a batch's block must have on top (itself included) before its orders are final. */
  confirmations: number;
  log: Logger;
  now: () => number;
  /** An order back in pending after a retryable failure on-chain: what it waits for (BACKING_OFF…). */
  diagnoses?: OrderDiagnoses;
}

/**
 * What an order batch's end means for its orders: settled from its receipt's events once it is `confirmations`
 * deep (the block hash checked again: a reorg sends it back to be followed), or, when its nonce went to another
 * transaction, completed where the contract executed them and returned to pending otherwise.
 */
export class BatchSettler {
  constructor(private readonly deps: BatchSettlerDeps) {}

  /**
   * The nonce went to another transaction: complete what the contract executed (its event found, with this order's
   * maker and amount), return the rest. Never completed without the transaction that executed it.
   */
  async settleDropped(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    const identities = batchOrderIdentities(calldataOfRawTransaction(row.rawTx));
    for (const { kind, id } of ordersOfTransaction(row)) {
      const identity = identities.get(orderRefOf(id).toLowerCase());
      if (!identity) continue;
      const found = await this.executedEvent(identity, searchFrom(row, head));
      if (!found) continue;
      const work = workOf(deps.works, kind);
      const success = {
        transactionHash: found.txHash,
        ...executedAmounts(found.event, (await work.settlementFacts([id])).get(id)?.decimals),
      };
      await work.repository.complete(id, success, deps.now());
    }
    await deps.transactions.markDropped(row.id, deps.owner, 'replaced', deps.now());
    deps.metrics.transactionDropped(deps.chainId);
    const wallet = deps.pool.find(row.executor);
    if (wallet) deps.pool.free(wallet);
    deps.log.warn({ txId: row.id, nonce: row.nonce }, 'transaction dropped: its nonce was used by another');
  }

  /**
   * The OrderExecuted event of an order whose execution index the contract marks spent (its id, maker and amount),
   * searched from `fromBlock`, with the transaction that emitted it; undefined when the index is not spent or no
   * event of this order is found (then the order is not settled as executed). The bit alone proves nothing: any
   * order carrying the index sets it (a leaked executor key could spend an index with an order of its own).
   */
  private async executedEvent(
    identity: BatchOrderIdentity,
    fromBlock: number,
  ): Promise<{ txHash: string; event: ExecutedEvent } | undefined> {
    const { deps } = this;
    const iface = orderExecutorInterface();
    const data = await deps.client.call({
      to: deps.orderExecutor,
      data: iface.encodeFunctionData('isExecuted', [identity.index]),
    });
    if (!(iface.decodeFunctionResult('isExecuted', data)[0] as boolean)) return undefined;
    const logs = (await deps.client.send('eth_getLogs', [
      {
        address: deps.orderExecutor,
        topics: [iface.getEvent('OrderExecuted')!.topicHash, identity.onchainId],
        fromBlock: `0x${Math.max(0, fromBlock - 1).toString(16)}`,
        toBlock: 'latest',
      },
    ])) as { address: string; topics: string[]; data: string; transactionHash: string }[];
    for (const log of logs) {
      const [event] = executionEvents([log], deps.orderExecutor);
      if (event?.kind === 'executed' && isEventOf(event, identity))
        return { txHash: log.transactionHash, event };
    }
    return undefined;
  }

  /** Orders back in pending after a retryable failure: what they wait for (a fee over its cap: by how much). */
  private diagnoseRetries(
    row: KeeperTransaction,
    outcomes: readonly OrderOutcome[],
    nowMs: number,
    diagnoses: OrderDiagnoses,
  ): void {
    let fees: ReturnType<typeof batchOrderFees> | undefined;
    for (const o of outcomes) {
      if (o.outcome !== 'failed' || o.final) continue;
      const diagnosis = diagnosisOfRetry(o.reason, o.nextAttemptAt ?? nowMs, nowMs);
      if (o.reason === 'FEE_TOO_HIGH') {
        try {
          fees ??= batchOrderFees(calldataOfRawTransaction(row.rawTx));
          Object.assign(diagnosis, fees.get(orderRefOf(o.id).toLowerCase()) ?? {});
        } catch (err) {
          this.deps.log.warn({ err, txId: row.id }, 'reading the fees of a settled batch failed');
        }
      }
      diagnoses.note(o.kind, o.id, diagnosis);
    }
  }

  async settleMined(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    if (row.minedBlock === null || head - row.minedBlock + 1 < deps.confirmations) return;
    const [block, receipt] = await Promise.all([
      deps.client.getBlock(row.minedBlock),
      deps.client.getReceiptSummary(row.txHash),
    ]);
    if (!block || block.hash !== row.minedBlockHash || !receipt || receipt.blockHash !== row.minedBlockHash) {
      await deps.transactions.markReorged(row.id, deps.owner, deps.now());
      deps.metrics.reorgDetected(deps.chainId);
      deps.log.warn({ txId: row.id, block: row.minedBlock }, 'mined block reorged away: following again');
      return;
    }
    const events = receipt.status === 1 ? executionEvents(receipt.logs, deps.orderExecutor) : [];
    // ALREADY_EXECUTED for one of our own orders: another transaction executed it (an earlier copy of this batch,
    // a keeper that lost its lease). Its OrderExecuted event is the truth, not this failure.
    let identities: BatchOrderIdentity[] | undefined;
    for (const [i, event] of events.entries()) {
      if (event.kind !== 'failed' || event.reason !== 'ALREADY_EXECUTED') continue;
      identities ??= [...batchOrderIdentities(calldataOfRawTransaction(row.rawTx)).values()];
      const identity = identities.find((o) => isEventOf(event, o));
      if (!identity) continue;
      const earlier = await this.executedEvent(identity, searchFrom(row, row.minedBlock));
      if (earlier) events[i] = earlier.event;
    }
    const settledAt = deps.now();
    const { outcomes, settled } = await batchOutcomes(row, events, deps.works, settledAt);
    const result = await deps.transactions.settleBatch(row.id, deps.owner, outcomes, deps.now());
    if (result.kind !== 'settled') return;
    if (deps.diagnoses) this.diagnoseRetries(row, outcomes, settledAt, deps.diagnoses);
    const wallet = deps.pool.find(row.executor);
    if (wallet) deps.pool.free(wallet);
    const orders = row.orders.length;
    deps.metrics.receipt(deps.chainId, {
      status: receipt.status === 1 ? 'success' : 'reverted',
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.gasPrice,
      orders,
    });
    if (row.triggerBlock !== null) {
      // One observation per order executed, as the help says: a batch of fifty is fifty orders' latency.
      const blocks = row.minedBlock - row.triggerBlock;
      const seconds = (deps.now() - row.createdAt) / 1000;
      for (const s of settled) {
        if (s.result === 'executed') deps.metrics.orderIncluded(deps.chainId, blocks, seconds);
      }
    }
    for (const s of settled) {
      if (s.result === 'executed') deps.metrics.orderExecution(deps.chainId, s.kind, 'executed');
      else {
        deps.metrics.orderExecution(deps.chainId, s.kind, 'failed');
        deps.metrics.orderFailure(deps.chainId, s.kind, s.reason ?? 'UNKNOWN', s.final ? 'final' : 'retry');
      }
    }
    deps.log.info(
      { txHash: receipt.hash, block: row.minedBlock, orders, gasUsed: receipt.gasUsed.toString() },
      'batch settled',
    );
    // Each kind hears how its orders' attempts ended (the DCA work finishes strategies, counts iterations).
    await deps.guard.each(
      (s) => s.kind,
      settled,
      (s) => s.id,
      (s) => workOf(deps.works, s.kind).onOutcome(s.id, s.result),
    );
  }
}
