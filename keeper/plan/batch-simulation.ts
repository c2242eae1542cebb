import type { ChainClient } from '../../shared/chain/chain-client';
import { sanitizedError } from '../../shared/chain/rpc-errors';
import { BATCH_BASE_GAS, GAS_PER_ORDER, PRICE_BOUND_GAS_PER_GROUP } from '../../shared/routing/execution-fee';
import type { TxRequest } from '../outbox/executor-wallet';
import { isOutageError } from '../watch/chain-availability';
import type { PlannedGroup } from './batch-planner';
import { encodeExecuteBatch, withExecutionIndices } from './execute-batch-call';

/** How long a batch may wait for inclusion before the contract refuses it (DEADLINE): then it is re-planned. */
export const BATCH_DEADLINE_SECONDS = 600n;
/** The pools' gas estimate is per hop and tick crossed; pools move between planning and inclusion. */
const ROUTE_GAS_FACTOR = 2n;

export type SimulatedBatch =
  | { ok: true; call: TxRequest }
  /** `RPC_ERROR`: the chain could not be reached; `REVERTED`: the batch as a whole reverts. */
  | { ok: false; reason: 'RPC_ERROR' | 'REVERTED'; detail: string };

/**
 * The OrderExecutor call of a planned batch, simulated. Its gas limit comes from the per-order model (generous:
 * unused gas is not paid, and a group starved of gas would fail as SWAP_FAILED rather than revert); the batch runs
 * once with eth_call from the executor that will send it, at that limit: a whole-batch revert shows here, never
 * on-chain (one EVM run, where eth_estimateGas's search runs the batch many times).
 */
export async function simulateBatch(
  client: ChainClient,
  orderExecutor: string,
  from: string,
  groups: readonly PlannedGroup[],
  chainTime: bigint,
): Promise<SimulatedBatch> {
  const data = encodeExecuteBatch(
    groups.map((g) =>
      withExecutionIndices(
        g.group,
        g.orders.map((p) => p.order),
      ),
    ),
    chainTime + BATCH_DEADLINE_SECONDS,
  );
  const orderCount = BigInt(groups.reduce((n, g) => n + g.orders.length, 0));
  const routeGas = groups.reduce((sum, g) => sum + g.gasEstimate, 0n);
  const gasLimit =
    BATCH_BASE_GAS +
    GAS_PER_ORDER * orderCount +
    ROUTE_GAS_FACTOR * routeGas +
    PRICE_BOUND_GAS_PER_GROUP * BigInt(groups.length);
  try {
    await client.call({ from, to: orderExecutor, data, gasLimit });
  } catch (err) {
    const detail = `simulation: ${sanitizedError(err).message}`;
    return { ok: false, reason: isOutageError(err) ? 'RPC_ERROR' : 'REVERTED', detail };
  }
  return { ok: true, call: { to: orderExecutor, data, gasLimit } };
}
