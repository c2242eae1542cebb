import { formatUnits, Transaction } from 'ethers';
import type {
  KeeperTransaction,
  OrderOutcome,
  TransactionOrder,
} from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperOrderKind, OrderSuccess } from '../../shared/store/repositories/keeper-order-repository';
import { workOf, type OrderWorks, type TokenPairDecimals } from '../order-work';
import { decideFailure } from '../plan/failure-kinds';
import { orderRefOf } from '../../shared/domain/pair-authorization';
import { batchOrderIdentities } from '../plan/execute-batch-call';
import { isEventOf, type ExecutionEvent } from './execution-events';

type ExecutedEvent = Extract<ExecutionEvent, { kind: 'executed' }>;

async function attemptNumber(works: OrderWorks, kind: KeeperOrderKind, id: string): Promise<number> {
  return (await workOf(works, kind).repository.findById(id))?.attemptNumber ?? 0;
}

/** The orders a keeper transaction carries, each with its kind. */
export function ordersOfTransaction(tx: Pick<KeeperTransaction, 'orders'>): readonly TransactionOrder[] {
  return tx.orders;
}

/** An OrderExecuted event's amounts as the orders report them (JSON numbers of whole tokens; 0 when unknown). */
export function executedAmounts(
  event: ExecutedEvent | undefined,
  decimals: TokenPairDecimals | undefined,
): Required<Omit<OrderSuccess, 'transactionHash'>> {
  if (!event || !decimals) return { amountReceived: 0, executionPrice: 0 };
  const received = Number(formatUnits(event.amountOut, decimals.decimalsOut));
  const sold = Number(formatUnits(event.amountIn, decimals.decimalsIn));
  return { amountReceived: received, executionPrice: sold > 0 ? received / sold : 0 };
}

export interface SettledOrder {
  kind: KeeperOrderKind;
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
  tx: Pick<KeeperTransaction, 'orders' | 'rawTx'>,
  events: readonly ExecutionEvent[],
  works: OrderWorks,
  nowMs: number,
): Promise<{ outcomes: OrderOutcome[]; settled: SettledOrder[] }> {
  const byId = new Map(events.map((e) => [e.onchainId, e]));
  const identities = batchOrderIdentities(Transaction.from(tx.rawTx).data);
  const eventFor = (id: string): ExecutionEvent | undefined => {
    const identity = identities.get(orderRefOf(id).toLowerCase());
    const event = identity && byId.get(identity.onchainId);
    return event && isEventOf(event, identity) ? event : undefined;
  };
  const settled: SettledOrder[] = [];
  const outcomes: OrderOutcome[] = [];
  for (const { kind, id } of tx.orders) {
    const event = eventFor(id);
    if (event?.kind === 'executed') {
      // An executed order is executed even when its tokens' decimals are gone from the list (amounts then 0).
      const success = executedAmounts(event, await workOf(works, kind).decimals(id));
      outcomes.push({ kind, id, outcome: 'executed', success });
      settled.push({ kind, id, result: 'executed' });
      continue;
    }
    const reason = event?.kind === 'failed' ? event.reason : 'TRANSACTION_REVERTED';
    const decision = decideFailure(reason, await attemptNumber(works, kind, id), nowMs);
    outcomes.push({
      kind,
      id,
      outcome: 'failed',
      reason,
      final: decision.final,
      nextAttemptAt: decision.nextAttemptAt,
    });
    settled.push({ kind, id, result: 'failed', reason, final: decision.final });
  }
  return { outcomes, settled };
}
