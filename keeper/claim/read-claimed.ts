import { isChecksumValidAddress } from '../../shared/chain/checksum-address';
import type { DcaStrategy } from '../../shared/domain/dca';
import type { ClaimedDcaOrder } from '../../shared/store/repositories/keeper-dca-repository';
import type { KeeperLimitOrder } from '../../shared/store/repositories/keeper-limit-orders-repository';
import type { KeeperOrderKind } from '../../shared/store/repositories/keeper-order-repository';
import { iterationAmount } from '../../shared/domain/dca-iteration-amount';
import type { ExecutionOrder } from '../plan/execution-order';
import { limitOrderTerms, strategyTerms } from '../plan/order-terms';
import { slotAt } from '../dca/dca-schedule';
import {
  integratorOf,
  MAX_EXECUTION_INDEX,
  onchainOrderIdOf,
  orderRefOf,
} from '../../shared/domain/pair-authorization';

export interface TokenDecimals {
  decimalsOf(chainId: number, address: string): number | undefined;
}

export interface ClaimContext {
  owner: string;
  leaseMs: number;
  now: number;
  triggerBlock: number;
  tokens: TokenDecimals;
}

/** A claimed order the keeper cannot even read (unlisted token, malformed amount): fail it, never guess. */
export interface Unreadable {
  kind: KeeperOrderKind;
  id: string;
  /** A final reason of the failure table: TOKEN_NOT_LISTED, ZERO_AMOUNT, INVALID_AMOUNT, INVALID_PRICE… */
  reason: string;
  detail: string;
}

/** Claimed orders as the plan stage takes them, and those it cannot read. */
export interface ClaimedOrders {
  orders: ExecutionOrder[];
  unreadable: Unreadable[];
}

type Read = { order: ExecutionOrder } | { reason: string; detail: string };

const TOKEN_NOT_LISTED: Read = { reason: 'TOKEN_NOT_LISTED', detail: 'a token of the pair is not listed' };
/** A maker that is no address can have signed nothing (and has no on-chain order id to derive). */
const MAKER_NOT_AN_ADDRESS: Read = { reason: 'BAD_SIGNATURE', detail: 'the maker is not an address' };
/**
 * Every claim gives its orders an execution index in its store transaction: one without is the store's fault, not
 * the order's (backs off; the next claim gives it one).
 */
const NO_EXECUTION_INDEX: Read = {
  reason: 'KEEPER_ERROR',
  detail: 'the claim gave the order no execution index',
};

/** The order's reference, integrator and on-chain id, as OrderExecutor.orderId derives it. */
function onchainIdentity(
  serviceId: string,
  apiKey: string,
  maker: string,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  executionIndex: bigint,
): Pick<ExecutionOrder, 'onchainId' | 'ref' | 'integrator' | 'executionIndex'> {
  const ref = orderRefOf(serviceId);
  const integrator = integratorOf(apiKey);
  return {
    ref,
    integrator,
    executionIndex,
    onchainId: onchainOrderIdOf({
      maker,
      tokenIn,
      tokenOut,
      integrator,
      ref,
      amountIn,
      index: executionIndex,
    }),
  };
}

function validIndex(index: bigint | null): index is bigint {
  return index !== null && index > 0n && index <= MAX_EXECUTION_INDEX;
}

/** A claimed limit order in execution terms. */
export function readLimitOrder(order: KeeperLimitOrder, ctx: ClaimContext): Read {
  const decimalsIn = ctx.tokens.decimalsOf(order.chainId, order.inTokenAddress);
  const decimalsOut = ctx.tokens.decimalsOf(order.chainId, order.outTokenAddress);
  if (decimalsIn === undefined || decimalsOut === undefined) return TOKEN_NOT_LISTED;
  const read = limitOrderTerms(order, decimalsIn, decimalsOut);
  if (read.ok && !isChecksumValidAddress(order.accountTo)) return MAKER_NOT_AN_ADDRESS;
  if (!read.ok) return read;
  if (!validIndex(order.execIndex)) return NO_EXECUTION_INDEX;
  return {
    order: {
      kind: 'limit',
      id: order.id,
      ...onchainIdentity(
        order.id,
        order.apiKey,
        order.accountTo,
        order.inTokenAddress,
        order.outTokenAddress,
        read.terms.amountIn,
        order.execIndex,
      ),
      version: order.version,
      attemptNumber: order.attemptNumber,
      chainId: order.chainId,
      maker: order.accountTo,
      tokenIn: order.inTokenAddress.toLowerCase(),
      tokenOut: order.outTokenAddress.toLowerCase(),
      decimalsIn,
      decimalsOut,
      amountIn: read.terms.amountIn,
      signature: order.signature,
      maxFeeBps: order.maxFeeBps,
      minAmountOut: read.terms.minAmountOut,
      priceTrigger: order.priceTrigger.trim(),
      triggerBlock: ctx.triggerBlock,
    },
  };
}

/** A claimed DCA iteration, with its strategy, in execution terms. */
export function readDcaOrder({ order, strategy }: ClaimedDcaOrder, ctx: ClaimContext): Read {
  const s: DcaStrategy = strategy;
  const decimalsIn = ctx.tokens.decimalsOf(s.chainIdFrom, s.tokenAddressFrom);
  const decimalsOut = ctx.tokens.decimalsOf(s.chainIdFrom, s.tokenAddressTo);
  if (decimalsIn === undefined || decimalsOut === undefined) return TOKEN_NOT_LISTED;
  const read = strategyTerms(s, decimalsIn);
  if (!read.ok) return read;
  if (!Number.isInteger(order.iteration) || order.iteration < 0 || order.iteration >= s.iterations) {
    return { reason: 'INVALID_SCHEDULE', detail: `iteration ${order.iteration} of ${s.iterations}` };
  }
  const amountIn = iterationAmount(read.terms.total, s.iterations, order.iteration);
  if (amountIn === 0n) return { reason: 'ZERO_AMOUNT', detail: 'the iteration sells nothing' };
  if (!isChecksumValidAddress(s.accountTo)) return MAKER_NOT_AN_ADDRESS;
  if (!validIndex(order.execIndex)) return NO_EXECUTION_INDEX;
  return {
    order: {
      kind: 'dca',
      id: order.id,
      ...onchainIdentity(
        order.id,
        s.apiKey,
        s.accountTo,
        s.tokenAddressFrom,
        s.tokenAddressTo,
        amountIn,
        order.execIndex,
      ),
      version: order.version,
      attemptNumber: order.attemptNumber,
      chainId: s.chainIdFrom,
      maker: s.accountTo,
      tokenIn: s.tokenAddressFrom.toLowerCase(),
      tokenOut: s.tokenAddressTo.toLowerCase(),
      decimalsIn,
      decimalsOut,
      amountIn,
      signature: s.signature,
      maxFeeBps: s.maxFeeBps,
      minAmountOut: 0n,
      slippagePercent: read.terms.slippagePercent,
      waitsUntil: slotAt(order.slotAt, s.frequency, 1),
      triggerBlock: ctx.triggerBlock,
    },
  };
}

/**
 * Reads claimed rows of one kind; a row whose read throws holds a value no check foresaw, and fails on its own
 * rather than the batch. What the claim returned is the truth: an order PATCHed or cancelled since selection is
 * not among it.
 */
export function readClaimed<Row>(
  kind: KeeperOrderKind,
  rows: readonly Row[],
  idOf: (row: Row) => string,
  read: (row: Row, ctx: ClaimContext) => Read,
  ctx: ClaimContext,
): ClaimedOrders {
  const out: ClaimedOrders = { orders: [], unreadable: [] };
  for (const row of rows) {
    let result: Read;
    try {
      result = read(row, ctx);
    } catch (err) {
      result = { reason: 'INVALID_AMOUNT', detail: err instanceof Error ? err.message : String(err) };
    }
    if ('order' in result) out.orders.push(result.order);
    else out.unreadable.push({ kind, id: idOf(row), reason: result.reason, detail: result.detail });
  }
  return out;
}
