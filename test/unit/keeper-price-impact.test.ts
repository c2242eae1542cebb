import { planGroup, type PricedOrder } from '../../keeper/plan/batch-planner';
import { minimumAtBound, type PairBound } from '../../shared/domain/price-bound';
import type { ExecutionOrder } from '../../keeper/plan/execution-order';
import { integratorOf, onchainOrderIdOf, orderRefOf } from '../../shared/domain/pair-authorization';
import { connectorsOf, QuoteEngine } from '../../shared/routing/quote-engine';
import { PoolStateCache } from '../../shared/routing/sources/pool-state-cache';
import { token, v2Pool } from '../helpers/routing-pools';

/**
 * The keeper plans its executions with the same engine as quotes, so the same price-impact bound applies: an
 * order (or a group of orders) whose route would lose more than MAX_PRICE_IMPACT_BPS to its pools is not
 * executed, whatever its own trigger accepts; it stays pending for a deeper market.
 */

const WETH = token(1);
const USDC = token(2);
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const CHAIN_ID = 1;

function engineWith(maxPriceImpactBps?: number): QuoteEngine {
  const cache = new PoolStateCache();
  // 100 WETH against 300,000 USDC.
  cache.put(CHAIN_ID, { number: 7, hash: `0x${'22'.repeat(32)}` }, [
    v2Pool(WETH, USDC, 100n * E18, 300_000n * E6),
  ]);
  return new QuoteEngine(
    cache,
    [
      {
        chainId: CHAIN_ID,
        wrappedNative: WETH,
        connectors: connectorsOf(WETH, [{ address: USDC, symbol: 'USDC' }]),
        sources: [{ id: 'uniswap-v2', name: 'Uniswap V2' }],
      },
    ],
    { maxPriceImpactBps },
  );
}

const MAKER = '0x00000000000000000000000000000000000000aa';
const INTEGRATOR = integratorOf('price-impact-key');

function dcaOrder(id: string, amountIn: bigint): PricedOrder {
  const ref = orderRefOf(id);
  const order: ExecutionOrder = {
    kind: 'dca',
    id,
    onchainId: onchainOrderIdOf({
      maker: MAKER,
      tokenIn: WETH,
      tokenOut: USDC,
      integrator: INTEGRATOR,
      ref,
      amountIn,
      index: 1n,
    }),
    executionIndex: 1n,
    ref,
    integrator: INTEGRATOR,
    version: 1,
    attemptNumber: 0,
    chainId: CHAIN_ID,
    maker: MAKER,
    tokenIn: WETH,
    tokenOut: USDC,
    decimalsIn: 18,
    decimalsOut: 6,
    amountIn,
    signature: '0x',
    maxFeeBps: 500,
    // A DCA iteration takes whatever the route pays (less its slippage): only the guard can hold it back.
    minAmountOut: 0n,
    slippagePercent: '99',
    triggerBlock: 7,
  };
  return { order, fee: 0n, allowance: amountIn, signedMaxFeeBps: 500 };
}

describe('the keeper applies the price-impact bound to its executions', () => {
  it('executes an order its pools can take, and leaves one that would lose more than the bound', () => {
    // 1 WETH into 100: about 1% impact.
    expect(planGroup(engineWith(), [dcaOrder('1', E18)], 0n).planned?.orders).toHaveLength(1);
    // 30 WETH into 100: about 23% impact, above the default 15%.
    const plan = planGroup(engineWith(), [dcaOrder('2', 30n * E18)], 0n);
    expect(plan.planned).toBeUndefined();
    expect(plan.notCrossed.map((o) => o.id)).toEqual(['2']);
    // The operator's bound decides: at 30% the same order executes.
    expect(planGroup(engineWith(3_000), [dcaOrder('2', 30n * E18)], 0n).planned?.orders).toHaveLength(1);
  });

  it('executes only as many orders of a group as stay within the bound together', () => {
    const orders = ['3', '4', '5', '6'].map((id) => dcaOrder(id, 5n * E18));
    // Together 20 WETH (about 17% impact) is too much; three orders (15 WETH, about 13%) are not.
    const plan = planGroup(engineWith(), orders, 0n);
    expect(plan.planned?.orders).toHaveLength(3);
    expect(plan.notCrossed).toHaveLength(1);
  });

  it('carries each order’s reference and integrator into the batch (the contract derives the on-chain id)', () => {
    const planned = planGroup(engineWith(), [dcaOrder('7', E18)], 0n).planned;
    expect(planned?.group.orders).toEqual([
      expect.objectContaining({ ref: orderRefOf('7'), integrator: INTEGRATOR, maker: MAKER, amountIn: E18 }),
    ]);
  });
});

describe('the keeper applies the chain’s price bound to its executions', () => {
  // 3,000 USDC per WETH in base units (6 − 18 decimals), as Q128.
  const bound = (deviationBps: bigint): PairBound => ({
    priceX128: (3_000n * E6 * (1n << 128n)) / E18,
    deviationBps,
  });

  it('computes the contract’s minimum exactly: floor(floor(amount × price) × (10⁴ − deviation) / 10⁴)', () => {
    expect(minimumAtBound(E18, bound(0n))).toBe(3_000n * E6 - 1n);
    expect(minimumAtBound(E18, bound(200n))).toBe(((3_000n * E6 - 1n) * 9_800n) / 10_000n);
  });

  it('leaves an order the route pays less than the bound, and executes it once the deviation allows the route', () => {
    // 1 WETH pays about 2,961 USDC (0.3 % fee, about 1 % impact): below 3,000, above 3,000 less 2 %.
    const held = planGroup(engineWith(), [dcaOrder('8', E18)], 0n, bound(0n));
    expect(held.planned).toBeUndefined();
    expect(held.notCrossed.map((o) => o.id)).toEqual(['8']);
    expect(planGroup(engineWith(), [dcaOrder('8', E18)], 0n, bound(200n)).planned?.orders).toHaveLength(1);
  });
});
