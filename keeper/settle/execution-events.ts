import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';

/** Ids and makers lowercase. */
export type ExecutionEvent =
  | { kind: 'executed'; onchainId: string; maker: string; amountIn: bigint; fee: bigint; amountOut: bigint }
  | { kind: 'failed'; onchainId: string; maker: string; reason: string };

/** A log as the node sends it. */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
}

let executedTopic: string | undefined;

/**
 * OrderExecuted(bytes32 indexed id, address indexed maker, uint256 amountIn, uint256 fee, uint256 amountOut), read
 * from its words (a batch's receipt holds one per order; ethers' parseLog hashed the event's signature for each).
 * Undefined for any other log or a malformed one.
 */
function executedEvent(log: RawLog): ExecutionEvent | undefined {
  executedTopic ??= orderExecutorInterface().getEvent('OrderExecuted')!.topicHash;
  if (log.topics.length !== 3 || log.topics[0]!.toLowerCase() !== executedTopic) return undefined;
  if (!/^0x[0-9a-fA-F]{192}$/.test(log.data)) return undefined;
  const word = (i: number): bigint => BigInt(`0x${log.data.slice(2 + i * 64, 2 + (i + 1) * 64)}`);
  return {
    kind: 'executed',
    onchainId: log.topics[1]!.toLowerCase(),
    maker: `0x${log.topics[2]!.slice(-40).toLowerCase()}`,
    amountIn: word(0),
    fee: word(1),
    amountOut: word(2),
  };
}

/** OrderExecuted / OrderFailed events of a receipt, emitted by `orderExecutor` only (another contract's are noise). */
export function executionEvents(logs: readonly RawLog[], orderExecutor: string): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  const iface = orderExecutorInterface();
  const executor = orderExecutor.toLowerCase();
  for (const log of logs) {
    if (log.address.toLowerCase() !== executor) continue;
    const executed = executedEvent(log);
    if (executed) {
      events.push(executed);
      continue;
    }
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
