import fc from 'fast-check';
import { Transaction, Wallet, getAddress, hexlify } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { integratorOf, onchainOrderIdOf, orderRefOf } from '../../shared/domain/pair-authorization';
import type { OrderWork, OrderWorks } from '../../keeper/order-work';
import { encodeExecuteBatch, type BatchGroup } from '../../keeper/plan/execute-batch-call';
import { batchOutcomes } from '../../keeper/settle/batch-outcomes';
import { executionEvents, type ExecutionEvent } from '../../keeper/settle/execution-events';

/**
 * Settling a batch from its receipt's events: an order counts as executed only from an OrderExecuted event with
 * its own on-chain id (maker, pair, integrator, reference, amount, execution index), its maker and its amount: an
 * event of another
 * maker's order under a look-alike id, or of another amount, is not this order's outcome.
 */

const WETH = getAddress('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const makerA = Wallet.createRandom().address;
const makerB = Wallet.createRandom().address;
const integrator = integratorOf('key-of-the-integrator');

const orders = [
  { id: 'order-a', maker: makerA, amountIn: 10n ** 18n, index: 41n },
  { id: 'order-b', maker: makerB, amountIn: 2n * 10n ** 18n, index: 42n },
];

const group: BatchGroup = {
  tokenIn: WETH,
  tokenOut: USDC,
  paths: [{ weight: 1n, hops: [{ kind: 0, tokenOut: USDC, fee: 0, target: WETH, data: '0x' }] }],
  orders: orders.map((o) => ({
    ref: orderRefOf(o.id),
    index: o.index,
    integrator,
    maker: o.maker,
    amountIn: o.amountIn,
    fee: 0n,
    minAmountOut: 1n,
    signature: `0x${'11'.repeat(65)}`,
    maxFeeBps: 500,
  })),
};

const rawTx = Transaction.from({
  to: WETH,
  data: encodeExecuteBatch([group], 1n),
  chainId: 1n,
  nonce: 0,
  gasLimit: 1_000_000n,
  gasPrice: 1n,
}).unsignedSerialized;

const idOf = (o: (typeof orders)[number]) =>
  onchainOrderIdOf({
    maker: o.maker,
    tokenIn: WETH,
    tokenOut: USDC,
    integrator,
    ref: orderRefOf(o.id),
    amountIn: o.amountIn,
    index: o.index,
  });

const work = {
  kind: 'limit',
  settlementFacts: (ids: readonly string[]) =>
    Promise.resolve(
      new Map(ids.map((id) => [id, { attemptNumber: 0, decimals: { decimalsIn: 18, decimalsOut: 6 } }])),
    ),
} as unknown as OrderWork;
const works: OrderWorks = new Map([['limit', work]]);

const executed = (onchainId: string, maker: string, amountIn: bigint): ExecutionEvent => ({
  kind: 'executed',
  onchainId,
  maker: maker.toLowerCase(),
  amountIn,
  fee: 0n,
  amountOut: 5n,
});

async function settle(events: ExecutionEvent[]) {
  const { outcomes } = await batchOutcomes(
    { orders: orders.map((o) => ({ kind: 'limit' as const, id: o.id })), rawTx },
    events,
    works,
    1_000,
  );
  return outcomes.map((o) => [o.id, o.outcome === 'executed' ? 'completed' : 'failed']);
}

describe('settling a batch from its events', () => {
  it("completes each order from its own event (the contract's id, maker and amount)", async () => {
    expect(await settle(orders.map((o) => executed(idOf(o), o.maker, o.amountIn)))).toEqual([
      ['order-a', 'completed'],
      ['order-b', 'completed'],
    ]);
  });

  it('does not complete an order from an event of the old keccak(serviceId) id, another index, another maker or another amount', async () => {
    const [a, b] = orders as [(typeof orders)[number], (typeof orders)[number]];
    expect(await settle([executed(orderRefOf(a.id).toLowerCase(), a.maker, a.amountIn)])).toEqual([
      ['order-a', 'failed'],
      ['order-b', 'failed'],
    ]);
    // The same order under another execution index: another order (one that spent a's index, say).
    expect(
      await settle([
        executed(idOf({ ...a, index: b.index }), a.maker, a.amountIn),
        executed(idOf({ ...b, index: a.index }), b.maker, b.amountIn),
      ]),
    ).toEqual([
      ['order-a', 'failed'],
      ['order-b', 'failed'],
    ]);
    expect(
      await settle([executed(idOf(a), b.maker, a.amountIn), executed(idOf(b), b.maker, b.amountIn + 1n)]),
    ).toEqual([
      ['order-a', 'failed'],
      ['order-b', 'failed'],
    ]);
  });

  it("reads an OrderFailed reason only when it is this maker's", async () => {
    const [a] = orders as [(typeof orders)[number]];
    const { outcomes } = await batchOutcomes(
      { orders: [{ kind: 'limit' as const, id: a.id }], rawTx },
      [{ kind: 'failed', onchainId: idOf(a), maker: makerB.toLowerCase(), reason: 'ZERO_AMOUNT' }],
      works,
      1_000,
    );
    expect(outcomes[0]).toMatchObject({ outcome: 'failed', reason: 'TRANSACTION_REVERTED' });
  });
});

describe('reading execution events from raw logs', () => {
  const iface = orderExecutorInterface();
  const executor = Wallet.createRandom().address;
  const log = (name: 'OrderExecuted' | 'OrderFailed', args: unknown[], address = executor) => {
    const { topics, data } = iface.encodeEventLog(name, args);
    return { address: address.toLowerCase(), topics, data };
  };

  it('reads every OrderExecuted and OrderFailed of the executor as ethers decodes them, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.string({ maxLength: 40 }),
        (idBytes, amountIn, fee, amountOut, reason) => {
          const id = hexlify(idBytes);
          const logs = [
            log('OrderExecuted', [id, makerA, amountIn, fee, amountOut]),
            log('OrderExecuted', [id, makerA, amountIn, fee, amountOut], makerB),
            log('OrderFailed', [id, makerB, reason]),
          ];
          expect(executionEvents(logs, getAddress(executor))).toEqual([
            { kind: 'executed', onchainId: id, maker: makerA.toLowerCase(), amountIn, fee, amountOut },
            { kind: 'failed', onchainId: id, maker: makerB.toLowerCase(), reason },
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
