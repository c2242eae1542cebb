import type { ChainClient } from '../../shared/chain/chain-client';
import {
  decodeBatchGasReport,
  encodeExecuteBatchCalldata,
  encodeExecuteBudgetedBatchCalldata,
  type BatchGasReport,
} from '../../shared/chain/execute-batch-calldata';
import { sanitizedError } from '../../shared/chain/rpc-errors';
import { BATCH_BASE_GAS, GAS_PER_ORDER, PRICE_BOUND_GAS_PER_GROUP } from '../../shared/routing/execution-fee';
import type { TxRequest } from '../outbox/executor-wallet';
import { isOutageError } from '../watch/chain-availability';
import type { PlannedGroup } from './batch-planner';
import { l1DataGas } from './l1-data-gas';
import { encodeBatchGroups, withExecutionIndices } from './execute-batch-call';

/** How long a batch may wait for inclusion before the contract refuses it (DEADLINE): then it is re-planned. */
export const BATCH_DEADLINE_SECONDS = 600n;
/** The pools' gas estimate is per hop and tick crossed; pools move between planning and inclusion. */
const ROUTE_GAS_FACTOR = 2n;

export type SimulatedBatch =
  | { ok: true; call: TxRequest }
  /** `RPC_ERROR`: the chain could not be reached; `REVERTED`: the batch as a whole reverts. */
  | { ok: false; reason: 'RPC_ERROR' | 'REVERTED'; detail: string };

/** A group's budget over what the simulation saw it use: pools move and makers change until inclusion. */
const BUDGET_NUMERATOR = 6n;
const BUDGET_DENOMINATOR = 5n;
/** The budget's fixed slack (beyond the group's route estimate), for a group that used little. */
const BUDGET_SLACK = 20_000n;
/** Mirrors OrderExecutor.SETTLE_CALL_GAS: what a settlement call costs beyond its budget and the 1/64 it keeps. */
const SETTLE_CALL_GAS = 5_000n;
/**
 * The gas limit's margin over the simulation's own figures: the contract's entry before its measurement starts
 * (ABI decoding, the reentrancy guard's store) and the budgets' longer calldata.
 */
const ENTRY_GAS = 40_000n;
/**
 * The simulation runs at twice the per-order model's limit, up to a block's worth (the model is not used for the
 * transaction any more: a generous simulation only makes sure no group is starved there, which would report a
 * figure the budgets cannot be set from). eth_call gas is not paid.
 */
const SIMULATION_GAS_CAP = 30_000_000n;
/** The simulation's gas outside the settlements is counted a tenth over: order checks read what may change. */
const OUTSIDE_NUMERATOR = 11n;
const OUTSIDE_DENOMINATOR = 10n;

/**
 * What a transaction with this calldata pays before any execution (EIP-2028), and the least it pays in all
 * (EIP-7623's floor for calldata-heavy transactions, where the chain has it).
 */
export function calldataGas(data: string): { intrinsic: bigint; floor: bigint } {
  let zero = 0n;
  let nonZero = 0n;
  for (let i = 2; i < data.length; i += 2) {
    if (data.charCodeAt(i) === 48 && data.charCodeAt(i + 1) === 48) zero += 1n;
    else nonZero += 1n;
  }
  return { intrinsic: 21_000n + 4n * zero + 16n * nonZero, floor: 21_000n + 10n * (zero + 4n * nonZero) };
}

/** The gas a group's settlement is given: what the simulation saw it use and some over, or the model's. */
export function groupBudget(simulated: bigint, orders: number, routeGas: bigint): bigint {
  if (simulated <= 0n) return GAS_PER_ORDER * BigInt(orders) + ROUTE_GAS_FACTOR * routeGas;
  return (simulated * BUDGET_NUMERATOR) / BUDGET_DENOMINATOR + routeGas + BUDGET_SLACK;
}

/** What a settlement call needs of the gas left for its budget to be passed on whole (OrderExecutor._callGas). */
function callGas(budget: bigint): bigint {
  return budget + budget / 63n + 1n + SETTLE_CALL_GAS;
}

/**
 * The OrderExecutor call of a planned batch, simulated, then budgeted. The simulation runs executeBatch once with
 * eth_call from the executor that will send it, at twice the per-order model's limit (see SIMULATION_GAS_CAP): a whole-batch revert
 * shows here, never on-chain (one EVM run, where eth_estimateGas's search runs the batch many times), and the
 * contract reports the gas of each group's settlement. The transaction is executeBudgetedBatch: each group gets a
 * budget a fifth over what it used here, and the gas limit covers the rest of the simulation's gas and every budget
 * whole. A group that needs more than its budget fails alone (SWAP_FAILED, backed off); a limit too low for the
 * budgets reverts the whole batch (nothing executes): the limit can sit near what the batch uses, so a block
 * builder that packs by gas limits fits as many of our batches as their gas allows. On a chain that counts L1 data
 * in L2 gas (Arbitrum), the node's figure for that part is added a quarter over.
 */
export async function simulateBatch(
  client: ChainClient,
  chainId: number,
  orderExecutor: string,
  from: string,
  groups: readonly PlannedGroup[],
  chainTime: bigint,
): Promise<SimulatedBatch> {
  const encoded = encodeBatchGroups(
    groups.map((g) =>
      withExecutionIndices(
        g.group,
        g.orders.map((p) => p.order),
      ),
    ),
  );
  const deadline = chainTime + BATCH_DEADLINE_SECONDS;
  const data = encodeExecuteBatchCalldata(encoded, deadline);
  const orderCount = BigInt(groups.reduce((n, g) => n + g.orders.length, 0));
  const routeGas = groups.reduce((sum, g) => sum + g.gasEstimate, 0n);
  const modelLimit =
    BATCH_BASE_GAS +
    GAS_PER_ORDER * orderCount +
    ROUTE_GAS_FACTOR * routeGas +
    PRICE_BOUND_GAS_PER_GROUP * BigInt(groups.length);
  // Twice the model, held to the cap, never under the model itself.
  const capped = modelLimit * 2n < SIMULATION_GAS_CAP ? modelLimit * 2n : SIMULATION_GAS_CAP;
  const simulationGas = capped > modelLimit ? capped : modelLimit;
  let report: BatchGasReport;
  try {
    report = decodeBatchGasReport(
      await client.call({ from, to: orderExecutor, data, gasLimit: simulationGas }),
    );
  } catch (err) {
    const detail = `simulation: ${sanitizedError(err).message}`;
    return { ok: false, reason: isOutageError(err) ? 'RPC_ERROR' : 'REVERTED', detail };
  }
  const budgets = groups.map((g, i) => groupBudget(report.groupGas[i] ?? 0n, g.orders.length, g.gasEstimate));
  const settled = report.groupGas.reduce((sum, gas) => sum + gas, 0n);
  const outside = report.gasUsed > settled ? report.gasUsed - settled : 0n;
  const budgeted = encodeExecuteBudgetedBatchCalldata(encoded, deadline, budgets);
  const { intrinsic, floor } = calldataGas(budgeted);
  const execution =
    (outside * OUTSIDE_NUMERATOR) / OUTSIDE_DENOMINATOR +
    budgets.reduce((sum, b) => sum + callGas(b), 0n) +
    ENTRY_GAS;
  let l1Gas: bigint;
  try {
    l1Gas = await l1DataGas(client, chainId, from, orderExecutor, budgeted);
  } catch (err) {
    const detail = `L1 data gas: ${sanitizedError(err).message}`;
    return { ok: false, reason: isOutageError(err) ? 'RPC_ERROR' : 'REVERTED', detail };
  }
  const l2Gas = intrinsic + execution > floor ? intrinsic + execution : floor;
  // The L1 part follows the L1 fee until inclusion: counted a quarter over.
  const gasLimit = l2Gas + (l1Gas * 5n) / 4n;
  return { ok: true, call: { to: orderExecutor, data: budgeted, gasLimit } };
}
