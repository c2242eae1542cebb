import { Transaction, type Log, type TransactionReceipt } from 'ethers';
import type { ChainClient } from '../../shared/chain/chain-client';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import type { Logger } from '../../shared/log/create-logger';
import type {
  KeeperTransaction,
  KeeperTransactionsRepository,
} from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import { workOf, type OrderWorks } from '../order-work';
import type { RowGuard } from '../row-guard';
import { batchOutcomes, executedAmounts, ordersOfTransaction } from '../settle/batch-outcomes';
import { executionEvents, isEventOf, type ExecutionEvent } from '../settle/execution-events';
import { batchOrderIdentities, type BatchOrderIdentity } from '../plan/execute-batch-call';
import { orderRefOf } from '../../shared/domain/pair-authorization';

type ExecutedEvent = Extract<ExecutionEvent, { kind: 'executed' }>;
import type { FeePolicy, TxFees } from '../submit/fee-policy';
import type { WalletPool } from '../submit/wallet-pool';
import { isOutageError } from '../watch/chain-availability';

export interface TrackerDeps {
  chainId: number;
  client: ChainClient;
  pool: WalletPool;
  fees: FeePolicy;
  transactions: KeeperTransactionsRepository;
  /** Each kind of order's work: its repository's moves, its tokens' decimals, its end-of-attempt hook. */
  works: OrderWorks;
  metrics: KeeperMetrics;
  /** Each transaction is followed on its own; an outage only postpones it to a later block. */
  guard: RowGuard;
  orderExecutor: string;
  owner: string;
  leaseMs: number;
  confirmations: number;
  replaceAfterBlocks: number;
  log: Logger;
  now: () => number;
}

function feesOf(raw: Transaction): TxFees {
  return raw.type === 2
    ? { type: 2, maxFeePerGas: raw.maxFeePerGas ?? 0n, maxPriorityFeePerGas: raw.maxPriorityFeePerGas ?? 0n }
    : { type: 0, gasPrice: raw.gasPrice ?? 0n };
}

/**
 * Follows the keeper's batch transactions of one chain to their settlement: re-broadcasts recorded ones,
 * records the block a hash is mined in, settles from the receipt's events after the chain's confirmations
 * (checking the block hash again: a reorg sends the row back to pending), replaces a transaction stuck for
 * `replaceAfterBlocks` blocks with fees at least 12.5% higher, and detects a nonce used by another transaction
 * (dropped): orders the contract executed are completed from their events, the rest return to pending.
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
    await deps.guard.each(
      'transaction',
      rows,
      (row) => row.id,
      (row) => this.follow(row, head),
      () => deps.metrics.unhandledError('track'),
    );
  }

  private async follow(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    await deps.transactions.renewLease(row.id, deps.owner, deps.leaseMs, deps.now());
    if (row.status === 'mined') return this.settleMined(row, head);
    const receipt = await this.findReceipt(row);
    if (receipt) {
      await deps.transactions.markMined(
        row.id,
        deps.owner,
        { txHash: receipt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash },
        deps.now(),
      );
      const mined = await deps.transactions.findById(row.id);
      if (mined?.status === 'mined') await this.settleMined(mined, head);
      return;
    }
    if (row.status === 'signed') {
      // Recorded, then maybe broadcast before a crash: send it only if the node does not know it.
      const known = await this.knownToNode(row.txHash);
      if (!known) await this.broadcast(row.rawTx);
      await deps.transactions.markBroadcast(row.id, deps.owner, head, deps.now());
      return;
    }
    const chainNonce = Number(
      BigInt(String(await deps.client.send('eth_getTransactionCount', [row.executor, 'latest']))),
    );
    if (chainNonce > row.nonce) {
      // Our nonce is used and none of our hashes has a receipt: another transaction took it.
      return this.dropped(row, head);
    }
    const known = await this.knownToNode(row.txHash);
    const waited = head - (row.submittedBlock ?? head);
    if (!known || waited >= deps.replaceAfterBlocks) await this.replace(row, head);
  }

  private async findReceipt(row: KeeperTransaction): Promise<TransactionReceipt | null> {
    for (const hash of [...row.txHashes].reverse()) {
      const receipt = await this.deps.client.getTransactionReceipt(hash);
      if (receipt) return receipt;
    }
    return null;
  }

  /** Whether the node has the transaction; a node that cannot be reached says nothing (the row waits). */
  private async knownToNode(hash: string): Promise<boolean> {
    try {
      return (await this.deps.client.getTransaction(hash)) !== null;
    } catch (err) {
      if (isOutageError(err)) throw err;
      return false;
    }
  }

  /**
   * A node that already has it answers "already known" or "nonce too low": both mean it went out. No node
   * reached: thrown, so the row is not marked broadcast and is sent again at a later block.
   */
  private async broadcast(raw: string): Promise<void> {
    try {
      await this.deps.client.send('eth_sendRawTransaction', [raw]);
    } catch (err) {
      if (isOutageError(err)) throw err;
      this.deps.log.debug({ err }, 're-broadcast refused');
    }
  }

  private async replace(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    const previous = Transaction.from(row.rawTx);
    const decision = deps.fees.bumpForReplacement(feesOf(previous));
    if (decision.kind === 'capped') {
      // Cannot outbid the stuck one under the cap: put the same transaction out again and wait.
      await this.broadcast(row.rawTx);
      return;
    }
    const wallet = deps.pool.find(row.executor);
    if (!wallet) return;
    const request = { to: previous.to!, data: previous.data, gasLimit: previous.gasLimit };
    await deps.pool
      .replace(
        {
          hash: row.txHash,
          nonce: row.nonce,
          raw: row.rawTx,
          fees: feesOf(previous),
          wallet: wallet.address,
          chainId: deps.chainId,
          request,
        },
        decision.fees,
        {
          beforeBroadcast: async (signed) => {
            const fees = signed.fees;
            const ok = await deps.transactions.recordReplacement(
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
            if (!ok) throw new Error('transaction no longer held');
          },
        },
      )
      .then(
        async () => {
          deps.metrics.transactionSent(deps.chainId, true);
          await deps.transactions.markBroadcast(row.id, deps.owner, head, deps.now());
          deps.log.info({ txId: row.id, nonce: row.nonce }, 'replaced a stuck transaction with higher fees');
        },
        (err: unknown) => deps.log.warn({ err, txId: row.id }, 'replacement not sent'),
      );
  }

  /**
   * The nonce went to another transaction: complete what the contract executed (its event found, with this order's
   * maker and amount), return the rest. Never completed without the transaction that executed it.
   */
  private async dropped(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    const identities = batchOrderIdentities(Transaction.from(row.rawTx).data);
    for (const { kind, id } of ordersOfTransaction(row)) {
      const identity = identities.get(orderRefOf(id).toLowerCase());
      if (!identity) continue;
      const found = await this.executedEvent(identity, row.submittedBlock ?? head);
      if (!found) continue;
      const work = workOf(deps.works, kind);
      const success = {
        transactionHash: found.txHash,
        ...executedAmounts(found.event, await work.decimals(id)),
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
   * The OrderExecuted event of an order the contract marked executed (its id, maker and amount), searched from
   * `fromBlock`, with the transaction that emitted it; undefined when the contract has not executed it or its
   * event is not found (then the order is not settled as executed).
   */
  private async executedEvent(
    identity: BatchOrderIdentity,
    fromBlock: number,
  ): Promise<{ txHash: string; event: ExecutedEvent } | undefined> {
    const { deps } = this;
    const iface = orderExecutorInterface();
    const data = await deps.client.call({
      to: deps.orderExecutor,
      data: iface.encodeFunctionData('executed', [identity.maker, identity.onchainId]),
    });
    if (!(iface.decodeFunctionResult('executed', data)[0] as boolean)) return undefined;
    const logs = (await deps.client.send('eth_getLogs', [
      {
        address: deps.orderExecutor,
        topics: [iface.getEvent('OrderExecuted')!.topicHash, identity.onchainId],
        fromBlock: `0x${Math.max(0, fromBlock - 1).toString(16)}`,
        toBlock: 'latest',
      },
    ])) as { address: string; topics: string[]; data: string; transactionHash: string }[];
    for (const log of logs) {
      const [event] = executionEvents([log as unknown as Log], deps.orderExecutor);
      if (event?.kind === 'executed' && isEventOf(event, identity))
        return { txHash: log.transactionHash, event };
    }
    return undefined;
  }

  private async settleMined(row: KeeperTransaction, head: number): Promise<void> {
    const { deps } = this;
    if (row.minedBlock === null || head - row.minedBlock + 1 < deps.confirmations) return;
    const [block, receipt] = await Promise.all([
      deps.client.getBlock(row.minedBlock),
      deps.client.getTransactionReceipt(row.txHash),
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
      identities ??= [...batchOrderIdentities(Transaction.from(row.rawTx).data).values()];
      const identity = identities.find((o) => isEventOf(event, o));
      if (!identity) continue;
      const earlier = await this.executedEvent(identity, row.submittedBlock ?? row.minedBlock);
      if (earlier) events[i] = earlier.event;
    }
    const { outcomes, settled } = await batchOutcomes(row, events, deps.works, deps.now());
    const result = await deps.transactions.settleBatch(row.id, deps.owner, outcomes, deps.now());
    if (result.kind !== 'settled') return;
    const wallet = deps.pool.find(row.executor);
    if (wallet) deps.pool.free(wallet);
    const orders = row.limitOrderIds.length + row.dcaOrderIds.length;
    deps.metrics.receipt(deps.chainId, {
      status: receipt.status === 1 ? 'success' : 'reverted',
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.gasPrice,
      orders,
    });
    if (row.triggerBlock !== null) {
      deps.metrics.orderIncluded(
        deps.chainId,
        row.minedBlock - row.triggerBlock,
        (deps.now() - row.createdAt) / 1000,
      );
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
