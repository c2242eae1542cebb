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

  it('stops once our unmined transactions fill blocksAhead blocks, and takes a block off per new head', () => {
    const b = budget({ blocksAhead: 2 });
    b.onHead(10, 30n * M);
    // Four of 15M: two per block, two blocks.
    for (let i = 0; i < 4; i++) b.sent(15n * M);
    expect(b.nextBatchOrders()).toBe(0);
    b.onHead(11, undefined);
    expect(b.queuedGas).toBe(30n * M);
    expect(b.nextBatchOrders()).toBe(296);
    b.onHead(14, 30n * M);
    expect(b.queuedGas).toBe(0n);
    // An older head (a reorg, a slow feed) takes nothing off.
    b.sent(10n * M);
    b.onHead(12, 30n * M);
    expect(b.queuedGas).toBe(10n * M);
  });

  it('packs by gas used and gas limits as a builder does: blocks fill by what batches use', () => {
    const b = budget({ blocksAhead: 2 });
    b.onHead(10, 30n * M);
    // Until a batch is mined, a batch counts for its whole limit: 4 of 15M reach two blocks.
    for (let i = 0; i < 4; i++) b.sent(15n * M);
    expect(b.nextBatchOrders()).toBe(0);
    // Batches used 40 % of their limits: a batch of 15M counts for 6M, and a block takes one while what it used so
    // far plus the batch's limit fits: 6 + 6 + 15 = 27M, then 18 + 15 = 33M does not: three per block.
    const fresh = budget({ blocksAhead: 2 });
    fresh.onHead(10, 30n * M);
    for (let i = 0; i < 40; i++) fresh.observe(4n * M, 10n * M);
    for (let i = 0; i < 4; i++) fresh.sent(15n * M);
    // The queue ends in its second block with 6M used: a batch of up to 24M of limit fits; half a block is the cap.
    expect(fresh.nextBatchOrders()).toBe(296);
    fresh.sent(15n * M);
    fresh.sent(15n * M);
    // Three in the second block too, 18M used: the next batch is split to the 12M of limit left.
    const split = fresh.nextBatchOrders();
    expect(gasOf(split)).toBeLessThanOrEqual(12n * M);
    expect(gasOf(split + 1)).toBeGreaterThan(12n * M);
    // A batch that did not fit starts a third block: nothing more until a block is mined.
    fresh.sent(15n * M);
    expect(fresh.nextBatchOrders()).toBe(0);
    // The first block took three: four remain (24M expected), in two blocks again, the second with 6M used.
    fresh.onHead(11, 30n * M);
    expect(Number(fresh.queuedGas)).toBeGreaterThanOrEqual(23_990_000);
    expect(Number(fresh.queuedGas)).toBeLessThanOrEqual(24_000_000);
    expect(fresh.nextBatchOrders()).toBe(296);
  });

  it('forgets a reserved batch that did not go out, and counts one that did at its real limit', () => {
    const b = budget({ blocksAhead: 1 });
    b.onHead(10, 30n * M);
    const first = b.reserve(100);
    expect(b.queuedGas).toBe(gasOf(100));
    b.settle(first, 0n, 100);
    expect(b.queuedGas).toBe(0n);
    const second = b.reserve(100);
    b.settle(second, 7n * M, 100);
    expect(b.queuedGas).toBe(7n * M);
  });

  it('sizes batches by the gas limits recent batches went out with, within a quarter and twice the model', () => {
    const b = budget({ batchGasCap: 12n * M });
    b.onHead(10, 30n * M);
    expect(b.nextBatchOrders()).toBe(236);
    // Budgeted from their simulation, 100 orders went out with 25k each beyond the fixed 200k.
    b.settle(b.reserve(100), 200_000n + 25_000n * 100n, 100);
    expect(b.nextBatchOrders()).toBe(472);
    // A later batch at 75k per order weighs in with its orders, the earlier one decayed by a quarter.
    b.settle(b.reserve(100), 200_000n + 75_000n * 100n, 100);
    const perOrder = (25_000n * 75n + 75_000n * 100n) / 175n;
    expect(b.nextBatchOrders()).toBe(Number((12n * M - 200_000n) / perOrder));

    const cheap = budget({ batchGasCap: 12n * M });
    cheap.settle(cheap.reserve(100), 200_000n + 1_000n * 100n, 100);
    expect(cheap.nextBatchOrders()).toBe(Number((12n * M - 200_000n) / 12_500n));
    const dear = budget({ batchGasCap: 12n * M });
    dear.settle(dear.reserve(10), 200_000n + 500_000n * 10n, 10);
    expect(dear.nextBatchOrders()).toBe(Number((12n * M - 200_000n) / 100_000n));
  });

  it('weighs recent batches by their limits, the latest most', () => {
    const b = budget();
    b.onHead(10, 30n * M);
    b.observe(1n * M, 10n * M);
    b.observe(9n * M, 10n * M);
    // (0.75 × 1M + 9M) / (0.75 × 10M + 10M) = 55.7 % of the next batch's limit.
    b.sent(10n * M);
    expect(b.queuedGas).toBe(5_571_420n);
  });

  it('never counts a batch for less than a tenth of its limit, nor for more than all of it', () => {
    const b = budget();
    b.onHead(10, 30n * M);
    for (let i = 0; i < 50; i++) b.observe(0n, 10n * M);
    b.sent(10n * M);
    expect(b.queuedGas).toBe(1n * M);
    const over = budget();
    over.onHead(10, 30n * M);
    for (let i = 0; i < 50; i++) over.observe(20n * M, 10n * M);
    over.sent(10n * M);
    expect(over.queuedGas).toBe(10n * M);
  });
});
