import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { parseUnits } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { KeeperInstance } from '../../keeper/build-keeper';
import type { DcaStrategy } from '../../shared/domain/dca';
import { newPendingLimitOrder } from '../../shared/domain/limit-order';
import type { Store } from '../../shared/store/store';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import { metricValue, prepareMakers, waitFor, type OrderMaker } from '../helpers/keeper-orders';
import { executionEvents, onchainIdOf, type OrderExecutedEvent } from '../helpers/maker';
import type { RunningService } from '../helpers/service-harness';

/**
 * Isolation in the keeper, as a property on the devnet: for any mix of valid and absurd limit orders and DCA
 * strategies written straight into the store (past the api's validation, as an older api, a script or a bad
 * migration could), every valid order and every valid strategy's iterations execute on-chain, and every absurd row
 * ends failed with its reason (limit orders) or set aside with its reason and a metric (strategies), never
 * stopping a stage for the others.
 */

jest.setTimeout(600_000);

const API_KEY = 'keeper-isolation';
const UNLISTED = '0x00000000000000000000000000000000000f00d5';
const VALID_TRIGGER = '2000';
const DCA_ITERATIONS = 2;
const DCA_FREQUENCY_S = 2;
const DCA_TOTAL = 0.02;
const RUN_TIMEOUT_MS = 60_000;

type AbsurdLimit = {
  what: string;
  reason: string;
  order: {
    amount?: string;
    priceTrigger?: string;
    slippage?: string;
    sellUsdc?: boolean;
    unlisted?: boolean;
    badMaker?: boolean;
  };
};
type AbsurdStrategy = {
  what: string;
  reason: string;
  strategy: Partial<Pick<DcaStrategy, 'totalAmount' | 'iterations' | 'frequency' | 'slippage'>> & {
    sellUsdc?: boolean;
    unlisted?: boolean;
  };
};

const ABSURD_LIMITS: AbsurdLimit[] = [
  { what: 'amount 1e308', reason: 'INVALID_AMOUNT', order: { amount: '1e308' } },
  { what: 'amount beyond uint256', reason: 'INVALID_AMOUNT', order: { amount: `1${'0'.repeat(80)}` } },
  {
    what: 'amount finer than USDC',
    reason: 'INVALID_AMOUNT',
    order: { amount: '0.0000001', sellUsdc: true },
  },
  { what: 'amount NaN', reason: 'INVALID_AMOUNT', order: { amount: 'NaN' } },
  { what: 'amount zero', reason: 'ZERO_AMOUNT', order: { amount: '0' } },
  { what: 'trigger with an exponent', reason: 'INVALID_PRICE', order: { priceTrigger: '1e-9' } },
  { what: 'slippage 150', reason: 'INVALID_SLIPPAGE', order: { slippage: '150' } },
  { what: 'unlisted token', reason: 'TOKEN_NOT_LISTED', order: { unlisted: true } },
  { what: 'maker not an address', reason: 'BAD_SIGNATURE', order: { badMaker: true } },
];

const ABSURD_STRATEGIES: AbsurdStrategy[] = [
  { what: 'totalAmount 1e308', reason: 'INVALID_AMOUNT', strategy: { totalAmount: 1e308 } },
  {
    what: 'totalAmount finer than USDC',
    reason: 'INVALID_AMOUNT',
    strategy: { totalAmount: 1e-7, sellUsdc: true },
  },
  { what: 'negative frequency', reason: 'INVALID_SCHEDULE', strategy: { frequency: -5 } },
  { what: 'no iterations', reason: 'INVALID_SCHEDULE', strategy: { iterations: 0 } },
  { what: 'slippage 150', reason: 'INVALID_SLIPPAGE', strategy: { slippage: 150 } },
  { what: 'unlisted token', reason: 'TOKEN_NOT_LISTED', strategy: { unlisted: true } },
];

type Row =
  | { kind: 'valid-limit'; maker: number; amount: string }
  | { kind: 'valid-dca'; maker: number; maxPrice: number | null }
  | { kind: 'absurd-limit'; maker: number; absurd: AbsurdLimit }
  | { kind: 'absurd-dca'; maker: number; absurd: AbsurdStrategy };

const maker = fc.integer({ min: 0, max: 3 });
const rowArb: fc.Arbitrary<Row> = fc.oneof(
  fc.record({
    kind: fc.constant('valid-limit' as const),
    maker,
    amount: fc.constantFrom('0.01', '0.015', '0.02'),
  }),
  // maxPrice 1e308 is no bound at all: such a strategy is valid.
  fc.record({ kind: fc.constant('valid-dca' as const), maker, maxPrice: fc.constantFrom(null, 1e308) }),
  fc.record({ kind: fc.constant('absurd-limit' as const), maker, absurd: fc.constantFrom(...ABSURD_LIMITS) }),
  fc.record({
    kind: fc.constant('absurd-dca' as const),
    maker,
    absurd: fc.constantFrom(...ABSURD_STRATEGIES),
  }),
);
/** Array order is store order: strategies are scheduled oldest first, so an absurd one may precede valid ones. */
const mixArb = fc
  .array(rowArb, { minLength: 3, maxLength: 8 })
  .filter(
    (rows) => rows.some((r) => r.kind.startsWith('valid')) && rows.some((r) => r.kind.startsWith('absurd')),
  );

let e2e: WethUsdcKeeperE2e;
let service: RunningService;
let chain: ManifestChain;
let weth: ManifestToken;
let usdc: ManifestToken;
let makers: OrderMaker[];
let keeper: KeeperInstance;
let store: Store;

beforeAll(async () => {
  e2e = await startWethUsdcKeeperE2e();
  ({ service, chain, weth, usdc } = e2e);
  keeper = service.keepers[0]!;
  store = service.api.store;
  // The rows are written with API_KEY: the makers grant their pairs to it.
  makers = await prepareMakers(service, API_KEY);
}, 180_000);

afterAll(async () => {
  await service?.close();
});

interface Written {
  row: Row;
  /** Limit order id, or strategy id. */
  id: string;
}

function signatureOf(m: OrderMaker, tokenIn: ManifestToken, tokenOut: ManifestToken): string {
  return m.signatures.get(`${tokenIn.address}>${tokenOut.address}`)!;
}

/** Writes one row as the api would, then with the absurd values it would refuse, straight into the store. */
async function write(row: Row, createdAt: number): Promise<Written> {
  const m = makers[row.maker]!;
  const id = randomUUID();
  if (row.kind === 'valid-limit' || row.kind === 'absurd-limit') {
    const o = row.kind === 'absurd-limit' ? row.absurd.order : {};
    const [tokenIn, tokenOut] = o.sellUsdc ? [usdc, weth] : [weth, usdc];
    const trigger = o.priceTrigger ?? (o.sellUsdc ? '0.0002' : VALID_TRIGGER);
    await store.limitOrders.insert(
      newPendingLimitOrder(
        id,
        API_KEY,
        {
          accountTo: o.badMaker ? 'not-an-address' : m.wallet.address,
          chainId: chain.chainId,
          inTokenAddress: o.unlisted ? UNLISTED : tokenIn.address,
          outTokenAddress: tokenOut.address,
          tokenASymbol: tokenIn.symbol,
          tokenBSymbol: tokenOut.symbol,
          amount: row.kind === 'valid-limit' ? row.amount : (o.amount ?? '0.01'),
          price: trigger,
          priceTrigger: trigger,
          gasPrice: '1',
          slippage: o.slippage ?? '1',
          expired: String(Date.now() + 3_600_000),
          signature: signatureOf(m, tokenIn, tokenOut),
        },
        createdAt,
      ),
    );
    return { row, id };
  }
  const s = row.kind === 'absurd-dca' ? row.absurd.strategy : {};
  const [tokenFrom, tokenTo] = s.sellUsdc ? [usdc, weth] : [weth, usdc];
  await store.dca.insertStrategy({
    id,
    apiKey: API_KEY,
    accountTo: m.wallet.address,
    chainIdFrom: chain.chainId,
    chainIdTo: chain.chainId,
    tokenAddressFrom: s.unlisted ? UNLISTED : tokenFrom.address,
    tokenAddressTo: tokenTo.address,
    tokenSymbolFrom: tokenFrom.symbol,
    tokenSymbolTo: tokenTo.symbol,
    pair: `${tokenFrom.symbol}/${tokenTo.symbol}`,
    totalAmount: s.totalAmount ?? DCA_TOTAL,
    iterations: s.iterations ?? DCA_ITERATIONS,
    frequency: s.frequency ?? DCA_FREQUENCY_S,
    slippage: s.slippage ?? 1,
    minPrice: null,
    maxPrice: row.kind === 'valid-dca' ? row.maxPrice : null,
    status: 'active',
    signature: signatureOf(m, tokenFrom, tokenTo),
    maxFeeBps: null,
    iterationsCreated: 0,
    version: 0,
    createdAt,
    updatedAt: createdAt,
  });
  return { row, id };
}

interface LimitRow {
  status: string;
  reason_fail: string;
  tx_hash: string;
}
interface DcaOrderRow {
  id: string;
  status: string;
  transaction_hash: string | null;
}

const limitRow = async (id: string): Promise<LimitRow> =>
  (await store.knex('limit_orders').where({ id }).first()) as LimitRow;
const dcaOrders = async (strategyId: string): Promise<DcaOrderRow[]> =>
  (await store.knex('dca_orders').where({ strategy_id: strategyId }).orderBy('iteration')) as DcaOrderRow[];

/** Whether a row has reached its end: valid ones executed, absurd limit orders failed. */
async function settled(w: Written): Promise<boolean> {
  if (w.row.kind === 'valid-limit') return (await limitRow(w.id)).status === 'completed';
  if (w.row.kind === 'absurd-limit') return (await limitRow(w.id)).status === 'failed';
  if (w.row.kind === 'valid-dca') {
    const orders = await dcaOrders(w.id);
    return orders.length === DCA_ITERATIONS && orders.every((o) => o.status === 'successful');
  }
  return true;
}

async function setAsideCount(reason: string): Promise<number> {
  return (
    (await metricValue(keeper, 'tas_keeper_rows_set_aside_total', { kind: 'dca_strategy', reason })) ?? 0
  );
}

/** The OrderExecuted event of a WETH → USDC order (or iteration) of API_KEY in the transaction. */
async function executedEvent(
  txHash: string,
  id: string,
  maker: number,
  amountIn: bigint,
): Promise<OrderExecutedEvent | undefined> {
  const onchainId = onchainIdOf({
    id,
    apiKey: API_KEY,
    maker: makers[maker]!.wallet.address,
    tokenIn: weth.address,
    tokenOut: usdc.address,
    amountIn,
  });
  return (await executionEvents(service.provider, chain, txHash)).executed.find(
    (e) => e.onchainId === onchainId,
  );
}

async function expectMixOutcomes(rows: Row[]): Promise<void> {
  const reasons = [...new Set(ABSURD_STRATEGIES.map((a) => a.reason))];
  const setAsideBefore = new Map(
    await Promise.all(reasons.map(async (r) => [r, await setAsideCount(r)] as const)),
  );
  const balancesBefore = await Promise.all(makers.map((m) => e2e.balances(m.wallet.address)));
  const base = Date.now();
  const written: Written[] = [];
  for (const [i, row] of rows.entries()) written.push(await write(row, base + i));

  await waitFor(
    'every valid row executed and every absurd limit order failed',
    async () => ((await Promise.all(written.map(settled))).every(Boolean) ? true : undefined),
    RUN_TIMEOUT_MS,
    500,
  ).catch(async (err: Error) => {
    const states = await Promise.all(
      written.map(async (w) =>
        w.row.kind.endsWith('limit')
          ? `${w.row.kind} ${w.id}: ${(await limitRow(w.id)).status}`
          : `${w.row.kind} ${w.id}: ${(await dcaOrders(w.id)).map((o) => o.status).join(',') || 'no orders'}`,
      ),
    );
    throw new Error(`${err.message}\n  ${states.join('\n  ')}`);
  });

  // On-chain: each valid order's OrderExecuted event sold exactly its amount for its maker; the makers' balances
  // moved by exactly what those events say (absurd rows moved nothing).
  const spent = makers.map(() => ({ weth: 0n, usdc: 0n }));
  for (const w of written) {
    if (w.row.kind === 'valid-limit') {
      const order = await limitRow(w.id);
      const amountIn = parseUnits(w.row.amount, 18);
      const event = await executedEvent(order.tx_hash, w.id, w.row.maker, amountIn);
      expect(event).toMatchObject({ maker: makers[w.row.maker]!.wallet.address, amountIn });
      spent[w.row.maker]!.weth += event!.amountIn + event!.fee;
      spent[w.row.maker]!.usdc -= event!.amountOut;
    } else if (w.row.kind === 'valid-dca') {
      const amountIn = parseUnits(String(DCA_TOTAL / DCA_ITERATIONS), 18);
      for (const o of await dcaOrders(w.id)) {
        const event = await executedEvent(o.transaction_hash!, o.id, w.row.maker, amountIn);
        expect(event).toMatchObject({ maker: makers[w.row.maker]!.wallet.address, amountIn });
        spent[w.row.maker]!.weth += event!.amountIn + event!.fee;
        spent[w.row.maker]!.usdc -= event!.amountOut;
      }
    } else if (w.row.kind === 'absurd-limit') {
      const order = await limitRow(w.id);
      expect({ what: w.row.absurd.what, reasonFail: JSON.parse(order.reason_fail) as string[] }).toEqual({
        what: w.row.absurd.what,
        reasonFail: [w.row.absurd.reason],
      });
    } else {
      const strategy = (await store.knex('dca_strategies').where({ id: w.id }).first()) as {
        status: string;
        iterations_created: number;
      };
      expect({ what: w.row.absurd.what, ...strategy, orders: (await dcaOrders(w.id)).length }).toMatchObject({
        what: w.row.absurd.what,
        status: 'active',
        iterations_created: 0,
        orders: 0,
      });
    }
  }
  const balancesAfter = await Promise.all(makers.map((m) => e2e.balances(m.wallet.address)));
  for (const [i, m] of makers.entries()) {
    expect({ maker: m.wallet.address, weth: balancesBefore[i]!.weth - balancesAfter[i]!.weth }).toEqual({
      maker: m.wallet.address,
      weth: spent[i]!.weth,
    });
    expect({ maker: m.wallet.address, usdc: balancesBefore[i]!.usdc - balancesAfter[i]!.usdc }).toEqual({
      maker: m.wallet.address,
      usdc: spent[i]!.usdc,
    });
  }
  // Each absurd strategy was set aside once, with its reason.
  const setAside = async () =>
    Promise.all(
      reasons.map(async (reason) => ({
        reason,
        count: (await setAsideCount(reason)) - setAsideBefore.get(reason)!,
      })),
    );
  const expected = reasons.map((reason) => ({
    reason,
    count: rows.filter((r) => r.kind === 'absurd-dca' && r.absurd.reason === reason).length,
  }));
  await waitFor(
    'the absurd strategies set aside',
    async () => ((await setAside()).every((s, i) => s.count >= expected[i]!.count) ? true : undefined),
    10_000,
  ).catch(() => undefined);
  expect(await setAside()).toEqual(expected);
}

describe('keeper isolation', () => {
  it('executes every valid order and DCA iteration whatever absurd rows sit beside them, and fails or sets aside the absurd ones', async () => {
    // First, the case of the report: a strategy of 1e308 scheduled before valid ones, with a zero-amount order in
    // the batch of valid limit orders.
    const example: Row[] = [
      { kind: 'absurd-dca', maker: 0, absurd: ABSURD_STRATEGIES[0]! },
      { kind: 'valid-dca', maker: 1, maxPrice: 1e308 },
      { kind: 'absurd-limit', maker: 2, absurd: ABSURD_LIMITS[4]! },
      { kind: 'valid-limit', maker: 3, amount: '0.01' },
      { kind: 'absurd-dca', maker: 2, absurd: ABSURD_STRATEGIES[4]! },
      { kind: 'valid-limit', maker: 0, amount: '0.02' },
    ];
    // A mix the property once found: a maker that is no address beside an amount beyond uint256 (its on-chain id
    // could not be derived, and the row failed INVALID_AMOUNT instead of BAD_SIGNATURE).
    const limit = (what: string): AbsurdLimit => ABSURD_LIMITS.find((a) => a.what === what)!;
    const strategy = (what: string): AbsurdStrategy => ABSURD_STRATEGIES.find((a) => a.what === what)!;
    const found: Row[] = [
      { kind: 'absurd-dca', maker: 0, absurd: strategy('slippage 150') },
      { kind: 'valid-dca', maker: 2, maxPrice: 1e308 },
      { kind: 'absurd-limit', maker: 3, absurd: limit('maker not an address') },
      { kind: 'absurd-limit', maker: 0, absurd: limit('amount beyond uint256') },
      { kind: 'valid-limit', maker: 0, amount: '0.015' },
      { kind: 'absurd-dca', maker: 0, absurd: strategy('no iterations') },
      { kind: 'absurd-limit', maker: 2, absurd: limit('trigger with an exponent') },
    ];
    await fc.assert(
      fc.asyncProperty(mixArb, async (rows) => {
        await expectMixOutcomes(rows);
      }),
      // Every run executes real transactions: few runs, and no shrinking (each step would wait out a timeout).
      { numRuns: 6, examples: [[example], [found]], endOnFailure: true },
    );
  });
});
