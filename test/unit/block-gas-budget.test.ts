import { BlockGasBudget } from '../../keeper/submit/block-gas-budget';

const M = 1_000_000n;

/** 100k base + 100k per group + 50k per order: a batch of n orders has a gas limit of 200k + 50k·n. */
function budget(opts: { maxBatchOrders?: number; batchGasCap?: bigint; blocksAhead?: number } = {}) {
  return new BlockGasBudget({
    model: { baseGas: 100_000n, perOrderGas: 50_000n, groupGas: 100_000n },
    maxBatchOrders: opts.maxBatchOrders ?? 1000,
    batchGasCap: opts.batchGasCap ?? 100n * M,
    blocksAhead: opts.blocksAhead ?? 2,
    minSplitOrders: 10,
  });
}

const gasOf = (orders: number): bigint => 200_000n + 50_000n * BigInt(orders);

describe('BlockGasBudget: batches sized to the blocks they go into', () => {
  it('sizes by the caps alone before it knows a block gas limit', () => {
    expect(budget({ batchGasCap: 12n * M }).nextBatchOrders()).toBe(236);
    expect(budget({ batchGasCap: 12n * M, maxBatchOrders: 50 }).nextBatchOrders()).toBe(50);
  });

  it('holds a batch to half a block, so two fit one', () => {
    const b = budget();
    b.onHead(10, 30n * M);
    expect(b.nextBatchOrders()).toBe(296);
    expect(gasOf(296)).toBeLessThanOrEqual(15n * M);
  });

  it('splits a batch that would not fit what is left of the block the queue is filling', () => {
    const b = budget();
    b.onHead(10, 30n * M);
    b.sent(gasOf(296));
    b.sent(gasOf(200));
    // 30M − 25.0M left: 96 orders fill it; the next batch goes whole into the next block.
    const room = 30n * M - gasOf(296) - gasOf(200);
    const split = b.nextBatchOrders();
    expect(gasOf(split)).toBeLessThanOrEqual(room);
    expect(gasOf(split + 1)).toBeGreaterThan(room);
    b.sent(gasOf(split));
    expect(b.nextBatchOrders()).toBe(296);
  });

  it('does not split below the minimum: the batch waits whole for the next block', () => {
    const b = budget();
    b.onHead(10, 30n * M);
    b.sent(29n * M + 600_000n);
    expect(b.nextBatchOrders()).toBe(296);
  });

  it('stops once blocksAhead blocks of our gas wait unmined, and drains a block per new block', () => {
    const b = budget({ blocksAhead: 2 });
    b.onHead(10, 30n * M);
    b.sent(60n * M);
    expect(b.nextBatchOrders()).toBe(0);
    b.onHead(11, undefined);
    expect(b.queuedGas).toBe(30n * M);
    expect(b.nextBatchOrders()).toBe(296);
    b.onHead(14, 30n * M);
    expect(b.queuedGas).toBe(0n);
    // An older head (a reorg, a slow feed) drains nothing.
    b.sent(10n * M);
    b.onHead(12, 30n * M);
    expect(b.queuedGas).toBe(10n * M);
  });
});
