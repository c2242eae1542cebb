import { getAddress } from 'ethers';
import type { ChainClient } from '../../shared/chain/chain-client';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import type { PairBound } from '../../shared/domain/price-bound';

/**
 * The OrderExecutor's price bound of a pair, read once per pair and head of the chain's pool state: the batches
 * planned on one block (several a block in a crossing wave) share one read instead of each waiting for its own, as
 * they share the head's gas price. The bound of a block is what every read at that block answers; the contract
 * applies its own at inclusion whatever the keeper read. A read that fails is not kept (the next batch asks again);
 * the answer "no bound" is kept for the head like any other.
 */
export class PairBoundReader {
  private head: number | undefined;
  private readonly byPair = new Map<string, Promise<PairBound | undefined>>();
  private maxDeviationBps: Promise<bigint> | undefined;

  constructor(
    private readonly client: Pick<ChainClient, 'call'>,
    private readonly orderExecutor: string,
  ) {}

  /**
   * The bound of tokenIn → tokenOut at `head`; undefined when the chain has no bound for it (a token without a
   * configured source, too little pool history, a stale or broken feed): the contract would fail its orders
   * NO_PRICE_BOUND. Rejects when the chain cannot be read.
   */
  read(tokenIn: string, tokenOut: string, head: number): Promise<PairBound | undefined> {
    if (head !== this.head) {
      this.head = head;
      this.byPair.clear();
    }
    const key = `${tokenIn.toLowerCase()}>${tokenOut.toLowerCase()}`;
    let bound = this.byPair.get(key);
    if (!bound) {
      const read = this.fetch(tokenIn, tokenOut);
      bound = read;
      this.byPair.set(key, read);
      read.catch(() => {
        if (this.byPair.get(key) === read) this.byPair.delete(key);
      });
    }
    return bound;
  }

  private async fetch(tokenIn: string, tokenOut: string): Promise<PairBound | undefined> {
    const iface = orderExecutorInterface();
    const to = this.orderExecutor;
    const deviationBps = await this.deviation();
    let data: string;
    try {
      data = await this.client.call({
        to,
        data: iface.encodeFunctionData('priceBound', [getAddress(tokenIn), getAddress(tokenOut)]),
      });
    } catch (err) {
      // A broken source reverts the view: the contract's batch reads that as no bound too.
      if ((err as { code?: string }).code === 'CALL_EXCEPTION') return undefined;
      throw err;
    }
    const priceX128 = BigInt(iface.decodeFunctionResult('priceBound', data)[0] as bigint);
    return priceX128 === 0n ? undefined : { priceX128, deviationBps };
  }

  /** The contract's deviation allowed below the bound: a constant of the deployment, read once. */
  private deviation(): Promise<bigint> {
    if (!this.maxDeviationBps) {
      const iface = orderExecutorInterface();
      const read = this.client
        .call({ to: this.orderExecutor, data: iface.encodeFunctionData('maxDeviationBps', []) })
        .then((data) => BigInt(iface.decodeFunctionResult('maxDeviationBps', data)[0] as bigint));
      this.maxDeviationBps = read;
      read.catch(() => {
        if (this.maxDeviationBps === read) this.maxDeviationBps = undefined;
      });
    }
    return this.maxDeviationBps;
  }
}
