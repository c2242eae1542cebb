import type { ChainConfig, ChainContracts } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import { BATCH_BASE_GAS, GAS_PER_ORDER } from '../../shared/routing/execution-fee';
import type { KeeperTransactionsRepository } from '../../shared/store/repositories/keeper-transactions-repository';
import { isStoreUnreachable } from '../../shared/store/store-unreachable';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderMoves } from '../order-moves';
import { sendRecorded, type RecordedSend } from '../outbox/send-recorded';
import type { FailureReason } from '../plan/failure-kinds';
import type { BatchPlan } from '../plan/plan-stage';
import { isOutageError, type ChainAvailability } from '../watch/chain-availability';
import type { ExecutorWallet } from '../outbox/executor-wallet';
import type { FeePolicy, TxFees } from '../outbox/fee-policy';

/**
 * What a batch not sent means for its orders: the chain unreachable or a send that did not go out are no fault of
 * theirs (RPC_ERROR delays them uncounted); a transaction the node refuses counts.
 */
const NOT_SENT_REASONS: Record<
  Exclude<Extract<RecordedSend, { kind: 'not-sent' }>['reason'], 'refused'>,
  FailureReason
> = {
  fees: 'GAS_TOO_EXPENSIVE',
  outage: 'RPC_ERROR',
  failed: 'RPC_ERROR',
  rejected: 'KEEPER_ERROR',
};

export interface SubmitStageDeps {
  chain: ChainConfig & { contracts: ChainContracts };
  client: { blockNumber(): Promise<number> };
  fees: FeePolicy;
  transactions: KeeperTransactionsRepository;
  availability: ChainAvailability;
  moves: OrderMoves;
  metrics: KeeperMetrics;
  owner: string;
  leaseMs: number;
  log: Logger;
  now: () => number;
}

function maxFeeOf(fees: TxFees): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return fees.type === 2
    ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { maxFeePerGas: fees.gasPrice, maxPriorityFeePerGas: fees.gasPrice };
}

/**
 * Sends a planned batch from one executor wallet through the outbox: the signed transaction is recorded with its
 * orders (`submitBatch`, which moves them to `submitted` only if the claim still holds them) before it goes out,
 * so a crash after the broadcast loses nothing. A batch not sent hands its orders back: released when they changed
 * under the claim, failed by the reason otherwise. Resolves whether the batch went out (or was recorded to).
 */
export class SubmitStage {
  constructor(private readonly deps: SubmitStageDeps) {}

  async run(wallet: ExecutorWallet, plan: BatchPlan, head: number): Promise<boolean> {
    const { deps } = this;
    const orders = plan.planned.map((p) => p.order);
    try {
      return await this.submit(wallet, plan, head);
    } catch (err) {
      // The store is away: nothing can be written back now, and nothing about these orders was wrong. They stay
      // under this keeper's claim until its lease ends, then are claimed again as if never tried.
      if (isStoreUnreachable(err)) throw err;
      deps.metrics.unhandledError('submit');
      deps.log.error({ err }, 'submitting a batch failed');
      await deps.moves.failAll(orders, isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR');
      return false;
    }
  }

  private async submit(wallet: ExecutorWallet, plan: BatchPlan, head: number): Promise<boolean> {
    const { deps } = this;
    const { planned, gasPrice } = plan;
    const perOrderGas = (BATCH_BASE_GAS + GAS_PER_ORDER * BigInt(planned.length)) / BigInt(planned.length);
    const fields = {
      estimateGas: perOrderGas.toString(),
      effectivePriceGas: gasPrice.toString(),
    };
    let recordedId: string | undefined;
    let conflict: string | undefined;
    const sent = await sendRecorded(wallet, plan.call, deps.fees, async (signed) => {
      const result = await deps.transactions.submitBatch(
        {
          chainId: deps.chain.chainId,
          executor: wallet.address,
          nonce: signed.nonce,
          txHash: signed.hash,
          rawTx: signed.raw,
          ...maxFeeOf(signed.fees),
          triggerBlock: head,
          // Every order as claimed, with what the plan measured for it (kinds that keep no such fields ignore them).
          orders: planned.map((p) => ({
            kind: p.order.kind,
            id: p.order.id,
            version: p.order.version,
            fields: { ...fields, allowance: p.allowance.toString() },
          })),
        },
        deps.owner,
        deps.leaseMs,
        deps.now(),
      );
      if (result.kind === 'conflict') {
        conflict = result.orders.map((o) => `${o.kind}:${o.id}`).join(', ');
        return false;
      }
      recordedId = result.transaction.id;
      return true;
    });
    if (sent.kind === 'not-sent') {
      const detail = conflict ?? sent.detail;
      deps.log.warn({ reason: sent.reason, detail }, 'batch not sent');
      const orders = planned.map((p) => p.order);
      if (sent.reason === 'refused') for (const o of orders) await deps.moves.release(o);
      else {
        if (sent.reason === 'outage') deps.availability.rpcFailed();
        await deps.moves.failAll(orders, NOT_SENT_REASONS[sent.reason]);
      }
      return false;
    }
    if (sent.kind === 'sent') {
      // The node has it: the tracker must not broadcast it again (ganache mines a re-sent pending transaction
      // twice). Replacement counts blocks from here: the head now, not the (possibly older) trigger block.
      const sentAt = await deps.client.blockNumber().catch(() => head);
      await deps.transactions.markBroadcast(recordedId!, deps.owner, sentAt, deps.now());
    }
    // `recorded`: the broadcast failed after the record; the track stage puts it out again or finds it dropped.
    deps.metrics.batchSent(deps.chain.chainId, planned.length);
    deps.metrics.transactionSent(deps.chain.chainId, false);
    planned.forEach(() => deps.metrics.executionFee(deps.chain.chainId, perOrderGas * gasPrice));
    deps.log.info(
      { txHash: sent.signed.hash, orders: planned.length, block: head, executor: wallet.address },
      'batch submitted',
    );
    return true;
  }
}
