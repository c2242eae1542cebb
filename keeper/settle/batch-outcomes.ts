import { formatUnits } from 'ethers';
import { calldataOfRawTransaction } from '../../shared/chain/raw-transaction-data';
import type {
  KeeperTransaction,
  OrderOutcome,
  TransactionOrder,
} from '../../shared/store/repositories/keeper-transactions-repository';
import type { KeeperOrderKind, OrderSuccess } from '../../shared/store/repositories/keeper-order-repository';
import { byKind, workOf, type OrderWorks, type SettlementFacts, type TokenPairDecimals } from '../order-work';
import { decideFailure } from '../plan/failure-kinds';
import { orderRefOf } from '../../shared/domain/pair-authorization';
import { batchOrderIdentities } from '../plan/execute-batch-call';
import { isEventOf, type ExecutionEvent } from './execution-events';

type ExecutedEvent = Extract<ExecutionEvent, { kind: 'executed' }>;

/** The settlement facts of a transaction's orders, one read per kind. */
async function settlementFactsOf(
  orders: readonly TransactionOrder[],
  works: OrderWorks,
): Promise<Map<KeeperOrderKind, Map<string, SettlementFacts>>> {
  const facts = new Map<KeeperOrderKind, Map<string, SettlementFacts>>();
  for (const [kind, ofKind] of byKind(orders)) {
    facts.set(kind, await workOf(works, kind).settlementFacts(ofKind.map((o) => o.id)));
  }
  return facts;
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
  const identities = batchOrderIdentities(calldataOfRawTransaction(tx.rawTx));
  const eventFor = (id: string): ExecutionEvent | undefined => {
    const identity = identities.get(orderRefOf(id).toLowerCase());
    const event = identity && byId.get(identity.onchainId);
    return event && isEventOf(event, identity) ? event : undefined;
  };
  const settled: SettledOrder[] = [];
  const outcomes: OrderOutcome[] = [];
  const facts = await settlementFactsOf(tx.orders, works);
  for (const { kind, id } of tx.orders) {
    const event = eventFor(id);
    const fact = facts.get(kind)?.get(id);
    if (event?.kind === 'executed') {
      // An executed order is executed even when its tokens' decimals are gone from the list (amounts then 0).
      const success = executedAmounts(event, fact?.decimals);
      outcomes.push({ kind, id, outcome: 'executed', success });
      settled.push({ kind, id, result: 'executed' });
      continue;
    }
    const reason = event?.kind === 'failed' ? event.reason : 'TRANSACTION_REVERTED';
    const decision = decideFailure(reason, fact?.attemptNumber ?? 0, nowMs);
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
