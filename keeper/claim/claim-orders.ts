import type { DcaStrategy } from '../../shared/domain/dca';
import type {
  KeeperDcaRepository,
  ClaimedDcaOrder,
} from '../../shared/store/repositories/keeper-dca-repository';
import type {
  KeeperLimitOrder,
  KeeperLimitOrdersRepository,
} from '../../shared/store/repositories/keeper-limit-orders-repository';
import { iterationAmount } from '../dca/dca-schedule';
import type { ExecutionOrder } from '../plan/execution-order';
import { baseUnitsOf, decimalOf, limitOrderMinimumOut } from '../plan/order-amounts';
import { onchainOrderId } from '../settle/execution-events';

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
  kind: 'limit' | 'dca';
  id: string;
  reason: string;
}

function limitExecution(order: KeeperLimitOrder, ctx: ClaimContext): ExecutionOrder | undefined {
  const decimalsIn = ctx.tokens.decimalsOf(order.chainId, order.inTokenAddress);
  const decimalsOut = ctx.tokens.decimalsOf(order.chainId, order.outTokenAddress);
  if (decimalsIn === undefined || decimalsOut === undefined) return undefined;
  const amountIn = baseUnitsOf(order.amount, decimalsIn);
  return {
    kind: 'limit',
    id: order.id,
    onchainId: onchainOrderId(order.id).toLowerCase(),
    version: order.version,
    attemptNumber: order.attemptNumber,
    chainId: order.chainId,
    maker: order.accountTo,
    tokenIn: order.inTokenAddress.toLowerCase(),
    tokenOut: order.outTokenAddress.toLowerCase(),
    decimalsIn,
    decimalsOut,
    amountIn,
    signature: order.signature,
    minAmountOut: limitOrderMinimumOut(amountIn, order.priceTrigger, order.slippage, decimalsIn, decimalsOut),
    priceTrigger: order.priceTrigger,
    triggerBlock: ctx.triggerBlock,
  };
}

function dcaExecution({ order, strategy }: ClaimedDcaOrder, ctx: ClaimContext): ExecutionOrder | undefined {
  const s: DcaStrategy = strategy;
  const decimalsIn = ctx.tokens.decimalsOf(s.chainIdFrom, s.tokenAddressFrom);
  const decimalsOut = ctx.tokens.decimalsOf(s.chainIdFrom, s.tokenAddressTo);
  if (decimalsIn === undefined || decimalsOut === undefined) return undefined;
  const total = baseUnitsOf(decimalOf(s.totalAmount), decimalsIn);
  return {
    kind: 'dca',
    id: order.id,
    onchainId: onchainOrderId(order.id).toLowerCase(),
    version: order.version,
    attemptNumber: order.attemptNumber,
    chainId: s.chainIdFrom,
    maker: s.accountTo,
    tokenIn: s.tokenAddressFrom.toLowerCase(),
    tokenOut: s.tokenAddressTo.toLowerCase(),
    decimalsIn,
    decimalsOut,
    amountIn: iterationAmount(total, s.iterations, order.iteration),
    signature: s.signature,
    minAmountOut: 0n,
    slippagePercent: decimalOf(s.slippage),
    triggerBlock: ctx.triggerBlock,
  };
}

/**
 * Claims the selected orders (limit orders at the version they were selected at) and reads them into
 * ExecutionOrders. What the claim returns is the truth: an order PATCHed or cancelled since selection is not
 * among it.
 */
export async function claimOrders(
  repos: { limit: KeeperLimitOrdersRepository; dca: KeeperDcaRepository },
  selected: { limit: { id: string; version: number }[]; dca: { id: string; version: number }[] },
  ctx: ClaimContext,
): Promise<{ orders: ExecutionOrder[]; unreadable: Unreadable[] }> {
  const [limits, dcas] = await Promise.all([
    selected.limit.length
      ? repos.limit.claimVersioned(selected.limit, ctx.owner, ctx.leaseMs, ctx.now)
      : Promise.resolve([]),
    selected.dca.length
      ? repos.dca.claimOrders(selected.dca, ctx.owner, ctx.leaseMs, ctx.now)
      : Promise.resolve([]),
  ]);
  const orders: ExecutionOrder[] = [];
  const unreadable: Unreadable[] = [];
  for (const order of limits) {
    try {
      const e = limitExecution(order, ctx);
      if (e) orders.push(e);
      else unreadable.push({ kind: 'limit', id: order.id, reason: 'TOKEN_NOT_LISTED' });
    } catch {
      unreadable.push({ kind: 'limit', id: order.id, reason: 'INVALID_AMOUNT' });
    }
  }
  for (const claimed of dcas) {
    try {
      const e = dcaExecution(claimed, ctx);
      if (e) orders.push(e);
      else unreadable.push({ kind: 'dca', id: claimed.order.id, reason: 'TOKEN_NOT_LISTED' });
    } catch {
      unreadable.push({ kind: 'dca', id: claimed.order.id, reason: 'INVALID_AMOUNT' });
    }
  }
  return { orders, unreadable };
}
