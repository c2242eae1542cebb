import { randomUUID } from 'node:crypto';
import type { DcaOrder, DcaStrategy } from '../../shared/domain/dca';
import { newPendingLimitOrder, type LimitOrder } from '../../shared/domain/limit-order';
import { openStore, type Store } from '../../shared/store/store';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

/**
 * The reads behind GET /order-authorization: one key's orders and strategies of a maker selling a token, on
 * SQLite and MySQL alike. Addresses are stored as sent, so the match must ignore case on both.
 */

const KEY = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
const OTHER_KEY = '6fa459ea-ee8a-3ca4-894e-db77e160355e';
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const LINK = '0x514910771AF9Ca656af840dff83E8264EcF986CA';
const NOW = 1_800_000_000_000;

function limitOrder(over: Partial<LimitOrder> & { createdAt?: number } = {}): LimitOrder {
  return {
    ...newPendingLimitOrder(
      randomUUID(),
      KEY,
      {
        accountTo: MAKER,
        chainId: 1,
        inTokenAddress: WETH,
        outTokenAddress: USDC,
        tokenASymbol: 'WETH',
        tokenBSymbol: 'USDC',
        amount: '1',
        price: '3500',
        priceTrigger: '3500',
        gasPrice: '20',
        slippage: '0.5',
        expired: String(NOW + 86_400_000),
        signature: `0x${'ab'.repeat(65)}`,
      },
      over.createdAt ?? NOW,
    ),
    ...over,
  };
}

function strategy(over: Partial<DcaStrategy> = {}): DcaStrategy {
  return {
    id: randomUUID(),
    apiKey: KEY,
    accountTo: MAKER,
    chainIdFrom: 1,
    chainIdTo: 1,
    tokenAddressFrom: WETH,
    tokenAddressTo: USDC,
    tokenSymbolFrom: 'WETH',
    tokenSymbolTo: 'USDC',
    pair: 'WETH/USDC',
    totalAmount: 3,
    iterations: 3,
    frequency: 60,
    slippage: 1,
    minPrice: null,
    maxPrice: null,
    status: 'active',
    signature: `0x${'cd'.repeat(65)}`,
    iterationsCreated: 0,
    version: 0,
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

function dcaOrder(s: DcaStrategy, iteration: number, status: DcaOrder['status']): DcaOrder {
  return {
    id: randomUUID(),
    strategyId: s.id,
    apiKey: s.apiKey,
    accountTo: s.accountTo,
    iteration,
    slotAt: s.createdAt + iteration * s.frequency * 1000,
    amount: s.totalAmount / s.iterations,
    amountReceived: null,
    executionPrice: null,
    status,
    transactionHash: null,
    errorMessage: null,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

const PAIR = {
  chainId: 1,
  maker: MAKER.toLowerCase(),
  tokenIn: WETH.toUpperCase().replace('0X', '0x'),
  tokenOut: USDC,
};

describeEachStore('orders of a maker selling a token', (kind) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  });
  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  it("lists the key's open orders selling the token and the pair's orders of any status, whatever the case", async () => {
    const lower = limitOrder({
      accountTo: MAKER.toLowerCase(),
      inTokenAddress: WETH.toLowerCase(),
      createdAt: NOW + 1,
    });
    const submitted = limitOrder({ status: 'submitted', outTokenAddress: LINK, createdAt: NOW + 2 });
    const completedPair = limitOrder({ status: 'completed', createdAt: NOW + 3 });
    const excluded = [
      limitOrder({ status: 'completed', outTokenAddress: LINK }), // closed, other pair
      limitOrder({ apiKey: OTHER_KEY }), // another key
      limitOrder({ chainId: 137 }), // another chain
      limitOrder({ inTokenAddress: USDC, outTokenAddress: WETH }), // sells another token
      limitOrder({ accountTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }), // another maker
    ];
    for (const o of [lower, submitted, completedPair, ...excluded]) await store.limitOrders.insert(o);
    const found = await store.limitOrders.listOfMakerSelling(KEY, PAIR, [
      'pending',
      'executing',
      'submitted',
    ]);
    expect(found.map((o) => o.id)).toEqual([completedPair.id, submitted.id, lower.id]);
  });

  it('lists active strategies with their orders, and the pair’s strategies of any status without them', async () => {
    const active = strategy({ accountTo: MAKER.toLowerCase(), tokenAddressTo: LINK, createdAt: NOW + 1 });
    const finishedPair = strategy({ status: 'finished', createdAt: NOW + 2 });
    const excluded = [
      strategy({ status: 'cancelled', tokenAddressTo: LINK }),
      strategy({ apiKey: OTHER_KEY }),
      strategy({ tokenAddressFrom: USDC, tokenAddressTo: WETH }),
    ];
    for (const s of [active, finishedPair, ...excluded]) await store.dca.insertStrategy(s);
    await store.dca.insertOrder(dcaOrder(active, 0, 'successful'));
    await store.dca.insertOrder(dcaOrder(active, 1, 'pending'));
    await store.dca.insertOrder(dcaOrder(finishedPair, 0, 'successful'));
    const found = await store.dca.listOfMakerSelling(KEY, PAIR);
    expect(found.map((s) => [s.id, s.orders.map((o) => [o.iteration, o.status]).sort()])).toEqual([
      [finishedPair.id, []],
      [
        active.id,
        [
          [0, 'successful'],
          [1, 'pending'],
        ],
      ],
    ]);
  });
});
