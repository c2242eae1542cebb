import type { ChainClient } from '../../shared/chain/chain-client';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import { multicall } from '../../shared/chain/multicall';
import type { ExecutionOrder } from './execution-order';

export interface Funding {
  balance: bigint;
  allowance: bigint;
}

/** Funding is per maker and sold token: `${maker}|${token}`, both lowercase. */
export const fundingKey = (maker: string, token: string): string =>
  `${maker.toLowerCase()}|${token.toLowerCase()}`;

/** An order to fund: its execution fee, and whatever else the caller carries along (kept in `funded`). */
export interface FeeOrder {
  order: ExecutionOrder;
  fee: bigint;
}

/** An order its maker's balance or allowance does not cover now: what it needs and what there is, in base units. */
export interface ShortOrder {
  order: ExecutionOrder;
  /** The failure reason should the order stop waiting (a DCA iteration at the end of its window). */
  reason: 'INSUFFICIENT_BALANCE' | 'INSUFFICIENT_ALLOWANCE';
  /** amount + fee of this order and of the maker's orders of the token admitted before it in the batch. */
  required: bigint;
  available: bigint;
}

export interface FundingVerdict<T extends FeeOrder = FeeOrder> {
  funded: (T & { allowance: bigint })[];
  /** Short of balance or allowance now: they wait in `pending` for the maker to fund them (see fundingRecheckDelay). */
  short: ShortOrder[];
  /**
   * Covered by the chain's state now, but not once the maker's orders in our batches still in flight (sent, not
   * mined) are pulled: back to pending until those are mined, then judged again on the state they leave.
   */
  waiting: ExecutionOrder[];
}

async function read(client: ChainClient, token: string, fn: string, args: unknown[]): Promise<bigint> {
  const data = await client.call({ to: token, data: erc20Interface().encodeFunctionData(fn, args) });
  return erc20Interface().decodeFunctionResult(fn, data)[0] as bigint;
}

/**
 * Each maker's balance and allowance to the OrderExecutor must cover amount plus fee summed over the maker's open
 * orders of that token: those of this batch, and those in batches in flight (`inFlight`, by fundingKey), which the
 * chain's state does not show yet. Orders are admitted oldest claim first, so a maker who funded some orders gets
 * those executed and only the rest wait. An order the state cannot cover even without the in-flight pulls is
 * `short` (it waits for the maker: an approval or a deposit); one that only the in-flight pulls leave short is
 * `waiting` (for those to be mined), so a batch mined but not yet tracked never makes an order wait for the maker.
 */
export function judgeFunding<T extends FeeOrder>(
  orders: readonly T[],
  funding: ReadonlyMap<string, Funding>,
  inFlight: ReadonlyMap<string, bigint> = new Map(),
): FundingVerdict<T> {
  const verdict: FundingVerdict<T> = { funded: [], short: [], waiting: [] };
  const used = new Map<string, bigint>();
  for (const item of orders) {
    const { order, fee } = item;
    const key = fundingKey(order.maker, order.tokenIn);
    const { balance, allowance } = funding.get(key)!;
    const need = (used.get(key) ?? 0n) + order.amountIn + fee;
    const pending = inFlight.get(key) ?? 0n;
    if (balance < need)
      verdict.short.push({ order, reason: 'INSUFFICIENT_BALANCE', required: need, available: balance });
    else if (allowance < need)
      verdict.short.push({ order, reason: 'INSUFFICIENT_ALLOWANCE', required: need, available: allowance });
    else if (balance < need + pending || allowance < need + pending) verdict.waiting.push(order);
    else {
      used.set(key, need);
      verdict.funded.push({ ...item, allowance });
    }
  }
  return verdict;
}

/**
 * The balance and allowance (to the OrderExecutor) of every maker and token the orders pull, read now: through
 * `multicallAddress` in one eth_call per 100 makers and tokens when given (a batch of hundreds of makers would
 * otherwise be hundreds of round trips), else one eth_call per read. A read that fails throws.
 */
export async function readFunding(
  client: ChainClient,
  orderExecutor: string,
  orders: readonly FeeOrder[],
  multicallAddress?: string,
): Promise<Map<string, Funding>> {
  const keys = [...new Set(orders.map(({ order }) => fundingKey(order.maker, order.tokenIn)))];
  const funding = new Map<string, Funding>();
  const reads = keys.flatMap((key) => {
    const [maker, token] = key.split('|') as [string, string];
    return [
      { token, fn: 'balanceOf', args: [maker] },
      { token, fn: 'allowance', args: [maker, orderExecutor] },
    ];
  });
  const values = multicallAddress
    ? await readAll(client, multicallAddress, reads)
    : await Promise.all(reads.map((r) => read(client, r.token, r.fn, r.args)));
  keys.forEach((key, i) => funding.set(key, { balance: values[2 * i]!, allowance: values[2 * i + 1]! }));
  return funding;
}

async function readAll(
  client: ChainClient,
  multicallAddress: string,
  reads: readonly { token: string; fn: string; args: unknown[] }[],
): Promise<bigint[]> {
  const iface = erc20Interface();
  const { results } = await multicall(
    client,
    multicallAddress,
    reads.map((r) => ({ target: r.token, callData: iface.encodeFunctionData(r.fn, r.args) })),
    { chunkSize: 200 },
  );
  return results.map((result, i) => {
    const { token, fn } = reads[i]!;
    if (!result.success) throw new Error(`${fn} of token ${token} reverted`);
    return iface.decodeFunctionResult(fn, result.returnData)[0] as bigint;
  });
}

/** judgeFunding on balances and allowances read from the chain now. RPC failures throw. */
export async function checkFunding<T extends FeeOrder>(
  client: ChainClient,
  orderExecutor: string,
  orders: readonly T[],
  inFlight: ReadonlyMap<string, bigint> = new Map(),
  multicallAddress?: string,
): Promise<FundingVerdict<T>> {
  return judgeFunding(orders, await readFunding(client, orderExecutor, orders, multicallAddress), inFlight);
}

/** What the orders pull (amountIn + fee) per fundingKey. */
export function pullsOf(orders: readonly FeeOrder[]): Map<string, bigint> {
  const pulls = new Map<string, bigint>();
  for (const { order, fee } of orders) {
    const key = fundingKey(order.maker, order.tokenIn);
    pulls.set(key, (pulls.get(key) ?? 0n) + order.amountIn + fee);
  }
  return pulls;
}

const RECHECK_MIN_MS = 5_000;
const RECHECK_MAX_MS = 60_000;

/**
 * How long an order short of funds waits before it is judged again, after `shortForMs` of being short: 5 s at first,
 * then half the time it has been short, at most a minute (a maker who approves at once is served within seconds; an
 * order left unfunded costs two reads a minute).
 */
export function fundingRecheckDelay(shortForMs: number): number {
  return Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, Math.floor(shortForMs / 2)));
}
