import { getAddress, type JsonRpcProvider } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { valueAtPrice } from '../../shared/domain/amount-bounds';
import { minimumAtBound, type PairBound } from '../../shared/domain/price-bound';
import { executionFee, GAS_PER_ORDER } from '../../shared/routing/execution-fee';
import { Prices } from '../../shared/routing/prices/usd-prices';
import type { QuoteEngine } from '../../shared/routing/quote-engine';
import type { ExecutableSpan } from '../report/report-types';

/** Orders whose trigger is within 1 % above the pair's small-amount rate are judged exactly. */
const SCREEN_SLACK = 1.01;

/** A limit order the keeper could have acted on at a block's close: placed before that block, open, not expiring. */
export interface OpenLimitOrder {
  /** The service's id. */
  id: string;
  tokenIn: { address: string; decimals: number };
  tokenOut: { address: string; decimals: number };
  amountIn: bigint;
  /** Units of tokenOut per 1 tokenIn, as placed. */
  trigger: string;
}

/** What an order on one chain must be paid: its fee's pricing (README, plan stage) and the pair's price bound. */
export interface ChainTerms {
  wrappedNative: string;
  nativeDecimals: number;
  /** The OrderExecutor's fee cap, which the run's makers also signed. */
  maxFeeBps: bigint;
  /** The gas price the fee is priced at, read at the judged block (headGasPrice). */
  gasPrice: () => Promise<bigint>;
  /** The OrderExecutor's price bound of the pair at the judged block; undefined: none, its orders would fail. */
  priceBound: (tokenIn: string, tokenOut: string) => Promise<PairBound | undefined>;
}

interface Judged {
  order: OpenLimitOrder;
  /** What the order must receive, base units of tokenOut: (amount + fee) × trigger, rounded up, or the bound's. */
  required: bigint;
}

/**
 * When each limit order of a run could first have been filled on its own terms, measured by the run at each block's
 * close, independently of what the keeper did: the order is executable at block b when one swap of its amount,
 * together with the open orders of its pair that ask less per unit sold (earlier placed first among equals), routed
 * through the service's quote engine on the pools as block b left them (what POST /quotes answers), pays every one
 * of them its pro-rata share of at least (amount + fee) × trigger, and at least what the OrderExecutor's price bound
 * of the pair lets through (the deviation from its oracle each maker signed). The fee is the documented execution
 * fee (GAS_PER_ORDER at the head's base fee plus priority fee, in the sold token at the routed rate, capped at
 * maxFeeBps). A trigger is the maker's net price: the market "reaching" it means this, not the path's mid price
 * touching it (a pool pays its mid less its fee and the trade's impact).
 */
export class ExecutableOrders {
  /**
   * What each judged block found, in block order: `count` of `ids` were executable. Orders asking the same per unit
   * sold are interchangeable to the market: when it pays only some of them, which ones is decided at the end.
   */
  private readonly found: Array<{ block: number; ids: string[]; count: number }> = [];
  private readonly prices: Prices;

  constructor(
    private readonly engine: QuoteEngine,
    private readonly terms: ReadonlyMap<number, ChainTerms>,
  ) {
    // Rates only: no listed-token lookups are made.
    this.prices = new Prices(engine, { tokensOf: () => [] });
  }

  /**
   * The blocks each order was executable at, by order id. Where the market paid only `count` of several equal
   * orders, the slots go to those already executable, then to those filled first (the ones the market's capacity
   * went to), then in placement order: the latency of the equal orders is then the time from each slot to a fill.
   */
  result(filledAt: ReadonlyMap<string, number>): Record<string, ExecutableSpan> {
    const spans = new Map<string, ExecutableSpan>();
    for (const { block, ids, count } of this.found) {
      const rank = (id: string): [number, number] => [
        spans.get(id)?.last === block - 1 ? 0 : 1,
        filledAt.get(id) ?? Infinity,
      ];
      const chosen =
        count === ids.length
          ? ids
          : [...ids]
              .sort((a, b) => {
                const [ra, rb] = [rank(a), rank(b)];
                return ra[0] - rb[0] || ra[1] - rb[1];
              })
              .slice(0, count);
      for (const id of chosen) {
        const span = spans.get(id);
        if (!span) spans.set(id, { first: block, last: block, blocks: 1 });
        else Object.assign(span, { last: block, blocks: span.blocks + 1 });
      }
    }
    return Object.fromEntries(spans);
  }

  /** Judges `open` (one chain's orders) at block `block`, whose state the quote engine holds. */
  async judge(block: number, chainId: number, open: readonly OpenLimitOrder[]): Promise<void> {
    // No swap pays more per unit than a small one, so an order whose trigger lies well above the pair's rate for a
    // small amount cannot be paid: only the rest are judged exactly (most blocks, none). The slack keeps the screen
    // far looser than the keeper's own, which compares with the same rate, so a bias there still shows here.
    const near = open.filter((o) => {
      const rate = this.prices.rate(chainId, o.tokenIn, o.tokenOut);
      return rate !== undefined && rate.price * SCREEN_SLACK >= Number(o.trigger);
    });
    if (near.length === 0) return;
    const terms = this.terms.get(chainId);
    if (!terms) throw new Error(`no fee terms for chain ${chainId}`);
    const gasPriceWei = await terms.gasPrice();
    const pairs = new Map<string, Judged[]>();
    const bounds = new Map<string, Promise<PairBound | undefined>>();
    for (const order of near) {
      const key = `${order.tokenIn.address.toLowerCase()}>${order.tokenOut.address.toLowerCase()}`;
      if (!bounds.has(key)) bounds.set(key, terms.priceBound(order.tokenIn.address, order.tokenOut.address));
      const bound = await bounds.get(key);
      // No bound: the contract fails the pair's orders (NO_PRICE_BOUND), so none can fill.
      if (!bound) continue;
      const fee = executionFee({
        prices: this.prices,
        chainId,
        tokenIn: order.tokenIn,
        wrappedNative: terms.wrappedNative,
        nativeDecimals: terms.nativeDecimals,
        amountIn: order.amountIn,
        gasPerOrder: GAS_PER_ORDER,
        gasPriceWei,
        maxFeeBps: terms.maxFeeBps,
      });
      // No route from the native coin: the fee cannot be priced, so nothing can fill it.
      if (fee === undefined) continue;
      const atTrigger = valueAtPrice(
        order.amountIn + fee,
        order.trigger,
        order.tokenIn.decimals,
        order.tokenOut.decimals,
        'up',
      );
      const atBound = minimumAtBound(order.amountIn, bound);
      const judged = pairs.get(key) ?? [];
      judged.push({ order, required: atTrigger > atBound ? atTrigger : atBound });
      pairs.set(key, judged);
    }
    for (const judged of pairs.values()) this.fillable(block, chainId, judged, gasPriceWei);
  }

  /**
   * The longest run of the pair's orders, least demanding first, that one routed swap pays in full. Output per unit
   * falls as the amount grows and the demand per unit rises along the run, so "pays in full" holds for a prefix: the
   * longest is found by bisection.
   */
  private fillable(block: number, chainId: number, judged: Judged[], gasPriceWei: bigint): void {
    const demand = (a: Judged, b: Judged): number => {
      const left = a.required * b.order.amountIn;
      const right = b.required * a.order.amountIn;
      return left < right ? -1 : left > right ? 1 : 0;
    };
    // Stable sort: orders asking the same per unit keep their placement order.
    const sorted = [...judged].sort(demand);
    const pays = (count: number): boolean => {
      const prefix = sorted.slice(0, count);
      const total = prefix.reduce((sum, j) => sum + j.order.amountIn, 0n);
      const out = this.engine.quote({
        chainId,
        tokenIn: prefix[0]!.order.tokenIn.address,
        tokenOut: prefix[0]!.order.tokenOut.address,
        amountIn: total,
        gasPriceWei,
      })?.quotes[0]?.amountOut;
      return out !== undefined && prefix.every((j) => (out * j.order.amountIn) / total >= j.required);
    };
    // Most blocks pay no one: the least demanding order alone settles that with one quote.
    if (!pays(1)) return;
    let [lo, hi, best] = [2, sorted.length, 1];
    if (pays(hi)) best = hi;
    else {
      hi -= 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (pays(mid)) [best, lo] = [mid, mid + 1];
        else hi = mid - 1;
      }
    }
    if (best === 0) return;
    // The orders asking what the last one paid asks per unit: the market paid `best` minus those before them.
    const last = sorted[best - 1]!;
    const from = sorted.findIndex((j) => demand(j, last) === 0);
    let to = best;
    while (to < sorted.length && demand(sorted[to]!, last) === 0) to++;
    const ids = (list: Judged[]) => list.map((j) => j.order.id);
    if (from > 0) this.found.push({ block, ids: ids(sorted.slice(0, from)), count: from });
    this.found.push({ block, ids: ids(sorted.slice(from, to)), count: best - from });
  }
}

/** The gas price the execution fee is priced at: the head's base fee plus the node's priority fee suggestion. */
export async function headGasPrice(provider: JsonRpcProvider): Promise<bigint> {
  const [block, tip] = await Promise.all([
    provider.getBlock('latest'),
    provider.send('eth_maxPriorityFeePerGas', []) as Promise<string>,
  ]);
  const base = block?.baseFeePerGas;
  if (base === null || base === undefined) return (await provider.getFeeData()).gasPrice ?? 0n;
  return base + BigInt(tip);
}

/**
 * The OrderExecutor's price bound of a pair as the keeper's plan reads it: its `priceBound` view (a view that
 * reverts, a broken source, or a zero price is no bound) and its `maxDeviationBps`.
 */
export function priceBoundReader(
  provider: JsonRpcProvider,
  orderExecutor: string,
): (tokenIn: string, tokenOut: string) => Promise<PairBound | undefined> {
  const iface = orderExecutorInterface();
  let deviation: Promise<bigint> | undefined;
  return async (tokenIn, tokenOut) => {
    deviation ??= provider
      .call({ to: orderExecutor, data: iface.encodeFunctionData('maxDeviationBps', []) })
      .then((raw) => BigInt(iface.decodeFunctionResult('maxDeviationBps', raw)[0] as bigint));
    let raw: string;
    try {
      raw = await provider.call({
        to: orderExecutor,
        data: iface.encodeFunctionData('priceBound', [getAddress(tokenIn), getAddress(tokenOut)]),
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'CALL_EXCEPTION') return undefined;
      throw err;
    }
    const priceX128 = BigInt(iface.decodeFunctionResult('priceBound', raw)[0] as bigint);
    return priceX128 === 0n ? undefined : { priceX128, deviationBps: await deviation };
  };
}
