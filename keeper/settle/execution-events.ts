import type { Log } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';

/** Ids and makers lowercase. */
export type ExecutionEvent =
  | { kind: 'executed'; onchainId: string; maker: string; amountIn: bigint; fee: bigint; amountOut: bigint }
  | { kind: 'failed'; onchainId: string; maker: string; reason: string };

/** OrderExecuted / OrderFailed events of a receipt, emitted by `orderExecutor` only (another contract's are noise). */
export function executionEvents(logs: readonly Log[], orderExecutor: string): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  const iface = orderExecutorInterface();
  for (const log of logs) {
    if (log.address.toLowerCase() !== orderExecutor.toLowerCase()) continue;
    const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
    if (parsed?.name === 'OrderExecuted') {
      events.push({
        kind: 'executed',
        onchainId: String(parsed.args.getValue('id')).toLowerCase(),
        maker: String(parsed.args.getValue('maker')).toLowerCase(),
        amountIn: parsed.args.getValue('amountIn') as bigint,
        fee: parsed.args.getValue('fee') as bigint,
        amountOut: parsed.args.getValue('amountOut') as bigint,
      });
    } else if (parsed?.name === 'OrderFailed') {
      events.push({
        kind: 'failed',
        onchainId: String(parsed.args.getValue('id')).toLowerCase(),
        maker: String(parsed.args.getValue('maker')).toLowerCase(),
        reason: String(parsed.args.getValue('reason')),
      });
    }
  }
  return events;
}

/**
 * Whether an event is one order's outcome: same on-chain id, same maker and, for an execution, the same amount
 * sold. Anything else (another maker's order under a look-alike id) is not this order's outcome.
 */
export function isEventOf(
  event: ExecutionEvent,
  identity: { onchainId: string; maker: string; amountIn: bigint },
): boolean {
  if (event.onchainId !== identity.onchainId || event.maker !== identity.maker) return false;
  return event.kind !== 'executed' || event.amountIn === identity.amountIn;
}
