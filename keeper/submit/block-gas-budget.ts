/**
 * The gas model a batch is sized with: what its transaction's gas limit comes to for `orders` orders of one pair
 * (keeper/plan/batch-simulation.ts sets the real limit from the routed group; `groupGas` stands for a group's
 * swap and price read there).
 */
export interface BatchGasModel {
  baseGas: bigint;
  perOrderGas: bigint;
  groupGas: bigint;
}

export interface BlockGasBudgetOptions {
  model: BatchGasModel;
  /** Orders per transaction at most (KEEPER_MAX_BATCH_ORDERS). */
  maxBatchOrders: number;
  /** Gas per transaction at most (KEEPER_BATCH_GAS_CAP). */
  batchGasCap: bigint;
  /** How many blocks' worth of our gas may wait unmined: more would only queue behind them at stale prices. */
  blocksAhead: number;
  /** A batch split to fill a block's rest keeps at least this many orders, else it waits for the next block. */
  minSplitOrders: number;
}

const MILLION = 1_000_000n;
/** However little recent batches used, a batch counts for at least a tenth of its limit. */
const MIN_USED_PER_MILLION = 100_000n;

/** A transaction of ours the budget counts until it is mined: sent, or reserved while its batch is planned. */
export interface QueuedBatch {
  gasLimit: bigint;
}

/** Where the queue of our unmined transactions ends, packed into blocks as a builder takes them. */
interface Packing {
  /** Blocks the queue takes (0 when it is empty). */
  blocks: number;
  /** Gas the queue is expected to use in its last block. */
  lastBlockUsed: bigint;
}

/**
 * Sizes the keeper's batches to the chain's blocks. A block builder takes a transaction while the block's gas used so
 * far plus the transaction's gas limit fits the block's gas limit, and our transactions are mined in the order they
 * were sent. So the budget keeps what was sent and is not yet mined, in order, packs it into blocks as a builder
 * would (taking one block's worth off per new head), and sizes the next batch to what is left of the block the
 * queue ends in: a batch whose gas limit would not fit there is split (the rest is the next batch, for the next
 * block). No batch's gas limit exceeds half a block, and sending stops once the queue reaches `blocksAhead` blocks.
 *
 * Batches are sized by the gas limit per order recent batches went out with (their limits come from the budgets
 * the simulation gave their groups; the model's figure until one went out). What a batch will use is its limit
 * times the share of their limits recent mined batches used (`observe`; the whole limit until one is mined).
 * Nothing here decides what is safe to send: an estimate off by a block costs a block, never an order.
 */
export class BlockGasBudget {
  private blockGasLimit: bigint | undefined;
  private head: number | undefined;
  private queue: QueuedBatch[] = [];
  /** Gas used and gas limits of recent mined batches, each observation decaying the ones before (see observe). */
  private recentUsed = 0n;
  private recentLimits = 0n;
  /**
   * Gas limit per order of recent batches sent, beyond the model's fixed part (their limits come from the
   * simulation's budgets), each batch weighted by its orders and older ones decaying as in observe.
   */
  private sentPerOrderGas = 0n;
  private sentOrders = 0n;

  constructor(private readonly opts: BlockGasBudgetOptions) {}

  /**
   * A batch of ours was mined: it used `gasUsed` of its `gasLimit`. The share counted from now on is that of the
   * recent batches, weighted by their limits, each older batch counting three quarters of the one after it.
   */
  observe(gasUsed: bigint, gasLimit: bigint): void {
    if (gasLimit <= 0n || gasUsed < 0n) return;
    this.recentUsed = (this.recentUsed * 3n) / 4n + (gasUsed < gasLimit ? gasUsed : gasLimit);
    this.recentLimits = (this.recentLimits * 3n) / 4n + gasLimit;
  }

  /** Millionths of its gas limit a batch is expected to use: all of it until a batch was mined. */
  private get usedPerMillion(): bigint {
    if (this.recentLimits === 0n) return MILLION;
    const share = (this.recentUsed * MILLION) / this.recentLimits;
    return share < MIN_USED_PER_MILLION ? MIN_USED_PER_MILLION : share;
  }

  /** The gas a transaction with this gas limit is expected to use. */
  private expected(gasLimit: bigint): bigint {
    return (gasLimit * this.usedPerMillion + MILLION - 1n) / MILLION;
  }

  /** A new head and its block's gas limit (undefined when unknown: batches are then sized by the caps alone). */
  onHead(head: number, blockGasLimit: bigint | undefined): void {
    if (blockGasLimit !== undefined && blockGasLimit > 0n) this.blockGasLimit = blockGasLimit;
    if (this.head !== undefined && head > this.head && this.blockGasLimit !== undefined) {
      for (let b = this.head; b < head && this.queue.length; b++) this.mineOneBlock(this.blockGasLimit);
    }
    if (this.head === undefined || head > this.head) this.head = head;
  }

  /** Takes off the queue what one block holds: a builder's pick, in order, at least one transaction. */
  private mineOneBlock(block: bigint): void {
    let used = 0n;
    let taken = 0;
    for (const tx of this.queue) {
      if (taken > 0 && used + tx.gasLimit > block) break;
      used += this.expected(tx.gasLimit);
      taken += 1;
    }
    this.queue.splice(0, taken);
  }

  /** The queue packed into blocks of `block` gas, as `mineOneBlock` would take them. */
  private packing(block: bigint): Packing {
    let blocks = 0;
    let used = 0n;
    for (const tx of this.queue) {
      if (blocks === 0 || used + tx.gasLimit > block) {
        blocks += 1;
        used = 0n;
      }
      used += this.expected(tx.gasLimit);
    }
    return { blocks, lastBlockUsed: used };
  }

  /** A transaction of ours went out with this gas limit. */
  sent(gasLimit: bigint): void {
    this.queue.push({ gasLimit });
  }

  /**
   * Counts a batch of `orders` as sent while it is planned (batches are planned side by side), with the gas limit
   * the model gives it; `settle` replaces that with what went out.
   */
  reserve(orders: number): QueuedBatch {
    const { model } = this.opts;
    const reserved = { gasLimit: model.baseGas + model.groupGas + this.perOrderGas * BigInt(orders) };
    this.queue.push(reserved);
    return reserved;
  }

  /** A reserved batch of `orders` went out with `gasLimit`, or did not go out (0). */
  settle(reserved: QueuedBatch, gasLimit: bigint, orders: number): void {
    if (gasLimit > 0n) {
      reserved.gasLimit = gasLimit;
      this.learnPerOrder(gasLimit, orders);
      return;
    }
    const at = this.queue.indexOf(reserved);
    if (at >= 0) this.queue.splice(at, 1);
  }

  /** Our unmined gas as the budget counts it (what it is expected to use). */
  get queuedGas(): bigint {
    return this.queue.reduce((sum, tx) => sum + this.expected(tx.gasLimit), 0n);
  }

  /** Orders the next batch may hold; 0 once our unmined transactions fill `blocksAhead` blocks. */
  nextBatchOrders(): number {
    const { opts } = this;
    const block = this.blockGasLimit;
    let cap = opts.batchGasCap;
    if (block !== undefined && block / 2n < cap) cap = block / 2n;
    const whole = Math.max(1, Math.min(opts.maxBatchOrders, this.ordersWithin(cap)));
    if (block === undefined) return whole;
    const { blocks, lastBlockUsed } = this.packing(block);
    if (blocks === 0) return whole;
    const fitting = this.ordersWithin(block - lastBlockUsed);
    if (blocks <= opts.blocksAhead) {
      if (fitting >= whole) return whole;
      if (fitting >= opts.minSplitOrders) return fitting;
    }
    // The batch would start a block of its own.
    return blocks < opts.blocksAhead ? whole : 0;
  }

  private learnPerOrder(gasLimit: bigint, orders: number): void {
    const { model } = this.opts;
    const fixed = model.baseGas + model.groupGas;
    if (orders <= 0 || gasLimit <= fixed) return;
    this.sentPerOrderGas = (this.sentPerOrderGas * 3n) / 4n + (gasLimit - fixed);
    this.sentOrders = (this.sentOrders * 3n) / 4n + BigInt(orders);
  }

  /**
   * The gas limit an order adds to a batch: what recent batches were sent with, between a quarter and twice the
   * model's (whose figure stands until a batch went out).
   */
  private get perOrderGas(): bigint {
    const { model } = this.opts;
    if (this.sentOrders === 0n) return model.perOrderGas;
    const seen = this.sentPerOrderGas / this.sentOrders;
    const low = model.perOrderGas / 4n;
    const high = model.perOrderGas * 2n;
    return seen < low ? low : seen > high ? high : seen;
  }

  /** Orders whose batch's gas limit stays within `gas`. */
  private ordersWithin(gas: bigint): number {
    const { model } = this.opts;
    const fixed = model.baseGas + model.groupGas;
    if (gas <= fixed) return 0;
    return Number((gas - fixed) / this.perOrderGas);
  }
}
