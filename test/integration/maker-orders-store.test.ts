import { CHAIN_1, FACTORY_MAKER } from '../factories/defaults';
import {
  STORED_API_KEY,
  STORED_NOW,
  storedDcaOrder,
  storedDcaStrategy,
  storedLimitOrder,
} from '../factories/stored-orders';
import { openStore, type Store } from '../../shared/store/store';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

/**
 * The reads behind GET /order-authorization: one key's orders and strategies of a maker selling a token, on
 * SQLite and MySQL alike. Addresses are stored as sent, so the match must ignore case on both.
 */

const KEY = STORED_API_KEY;
const OTHER_KEY = '6fa459ea-ee8a-3ca4-894e-db77e160355e';
const MAKER = FACTORY_MAKER;
const WETH = CHAIN_1.WETH.address;
const USDC = CHAIN_1.USDC.address;
const LINK = '0x514910771AF9Ca656af840dff83E8264EcF986CA';
const NOW = STORED_NOW;
const limitOrder = storedLimitOrder;
const strategy = storedDcaStrategy;
const dcaOrder = storedDcaOrder;

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
