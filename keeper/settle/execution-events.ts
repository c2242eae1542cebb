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
 * The event of one order of a batch: same on-chain id, same maker and, for an execution, the same amount sold.
 * Anything else (another maker's order under a look-alike id) is not this order's outcome.
 */
export function eventOf(
  events: ReadonlyMap<string, ExecutionEvent>,
  identity: { onchainId: string; maker: string; amountIn: bigint } | undefined,
): ExecutionEvent | undefined {
  if (!identity) return undefined;
  const event = events.get(identity.onchainId);
  if (!event || event.maker !== identity.maker) return undefined;
  if (event.kind === 'executed' && event.amountIn !== identity.amountIn) return undefined;
  return event;
}
