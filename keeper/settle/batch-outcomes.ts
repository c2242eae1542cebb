import { formatUnits } from 'ethers';
import type {
  BatchOutcomes,
  DcaOrderOutcome,
  KeeperTransaction,
  LimitOrderOutcome,
} from '../../shared/store/repositories/keeper-transactions-repository';
import { decideFailure } from '../plan/failure-kinds';
import type { ExecutionEvent } from './execution-events';
import { onchainOrderId } from './execution-events';

export interface OrderFacts {
  attemptNumber(kind: 'limit' | 'dca', id: string): Promise<number>;
  /** Decimals of a DCA order's tokens (to report amounts as JSON numbers). */
  dcaDecimals(id: string): Promise<{ decimalsIn: number; decimalsOut: number } | undefined>;
}

export interface SettledOrder {
  kind: 'limit' | 'dca';
  id: string;
  result: 'executed' | 'failed';
  reason?: string;
  final?: boolean;
}

/**
 * The outcome of every order of a mined batch from its receipt's events (the contract is the truth). An order
 * without an event (the whole transaction reverted) failed with TRANSACTION_REVERTED, which backs off.
 */
export async function batchOutcomes(
  tx: KeeperTransaction,
  events: readonly ExecutionEvent[],
  facts: OrderFacts,
  nowMs: number,
): Promise<{ outcomes: BatchOutcomes; settled: SettledOrder[] }> {
  const byId = new Map(events.map((e) => [e.onchainId, e]));
  const settled: SettledOrder[] = [];
  const limitOrders: LimitOrderOutcome[] = [];
  for (const id of tx.limitOrderIds) {
    const event = byId.get(onchainOrderId(id).toLowerCase());
    if (event?.kind === 'executed') {
      limitOrders.push({ id, kind: 'completed' });
      settled.push({ kind: 'limit', id, result: 'executed' });
      continue;
    }
    const reason = event?.kind === 'failed' ? event.reason : 'TRANSACTION_REVERTED';
    const decision = decideFailure(reason, await facts.attemptNumber('limit', id), nowMs);
    limitOrders.push({
      id,
      kind: 'failed',
      reason,
      final: decision.final,
      nextAttemptAt: decision.nextAttemptAt,
    });
    settled.push({ kind: 'limit', id, result: 'failed', reason, final: decision.final });
  }
  const dcaOrders: DcaOrderOutcome[] = [];
  for (const id of tx.dcaOrderIds) {
    const event = byId.get(onchainOrderId(id).toLowerCase());
    const decimals = await facts.dcaDecimals(id);
    if (event?.kind === 'executed' && decimals) {
      const received = Number(formatUnits(event.amountOut, decimals.decimalsOut));
      const sold = Number(formatUnits(event.amountIn, decimals.decimalsIn));
      dcaOrders.push({
        id,
        kind: 'successful',
        amountReceived: received,
        executionPrice: sold > 0 ? received / sold : 0,
      });
      settled.push({ kind: 'dca', id, result: 'executed' });
      continue;
    }
    const reason = event?.kind === 'failed' ? event.reason : 'TRANSACTION_REVERTED';
    const decision = decideFailure(reason, await facts.attemptNumber('dca', id), nowMs);
    dcaOrders.push({
      id,
      kind: 'error',
      message: reason,
      final: decision.final,
      nextAttemptAt: decision.nextAttemptAt,
    });
    settled.push({ kind: 'dca', id, result: 'failed', reason, final: decision.final });
  }
  return { outcomes: { limitOrders, dcaOrders }, settled };
}
