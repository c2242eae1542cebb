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
import { limitOrderTerms, strategyTerms } from '../plan/order-terms';
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
  /** A final reason of the failure table: TOKEN_NOT_LISTED, ZERO_AMOUNT, INVALID_AMOUNT, INVALID_PRICE… */
  reason: string;
  detail: string;
}

type Read = { order: ExecutionOrder } | { reason: string; detail: string };

const TOKEN_NOT_LISTED: Read = { reason: 'TOKEN_NOT_LISTED', detail: 'a token of the pair is not listed' };

function limitExecution(order: KeeperLimitOrder, ctx: ClaimContext): Read {
  const decimalsIn = ctx.tokens.decimalsOf(order.chainId, order.inTokenAddress);
  const decimalsOut = ctx.tokens.decimalsOf(order.chainId, order.outTokenAddress);
  if (decimalsIn === undefined || decimalsOut === undefined) return TOKEN_NOT_LISTED;
  const read = limitOrderTerms(order, decimalsIn, decimalsOut);
  if (!read.ok) return read;
  return {
    order: {
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
      amountIn: read.terms.amountIn,
      signature: order.signature,
      minAmountOut: read.terms.minAmountOut,
      priceTrigger: order.priceTrigger.trim(),
      triggerBlock: ctx.triggerBlock,
    },
  };
}

function dcaExecution({ order, strategy }: ClaimedDcaOrder, ctx: ClaimContext): Read {
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
  return {
    order: {
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
      amountIn,
      signature: s.signature,
      minAmountOut: 0n,
      slippagePercent: read.terms.slippagePercent,
      triggerBlock: ctx.triggerBlock,
    },
  };
}

/** Reads one claimed row; a throw is a value no check above foresaw, and fails the order rather than the batch. */
function readIsolated(read: () => Read): Read {
  try {
    return read();
  } catch (err) {
    return { reason: 'INVALID_AMOUNT', detail: err instanceof Error ? err.message : String(err) };
  }
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
  const add = (kind: 'limit' | 'dca', id: string, read: Read): void => {
    if ('order' in read) orders.push(read.order);
    else unreadable.push({ kind, id, reason: read.reason, detail: read.detail });
  };
  for (const order of limits)
    add(
      'limit',
      order.id,
      readIsolated(() => limitExecution(order, ctx)),
    );
  for (const claimed of dcas)
    add(
      'dca',
      claimed.order.id,
      readIsolated(() => dcaExecution(claimed, ctx)),
    );
  return { orders, unreadable };
}
