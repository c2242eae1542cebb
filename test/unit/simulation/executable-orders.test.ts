import { parseUnits } from 'ethers';
import type { QuoteEngine, QuoteRequestInput } from '../../../shared/routing/quote-engine';
import type { PairBound } from '../../../shared/domain/price-bound';
import { ExecutableOrders, type OpenLimitOrder } from '../../../simulator/run/executable-orders';

const WETH = { address: '0x' + '2'.repeat(40), decimals: 18 };
const USDC = { address: '0x' + '3'.repeat(40), decimals: 6 };
const GWEI = 10n ** 9n;
const PROBE = 10n ** 15n;

/**
 * A WETH/USDC market at `price` USDC per WETH: a 0.05 % pool fee and a price impact of 0.05 % per WETH sold, so n
 * orders of 0.5 WETH get price × (0.9995 − 0.00025 n) per WETH. `quoted` records every amount asked.
 */
function market(price: number, quoted: bigint[] = []): QuoteEngine {
  const engine = {
    blockNumber: () => 10,
    isQuotable: () => true,
    quote(input: QuoteRequestInput) {
      // The pair's small-amount rate (1/1000 WETH) is the screen's, not an order's quote.
      if (input.amountIn !== PROBE) quoted.push(input.amountIn);
      const weth = Number(input.amountIn) / 1e18;
      const out = BigInt(Math.floor(weth * price * (0.9995 - 0.0005 * weth) * 1e6));
      return { quotes: [{ amountOut: out }] };
    },
  };
  return engine as unknown as QuoteEngine;
}

function order(id: string, trigger: string, amount = '0.5'): OpenLimitOrder {
  return { id, tokenIn: WETH, tokenOut: USDC, amountIn: parseUnits(amount, 18), trigger };
}

/** The OrderExecutor's bound at `usdcPerWeth` with 1 % deviation, in USDC base units per WETH base unit (Q128). */
function boundAt(usdcPerWeth: number): PairBound {
  return { priceX128: (BigInt(usdcPerWeth * 1e6) << 128n) / 10n ** 18n, deviationBps: 100n };
}

/** Chain 1, the fee in WETH itself: 55,000 gas × gasPrice; the pair's bound at 3000 unless told. */
function probe(
  engine: QuoteEngine,
  gasPriceWei = GWEI,
  // null: the pair has no bound.
  bound: PairBound | null = boundAt(3000),
  reads: string[] = [],
): ExecutableOrders {
  return new ExecutableOrders(
    engine,
    new Map([
      [
        1,
        {
          wrappedNative: WETH.address,
          nativeDecimals: 18,
          maxFeeBps: 100n,
          gasPrice: () => {
            reads.push('gasPrice');
            return Promise.resolve(gasPriceWei);
          },
          priceBound: () => {
            reads.push('priceBound');
            return Promise.resolve(bound ?? undefined);
          },
        },
      ],
    ]),
  );
}

describe('ExecutableOrders', () => {
  it('gives the market’s slots among equal orders to those filled first, then the rest once it pays them', async () => {
    const orders = ['o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8'].map((id) => order(id, '3100'));
    // At 3106 five orders of 0.5 WETH get 3106 × 0.99825 = 3100.56 each, over (0.5 + 0.000055) × 3100 / 0.5 =
    // 3100.34 per WETH they ask; six would get 3099.79.
    const judged = probe(market(3106));
    await judged.judge(10, 1, orders);
    // The keeper filled five of them in block 11 (not the first five placed); the other three are judged at 11.
    await judged.judge(
      11,
      1,
      orders.filter((o) => ['o1', 'o2', 'o4'].includes(o.id)),
    );
    const filledAt = new Map([
      ...['o3', 'o5', 'o6', 'o7', 'o8'].map((id) => [id, 11] as const),
      ...['o1', 'o2', 'o4'].map((id) => [id, 12] as const),
    ]);
    const spans = judged.result(filledAt);
    for (const id of ['o3', 'o5', 'o6', 'o7', 'o8'])
      expect(spans[id]).toEqual({ first: 10, last: 10, blocks: 1 });
    for (const id of ['o1', 'o2', 'o4']) expect(spans[id]).toEqual({ first: 11, last: 11, blocks: 1 });
  });

  it('keeps equal orders that stay unfilled in placement order, and an executable one executable', async () => {
    const orders = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => order(id, '3100'));
    const judged = probe(market(3106));
    await judged.judge(10, 1, orders);
    await judged.judge(11, 1, orders);
    const spans = judged.result(new Map());
    // Five slots each block: the first five placed at 10, the same five at 11.
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(spans[id]).toEqual({ first: 10, last: 11, blocks: 2 });
    expect(spans.f).toBeUndefined();
    expect(spans.g).toBeUndefined();
  });

  it('asks for amount + fee at the trigger: an order the market pays only net of the fee is not executable', async () => {
    // One order of 0.5 WETH at 3106 gets 3106 × 0.99925 = 3103.67 per WETH; 3103.6 × 0.5 fits, but with the fee of
    // 0.000055 WETH (55,000 gas at 1 gwei) it asks 3103.6 × 1.00011 = 3103.94 per WETH sold.
    const withFee = probe(market(3106));
    await withFee.judge(5, 1, [order('x', '3103.6')]);
    expect(withFee.result(new Map())).toEqual({});
    const free = probe(market(3106), 0n);
    await free.judge(5, 1, [order('x', '3103.6')]);
    expect(free.result(new Map())).toEqual({ x: { first: 5, last: 5, blocks: 1 } });
  });

  it('judges the least demanding orders first, whatever their placement order', async () => {
    const quoted: bigint[] = [];
    const judged = probe(market(3106, quoted));
    await judged.judge(3, 1, [order('strict', '3105'), order('lenient', '3000'), order('middle', '3100')]);
    expect(judged.result(new Map())).toEqual({
      lenient: { first: 3, last: 3, blocks: 1 },
      middle: { first: 3, last: 3, blocks: 1 },
    });
    // The least demanding alone first, then all three as one swap, then the bisection's prefixes.
    expect(quoted.slice(0, 2)).toEqual([parseUnits('0.5', 18), parseUnits('1.5', 18)]);
    expect(quoted.length).toBeLessThanOrEqual(3);
  });

  it('asks one quote of a block where the market pays no one', async () => {
    const quoted: bigint[] = [];
    const judged = probe(market(3000, quoted));
    // 3020 is within 1 % of the pair's small-amount rate (2998.5): judged exactly; the least demanding alone fails.
    await judged.judge(
      3,
      1,
      ['a', 'b', 'c', 'd'].map((id) => order(id, '3020')),
    );
    expect(judged.result(new Map())).toEqual({});
    expect(quoted).toEqual([parseUnits('0.5', 18)]);
  });

  it('reads nothing of the chain for orders whose trigger lies over 1 % above the pair’s rate', async () => {
    const quoted: bigint[] = [];
    const reads: string[] = [];
    const judged = probe(market(3000, quoted), GWEI, boundAt(3000), reads);
    await judged.judge(3, 1, [order('far', '3100')]);
    expect({ quoted, reads, spans: judged.result(new Map()) }).toEqual({ quoted: [], reads: [], spans: {} });
  });

  it('asks what the price bound lets through too, and nothing of a pair without a bound', async () => {
    // One order of 0.5 WETH at 3106 gets 3106 × 0.99925 = 3103.67 per WETH: over its trigger of 3000, and over a
    // bound at 3106 less 1 % (3074.94), but under a bound at 3150 less 1 % (3118.5).
    for (const [bound, executable] of [
      [boundAt(3106), true],
      [boundAt(3150), false],
      [null, false],
    ] as const) {
      const judged = probe(market(3106), GWEI, bound);
      await judged.judge(5, 1, [order('x', '3000')]);
      expect(Object.keys(judged.result(new Map()))).toEqual(executable ? ['x'] : []);
    }
  });

  it('finds nothing executable without a route', async () => {
    const engine = {
      blockNumber: () => 10,
      isQuotable: () => true,
      quote: () => undefined,
    } as unknown as QuoteEngine;
    const judged = probe(engine);
    await judged.judge(3, 1, [order('x', '1')]);
    expect(judged.result(new Map())).toEqual({});
  });
});
