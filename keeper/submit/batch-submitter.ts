import type { ChainClient } from '../../shared/chain/chain-client';
import { sanitizedError } from '../../shared/chain/rpc-errors';
import type {
  KeeperTransaction,
  KeeperTransactionsRepository,
} from '../../shared/store/repositories/keeper-transactions-repository';
import { byKind } from '../order-work';
import { encodeExecuteBatch } from '../plan/execute-batch-call';
import type { PlannedGroup } from '../plan/batch-planner';
import { BATCH_BASE_GAS, GAS_PER_ORDER, PRICE_BOUND_GAS_PER_GROUP } from '../../shared/routing/execution-fee';
import { isOutageError } from '../watch/chain-availability';
import type { ExecutorWallet } from './executor-wallet';
import type { FeePolicy, TxFees } from './fee-policy';
import { SendError } from './send-error';
import type { WalletPool } from './wallet-pool';

/** How long a batch may wait for inclusion before the contract refuses it (DEADLINE): then it is re-planned. */
export const BATCH_DEADLINE_SECONDS = 600n;
/** The pools' gas estimate is per hop and tick crossed; pools move between planning and inclusion. */
const ROUTE_GAS_FACTOR = 2n;

export type SubmitOutcome =
  | { kind: 'sent'; transaction: KeeperTransaction; gasLimit: bigint; gasEstimate: bigint; fees: TxFees }
  /**
   * Nothing broadcast; the orders are still the caller's to release. `RPC_ERROR`: the chain could not be reached
   * (simulation or fees); `REVERTED`: the simulation reverted; `SEND_FAILED`: the send found no node or was refused
   * for a reason the wallet works out (nonce, fees, funds); `REJECTED`: the node refuses the transaction itself.
   */
  | {
      kind: 'not-sent';
      reason: 'GAS_TOO_EXPENSIVE' | 'RPC_ERROR' | 'REVERTED' | 'CONFLICT' | 'SEND_FAILED' | 'REJECTED';
      detail: string;
    };

export interface SubmitContext {
  client: ChainClient;
  pool: WalletPool;
  fees: FeePolicy;
  transactions: KeeperTransactionsRepository;
  orderExecutor: string;
  owner: string;
  leaseMs: number;
  now: () => number;
}

function maxFeeOf(fees: TxFees): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return fees.type === 2
    ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { maxFeePerGas: fees.gasPrice, maxPriorityFeePerGas: fees.gasPrice };
}

/**
 * Sends one OrderExecutor batch from `wallet`. Its gas limit comes from the per-order model (generous: unused gas
 * is not paid, and a group starved of gas would fail as SWAP_FAILED rather than revert); the batch is simulated
 * once with eth_call from the executor at that limit (a whole-batch revert shows here, never on-chain; one EVM run,
 * where eth_estimateGas's search runs the batch many times). Fees come from the chain under the cap, and the
 * signed transaction is recorded with its orders (submitBatch) before it is broadcast, so a crash after the
 * broadcast loses nothing.
 */
export async function submitBatch(
  ctx: SubmitContext,
  wallet: ExecutorWallet,
  groups: readonly PlannedGroup[],
  chainTime: bigint,
  triggerBlock: number,
  fieldsOf: (orderId: string) => { allowance: string; estimateGas: string; effectivePriceGas: string },
): Promise<SubmitOutcome> {
  const data = encodeExecuteBatch(
    groups.map((g) => g.group),
    chainTime + BATCH_DEADLINE_SECONDS,
  );
  const orderCount = BigInt(groups.reduce((n, g) => n + g.orders.length, 0));
  const routeGas = groups.reduce((sum, g) => sum + g.gasEstimate, 0n);
  const gasEstimate =
    BATCH_BASE_GAS +
    GAS_PER_ORDER * orderCount +
    ROUTE_GAS_FACTOR * routeGas +
    PRICE_BOUND_GAS_PER_GROUP * BigInt(groups.length);
  try {
    await ctx.client.call({ from: wallet.address, to: ctx.orderExecutor, data, gasLimit: gasEstimate });
  } catch (err) {
    const detail = `simulation: ${sanitizedError(err).message}`;
    return { kind: 'not-sent', reason: isOutageError(err) ? 'RPC_ERROR' : 'REVERTED', detail };
  }
  const decision = await ctx.fees.current().catch((err: unknown) => err as Error);
  if (decision instanceof Error) return { kind: 'not-sent', reason: 'RPC_ERROR', detail: decision.message };
  if (decision.kind === 'too-expensive') {
    return {
      kind: 'not-sent',
      reason: 'GAS_TOO_EXPENSIVE',
      detail: `needs ${decision.neededPerGas} wei/gas, cap ${decision.capPerGas}`,
    };
  }
  const fees = decision.fees;
  const gasLimit = gasEstimate;
  const orders = groups.flatMap((g) => g.orders);
  const ofKind = new Map(
    [...byKind(orders.map((p) => p.order))].map(([kind, list]) => [
      kind,
      list.map((o) => ({ id: o.id, version: o.version })),
    ]),
  );
  let recorded: KeeperTransaction | undefined;
  let conflict: string | undefined;
  try {
    await ctx.pool.send(wallet, { to: ctx.orderExecutor, data, gasLimit }, fees, {
      beforeBroadcast: async (signed) => {
        const result = await ctx.transactions.submitBatch(
          {
            chainId: ctx.client.chainId,
            executor: wallet.address,
            nonce: signed.nonce,
            txHash: signed.hash,
            rawTx: signed.raw,
            ...maxFeeOf(fees),
            triggerBlock,
            // Every order as claimed, with what the plan measured for it (kinds that keep no such fields ignore them).
            limitOrders: (ofKind.get('limit') ?? []).map((o) => ({ ...o, ...fieldsOf(o.id) })),
            dcaOrders: ofKind.get('dca') ?? [],
          },
          ctx.owner,
          ctx.leaseMs,
          ctx.now(),
        );
        if (result.kind === 'conflict') {
          conflict = [...result.limitOrderIds, ...result.dcaOrderIds].join(', ');
          throw new Error('orders changed under the claim');
        }
        recorded = result.transaction;
      },
    });
  } catch (err) {
    if (conflict !== undefined) return { kind: 'not-sent', reason: 'CONFLICT', detail: conflict };
    // Recorded but the broadcast failed: the row is the tracker's now (it re-broadcasts or finds it dropped).
    if (recorded) return { kind: 'sent', transaction: recorded, gasLimit, gasEstimate, fees };
    const detail = err instanceof SendError ? `${err.kind}: ${err.message}` : (err as Error).message;
    if (isOutageError(err)) return { kind: 'not-sent', reason: 'RPC_ERROR', detail };
    const rejected = err instanceof SendError && err.kind === 'rejected';
    return { kind: 'not-sent', reason: rejected ? 'REJECTED' : 'SEND_FAILED', detail };
  }
  if (!recorded) return { kind: 'not-sent', reason: 'SEND_FAILED', detail: 'nothing recorded' };
  // The node has it: the tracker must not broadcast it again (ganache mines a re-sent pending transaction twice).
  // Replacement counts blocks from here: the head now, not the (possibly much older) trigger block.
  const sentAt = await ctx.client.blockNumber().catch(() => triggerBlock);
  await ctx.transactions.markBroadcast(recorded.id, ctx.owner, sentAt, ctx.now());
  return { kind: 'sent', transaction: recorded, gasLimit, gasEstimate, fees };
}
