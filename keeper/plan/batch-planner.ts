import { checksumAddress } from '../../shared/chain/checksum-address';
import type { QuoteEngine } from '../../shared/routing/quote-engine';
import { minimumAfterSlippage } from '../../shared/routing/fees';
import { pathsOf, type PathParams } from '../../shared/routing/swap-calldata';
import type { BatchGroup } from './execute-batch-call';
import type { ExecutionOrder } from './execution-order';
import { valueAtPrice } from '../../shared/domain/amount-bounds';
import { minimumAtBound, type PairBound } from '../../shared/domain/price-bound';

export interface PricedOrder {
  order: ExecutionOrder;
  /** Execution fee in tokenIn base units, pulled on top of amountIn. */
  fee: bigint;
  allowance: bigint;
  /** The fee cap the order's signature was checked with: what the batch passes as the cap the maker signed. */
  signedMaxFeeBps: number;
}

export interface PlannedOrder extends PricedOrder {
  /** The minimum written into the batch for this order. */
  minAmountOut: bigint;
  /** This order's pro-rata share of the group's routed output. */
  expectedOut: bigint;
}

export interface PlannedGroup {
  group: BatchGroup;
  orders: PlannedOrder[];
  gasEstimate: bigint;
}

export interface GroupPlan {
  planned?: PlannedGroup;
  /** Orders the routed price does not (or no longer) satisfy: released, not failed. */
  notCrossed: ExecutionOrder[];
}

/**
 * The output an order needs: its own minimum, the chain's price bound, and for a limit order amountIn + fee at
 * the trigger price.
 */
function requiredOut(p: PricedOrder, bound: PairBound | undefined): bigint {
  const { order } = p;
  let required = order.minAmountOut;
  if (bound) {
    const atBound = minimumAtBound(order.amountIn, bound);
    if (atBound > required) required = atBound;
  }
  if (order.priceTrigger === undefined) return required;
  const atTrigger = valueAtPrice(
    order.amountIn + p.fee,
    order.priceTrigger,
    order.decimalsIn,
    order.decimalsOut,
    'up',
  );
  return atTrigger > required ? atTrigger : required;
}

interface Routed {
  gross: bigint;
  paths: PathParams[];
  gasEstimate: bigint;
}

/**
 * One pair's orders as one OrderExecutor group sharing one swap. The contract splits the group's output pro rata
 * to amountIn, so every order must be satisfied by its share of the *group's* route (price impact included).
 * Fewer orders never get a worse price, so the largest satisfied prefix (orders sorted most willing first)
 * is found by binary search over exact routed quotes.
 */
export function planGroup(
  engine: QuoteEngine,
  orders: readonly PricedOrder[],
  gasPriceWei: bigint,
  bound?: PairBound,
): GroupPlan {
  if (orders.length === 0) return { notCrossed: [] };
  const first = orders[0]!.order;
  // Most willing first: the smallest required price per unit sold.
  const sorted = [...orders].sort((a, b) => {
    const ra = requiredOut(a, bound) * b.order.amountIn;
    const rb = requiredOut(b, bound) * a.order.amountIn;
    return ra < rb ? -1 : ra > rb ? 1 : 0;
  });
  const route = (prefix: readonly PricedOrder[]): Routed | undefined => {
    const total = prefix.reduce((sum, p) => sum + p.order.amountIn, 0n);
    const result = engine.quote({
      chainId: first.chainId,
      tokenIn: first.tokenIn,
      tokenOut: first.tokenOut,
      amountIn: total,
      gasPriceWei,
    });
    const best = result?.quotes[0];
    if (!best) return undefined;
    return {
      gross: best.amountOut,
      paths: pathsOf(best.splits, first.tokenIn, first.tokenOut, total),
      gasEstimate: best.gasEstimate,
    };
  };
  const satisfied = (prefix: readonly PricedOrder[], routed: Routed): boolean => {
    const total = prefix.reduce((sum, p) => sum + p.order.amountIn, 0n);
    return prefix.every((p) => (routed.gross * p.order.amountIn) / total >= requiredOut(p, bound));
  };
  let best: { count: number; routed: Routed } | undefined;
  let [lo, hi] = [1, sorted.length];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const prefix = sorted.slice(0, mid);
    const routed = route(prefix);
    if (routed && satisfied(prefix, routed)) {
      best = { count: mid, routed };
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (!best) return { notCrossed: sorted.map((p) => p.order) };
  const chosen = sorted.slice(0, best.count);
  const total = chosen.reduce((sum, p) => sum + p.order.amountIn, 0n);
  const planned: PlannedOrder[] = chosen.map((p) => {
    const expectedOut = (best.routed.gross * p.order.amountIn) / total;
    // DCA takes its minimum from the route and its slippage; a limit order's minimum is the maker's own.
    const minAmountOut =
      p.order.slippagePercent !== undefined
        ? minimumAfterSlippage(expectedOut, p.order.slippagePercent)
        : p.order.minAmountOut;
    return { ...p, minAmountOut, expectedOut };
  });
  return {
    planned: {
      group: {
        tokenIn: checksumAddress(first.tokenIn),
        tokenOut: checksumAddress(first.tokenOut),
        paths: best.routed.paths,
        orders: planned.map((p) => ({
          index: p.order.executionIndex,
          ref: p.order.ref,
          integrator: p.order.integrator,
          maker: p.order.maker,
          amountIn: p.order.amountIn,
          fee: p.fee,
          minAmountOut: p.minAmountOut,
          signature: p.order.signature,
          maxFeeBps: p.signedMaxFeeBps,
        })),
      },
      orders: planned,
      gasEstimate: best.routed.gasEstimate,
    },
    notCrossed: sorted.slice(best.count).map((p) => p.order),
  };
}
