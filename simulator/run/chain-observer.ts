import { Contract, type JsonRpcProvider, type Log } from 'ethers';
import { ERC20_ABI, orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { keysOfBatch } from '../../shared/chain/batch-order-keys';
import type { ObservedExecution } from '../report/report-types';

interface RawTransaction {
  hash: string;
  to: string | null;
  input: string;
}

interface RawReceipt {
  transactionHash: string;
  from: string;
  to: string | null;
  status: string;
  gasUsed: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
}

export interface BlockObservation {
  executions: ObservedExecution[];
  /** The mover's trades of the block that reverted (a market the run could not move). */
  moverFailures: number;
}

/** An order of a batch as its calldata states it: the run's key of it (orderKeyOf) and its group's pair. */
interface BatchEntry {
  key: string;
  tokenIn: string;
  tokenOut: string;
}

/**
 * Reads what the keeper did in each block of a run from the chain alone: every OrderExecuted and OrderFailed event of
 * the OrderExecutor, with its transaction's gas and batch size, each matched to the order of the transaction's
 * calldata whose OrderExecutor.orderId is the event's id (which gives the run's key of the order and its pair); and
 * checks, for every maker with an execution in the block, that its balances of both tokens moved across the block
 * by exactly what its executions say (the amount in plus the fee out of the sold token, the amount out into the
 * bought one). A mismatch, or an event no order of its transaction explains, throws: a report never names a fill
 * the chain does not show.
 */
export class ChainObserver {
  private readonly iface = orderExecutorInterface();

  constructor(
    private readonly chainId: number,
    private readonly provider: JsonRpcProvider,
    private readonly orderExecutor: string,
    private readonly mover: string,
  ) {}

  /** The chain's block `chainBlock`, reported as the run's block `block`. */
  async observe(chainBlock: number, block: number): Promise<BlockObservation> {
    const tag = `0x${chainBlock.toString(16)}`;
    const [receipts, raw] = (await Promise.all([
      this.provider.send('eth_getBlockReceipts', [tag]),
      this.provider.send('eth_getBlockByNumber', [tag, true]),
    ])) as [RawReceipt[], { transactions: RawTransaction[] }];
    const inputs = new Map(raw.transactions.map((tx) => [tx.hash.toLowerCase(), tx]));
    const executions: ObservedExecution[] = [];
    let moverFailures = 0;
    for (const receipt of receipts) {
      if (receipt.from.toLowerCase() === this.mover.toLowerCase() && BigInt(receipt.status) !== 1n)
        moverFailures++;
      const outcomes = this.outcomesOf(receipt, inputs.get(receipt.transactionHash.toLowerCase()), block);
      executions.push(...outcomes);
    }
    await this.checkBalances(
      chainBlock,
      executions.filter((e) => e.executed),
    );
    return { executions, moverFailures };
  }

  /** The orders of an executeBatch transaction by their OrderExecutor.orderId (empty for any other call). */
  private batchOf(tx: RawTransaction | undefined): Map<string, BatchEntry> {
    const entries = new Map<string, BatchEntry>();
    if (!tx?.to || tx.to.toLowerCase() !== this.orderExecutor.toLowerCase()) return entries;
    for (const [id, order] of keysOfBatch(tx.input)) {
      entries.set(id, {
        key: order.key,
        tokenIn: order.tokenIn.toLowerCase(),
        tokenOut: order.tokenOut.toLowerCase(),
      });
    }
    return entries;
  }

  private outcomesOf(
    receipt: RawReceipt,
    tx: RawTransaction | undefined,
    block: number,
  ): ObservedExecution[] {
    const outcomes: ObservedExecution[] = [];
    let batch: Map<string, BatchEntry> | undefined;
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== this.orderExecutor.toLowerCase()) continue;
      const parsed = this.iface.parseLog({ topics: [...log.topics], data: log.data } as Pick<
        Log,
        'topics' | 'data'
      >);
      if (parsed?.name !== 'OrderExecuted' && parsed?.name !== 'OrderFailed') continue;
      const executed = parsed.name === 'OrderExecuted';
      const id = String(parsed.args.getValue('id')).toLowerCase();
      batch ??= this.batchOf(tx);
      const entry = batch.get(id);
      if (!entry) {
        throw new Error(
          `chain ${this.chainId} block ${block}: ${parsed.name} ${id} of ${receipt.transactionHash} names no order ` +
            'of its transaction',
        );
      }
      outcomes.push({
        chainId: this.chainId,
        onchainId: entry.key,
        block,
        txHash: receipt.transactionHash.toLowerCase(),
        gasUsed: Number(BigInt(receipt.gasUsed)),
        batchSize: 0,
        executed,
        maker: String(parsed.args.getValue('maker')).toLowerCase(),
        tokenIn: executed ? entry.tokenIn : '',
        tokenOut: executed ? entry.tokenOut : '',
        amountIn: executed ? String(parsed.args.getValue('amountIn')) : '0',
        fee: executed ? String(parsed.args.getValue('fee')) : '0',
        amountOut: executed ? String(parsed.args.getValue('amountOut')) : '0',
        reason: executed ? null : String(parsed.args.getValue('reason')),
        balanceChecked: false,
      });
    }
    for (const outcome of outcomes) outcome.batchSize = outcomes.length;
    return outcomes;
  }

  private async checkBalances(block: number, executed: ObservedExecution[]): Promise<void> {
    // Expected change per maker and token over the block.
    const expected = new Map<string, { maker: string; token: string; delta: bigint }>();
    const add = (maker: string, token: string, delta: bigint): void => {
      const key = `${maker}:${token}`;
      const entry = expected.get(key) ?? { maker, token, delta: 0n };
      entry.delta += delta;
      expected.set(key, entry);
    };
    for (const e of executed) {
      add(e.maker, e.tokenIn, -(BigInt(e.amountIn) + BigInt(e.fee)));
      add(e.maker, e.tokenOut, BigInt(e.amountOut));
    }
    await Promise.all(
      [...expected.values()].map(async ({ maker, token, delta }) => {
        const erc20 = new Contract(token, ERC20_ABI, this.provider).getFunction('balanceOf');
        const [before, after] = (await Promise.all([
          erc20(maker, { blockTag: block - 1 }),
          erc20(maker, { blockTag: block }),
        ])) as [bigint, bigint];
        if (after - before !== delta) {
          throw new Error(
            `chain ${this.chainId} block ${block}: maker ${maker}'s balance of ${token} moved by ${after - before}, ` +
              `its executions say ${delta}`,
          );
        }
      }),
    );
    for (const e of executed) e.balanceChecked = true;
  }
}
