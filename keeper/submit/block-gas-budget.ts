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

/**
 * Sizes the keeper's batches to the chain's blocks. A block builder takes a transaction while the block's gas used so
 * far plus its gas limit fits the block's gas limit, and our transactions are mined in the order they were sent. So
 * the budget keeps the gas limits of what was sent and is not yet mined, counts one block's gas limit off it per new
 * block, and sizes the next batch to what is left of the block that queue is filling: a batch that would not fit
 * there is split (the rest is the next batch, for the next block). No batch exceeds half a block, so two fit one.
 * Nothing here decides what is safe to send: an estimate off by a block costs a block, never an order.
 */
export class BlockGasBudget {
  private blockGasLimit: bigint | undefined;
  private head: number | undefined;
  private queued = 0n;

  constructor(private readonly opts: BlockGasBudgetOptions) {}

  /** A new head and its block's gas limit (undefined when unknown: batches are then sized by the caps alone). */
  onHead(head: number, blockGasLimit: bigint | undefined): void {
    if (blockGasLimit !== undefined && blockGasLimit > 0n) this.blockGasLimit = blockGasLimit;
    if (this.head !== undefined && head > this.head && this.blockGasLimit !== undefined) {
      const drained = this.blockGasLimit * BigInt(head - this.head);
      this.queued = this.queued > drained ? this.queued - drained : 0n;
    }
    if (this.head === undefined || head > this.head) this.head = head;
  }

  /** A transaction of ours went out with this gas limit. */
  sent(gasLimit: bigint): void {
    this.queued += gasLimit;
  }

  /**
   * Counts a batch of `orders` as sent while it is planned (batches are planned side by side): what the model gives
   * its gas limit. `settle` replaces that with what went out.
   */
  reserve(orders: number): bigint {
    const { model } = this.opts;
    const gas = model.baseGas + model.groupGas + model.perOrderGas * BigInt(orders);
    this.queued += gas;
    return gas;
  }

  /** A reserved batch went out with `gasLimit`, or did not go out (0). */
  settle(reserved: bigint, gasLimit: bigint): void {
    const queued = this.queued - reserved + gasLimit;
    this.queued = queued > 0n ? queued : 0n;
  }

  /** Our unmined gas as the budget counts it. */
  get queuedGas(): bigint {
    return this.queued;
  }

  /** Orders the next batch may hold; 0 while `blocksAhead` blocks' worth of our gas waits unmined. */
  nextBatchOrders(): number {
    const { opts } = this;
    const block = this.blockGasLimit;
    let cap = opts.batchGasCap;
    if (block !== undefined) {
      if (this.queued >= block * BigInt(opts.blocksAhead)) return 0;
      if (block / 2n < cap) cap = block / 2n;
    }
    const whole = Math.min(opts.maxBatchOrders, this.ordersWithin(cap));
    if (block === undefined) return Math.max(1, whole);
    const room = block - (this.queued % block);
    const fitting = this.ordersWithin(room);
    if (fitting >= whole) return Math.max(1, whole);
    return fitting >= opts.minSplitOrders ? fitting : Math.max(1, whole);
  }

  /** Orders whose batch's gas limit stays within `gas`. */
  private ordersWithin(gas: bigint): number {
    const { model } = this.opts;
    const fixed = model.baseGas + model.groupGas;
    if (gas <= fixed) return 0;
    return Number((gas - fixed) / model.perOrderGas);
  }
}
