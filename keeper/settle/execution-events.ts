import { id, type Log } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';

/** The on-chain id of a service order or DCA iteration: keccak256 of its id string (the keeper's convention). */
export const onchainOrderId = (serviceId: string): string => id(serviceId);

export type ExecutionEvent =
  | { kind: 'executed'; onchainId: string; amountIn: bigint; fee: bigint; amountOut: bigint }
  | { kind: 'failed'; onchainId: string; reason: string };

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
        amountIn: parsed.args.getValue('amountIn') as bigint,
        fee: parsed.args.getValue('fee') as bigint,
        amountOut: parsed.args.getValue('amountOut') as bigint,
      });
    } else if (parsed?.name === 'OrderFailed') {
      events.push({
        kind: 'failed',
        onchainId: String(parsed.args.getValue('id')).toLowerCase(),
        reason: String(parsed.args.getValue('reason')),
      });
    }
  }
  return events;
}
