import type { ChainClient } from '../../shared/chain/chain-client';
import type { ChainConfig, ChainContracts } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import type { KeeperTransactionsRepository } from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderMoves } from '../order-moves';
import type { FailureReason } from '../plan/failure-kinds';
import { BATCH_BASE_GAS, GAS_PER_ORDER } from '../../shared/routing/execution-fee';
import type { BatchPlan } from '../plan/plan-stage';
import { isOutageError, type ChainAvailability } from '../watch/chain-availability';
import { submitBatch, type SubmitOutcome } from './batch-submitter';
import type { ExecutorWallet } from './executor-wallet';
import type { FeePolicy } from './fee-policy';
import type { WalletPool } from './wallet-pool';

/**
 * What a batch not sent means for its orders: the chain unreachable or a send that did not go out are no fault of
 * theirs (RPC_ERROR delays them uncounted); a reverting simulation or a transaction the node refuses counts.
 */
const NOT_SENT_REASONS: Record<
  Exclude<Extract<SubmitOutcome, { kind: 'not-sent' }>['reason'], 'CONFLICT'>,
  FailureReason
> = {
  GAS_TOO_EXPENSIVE: 'GAS_TOO_EXPENSIVE',
  RPC_ERROR: 'RPC_ERROR',
  SEND_FAILED: 'RPC_ERROR',
  REVERTED: 'TRANSACTION_REVERTED',
  REJECTED: 'KEEPER_ERROR',
};

export interface SubmitStageDeps {
  chain: ChainConfig & { contracts: ChainContracts };
  client: ChainClient;
  pool: WalletPool;
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

/**
 * Sends a planned batch from one executor wallet (recorded with its orders before the broadcast). A batch not
 * sent hands its orders back: released when they changed under the claim, failed by the reason otherwise.
 * Resolves whether the batch went out.
 */
export class SubmitStage {
  constructor(private readonly deps: SubmitStageDeps) {}

  async run(wallet: ExecutorWallet, plan: BatchPlan, head: number, now: number): Promise<boolean> {
    const { deps } = this;
    const orders = plan.planned.map((p) => p.order);
    try {
      return await this.submit(wallet, plan, head, now);
    } catch (err) {
      deps.metrics.unhandledError('submit');
      deps.log.error({ err }, 'submitting a batch failed');
      await deps.moves.failAll(orders, isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR');
      return false;
    }
  }

  private async submit(wallet: ExecutorWallet, plan: BatchPlan, head: number, now: number): Promise<boolean> {
    const { deps } = this;
    const { planned, gasPrice } = plan;
    const perOrderGas = (BATCH_BASE_GAS + GAS_PER_ORDER * BigInt(planned.length)) / BigInt(planned.length);
    const block = await deps.client.getBlock('latest').catch(() => null);
    const chainTime = BigInt(Math.max(block?.timestamp ?? 0, Math.floor(now / 1000)));
    const fields = new Map(
      planned.map((p) => [
        p.order.id,
        {
          allowance: p.allowance.toString(),
          estimateGas: perOrderGas.toString(),
          effectivePriceGas: gasPrice.toString(),
        },
      ]),
    );
    const outcome = await submitBatch(
      {
        client: deps.client,
        pool: deps.pool,
        fees: deps.fees,
        transactions: deps.transactions,
        orderExecutor: deps.chain.contracts.orderExecutor,
        owner: deps.owner,
        leaseMs: deps.leaseMs,
        now: deps.now,
      },
      wallet,
      plan.groups,
      chainTime,
      head,
      (id) => fields.get(id)!,
    );
    if (outcome.kind === 'not-sent') {
      deps.log.warn({ reason: outcome.reason, detail: outcome.detail }, 'batch not sent');
      const orders = planned.map((p) => p.order);
      if (outcome.reason === 'CONFLICT') for (const o of orders) await deps.moves.release(o);
      else {
        if (outcome.reason === 'RPC_ERROR') deps.availability.rpcFailed();
        await deps.moves.failAll(orders, NOT_SENT_REASONS[outcome.reason]);
      }
      return false;
    }
    deps.metrics.batchSent(deps.chain.chainId, planned.length);
    deps.metrics.transactionSent(deps.chain.chainId, false);
    planned.forEach(() => deps.metrics.executionFee(deps.chain.chainId, perOrderGas * gasPrice));
    deps.log.info(
      { txHash: outcome.transaction.txHash, orders: planned.length, block: head, executor: wallet.address },
      'batch submitted',
    );
    return true;
  }
}
