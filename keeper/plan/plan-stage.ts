import { formatUnits } from 'ethers';
import { calldataOfRawTransaction } from '../../shared/chain/raw-transaction-data';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { ChainConfig, ChainContracts } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import type { QuoteEngine } from '../../shared/routing/quote-engine';
import type { Prices } from '../../shared/routing/prices/usd-prices';
import type { KeeperTransactionsRepository } from '../../shared/store/repositories/keeper-transactions-repository';
import { isStoreUnreachable } from '../../shared/store/store-unreachable';
import { diagnosisPrice, type OrderDiagnoses } from '../diagnose/order-diagnoses';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderMoves } from '../order-moves';
import type { RowGuard } from '../row-guard';
import { isOutageError, type ChainAvailability } from '../watch/chain-availability';
import { planGroup, type PlannedGroup, type PlannedOrder, type PricedOrder } from './batch-planner';
import { PairBoundReader } from './pair-bound-reader';
import { checksumAddress } from '../../shared/chain/checksum-address';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { batchPulls } from './execute-batch-call';
import { GAS_PER_ORDER, executionFee } from '../../shared/routing/execution-fee';
import type { ExecutionOrder } from './execution-order';
import { fundingRecheckDelay, judgeFunding, pullsOf, readFunding, type ShortOrder } from './funding-check';
import { simulateBatch } from './batch-simulation';
import type { TxRequest } from '../outbox/executor-wallet';
import { PairSignatureVerifier } from '../../shared/domain/pair-signature';
import { DEFAULT_MAX_DEVIATION_BPS } from '../../shared/domain/pair-authorization';

/**
 * A batch ready to submit: one group per pair, the gas price its fees were computed at, and the OrderExecutor call
 * that runs it, simulated from the wallet that is to send it.
 */
export interface BatchPlan {
  groups: PlannedGroup[];
  planned: PlannedOrder[];
  gasPrice: bigint;
  call: TxRequest;
  /** What the plan's funds are reserved under until `PlanStage.done`. */
  reservation: object;
}

interface HeadReads {
  gasPrice: bigint;
  maxFeeBps: bigint;
  /** The latest block's timestamp (0 when it could not be read). */
  timestamp: number;
}

/** What a simulation that did not pass means for the batch's orders. */
const SIMULATION_FAILURES = { RPC_ERROR: 'RPC_ERROR', REVERTED: 'TRANSACTION_REVERTED' } as const;

export interface PlanStageDeps {
  chain: ChainConfig & { contracts: ChainContracts };
  client: ChainClient;
  engine: QuoteEngine;
  prices: Prices;
  transactions: KeeperTransactionsRepository;
  availability: ChainAvailability;
  moves: OrderMoves;
  guard: RowGuard;
  metrics: KeeperMetrics;
  log: Logger;
  /** Why orders it sends back to pending wait: funds short, no route, the routed price short of the trigger. */
  diagnoses?: OrderDiagnoses;
}

/**
 * Turns claimed orders into a batch: each order's pair signature is checked (with the fee cap it was signed for),
 * its execution fee priced (at the chain's gas price, capped by the lower of the contract's maxFeeBps and the signed
 * cap), its maker's balance and allowance checked against what our batches in flight will already pull, then each
 * pair's funded orders are routed as one group. An order that cannot run fails with its reason; one the routed
 * price does not satisfy, or whose funding is already committed, goes back to pending untouched; one its maker's
 * balance or allowance does not cover waits in pending for the maker (a DCA iteration until its window ends, then
 * it fails with the reason). Each of those is diagnosed. Undefined when nothing is left to send.
 */
export class PlanStage {
  private readonly signatures = new PairSignatureVerifier();
  private readonly bounds: PairBoundReader;
  private reads: { head: number; value: Promise<HeadReads> } | undefined;
  /** What the funded orders of each batch being planned pull, until its plan is done. */
  private readonly reserved = new Map<object, Map<string, bigint>>();
  /** What each open transaction pulls from makers, by row id (kept for the rows still open). */
  private rowPulls = new Map<string, ReadonlyMap<string, bigint>>();

  constructor(private readonly deps: PlanStageDeps) {
    this.bounds = new PairBoundReader(deps.client, deps.chain.contracts.orderExecutor);
  }

  /** Plans `orders` into a batch for the wallet at `from` to send; `now`: the keeper's clock (ms). */
  async run(orders: readonly ExecutionOrder[], from: string, now: number): Promise<BatchPlan | undefined> {
    const reservation = {};
    try {
      const plan = await this.plan(orders, from, now, reservation);
      if (!plan) this.reserved.delete(reservation);
      return plan;
    } catch (err) {
      this.reserved.delete(reservation);
      // The store is away: nothing can be written back now, and nothing about these orders was wrong. They stay
      // under this keeper's claim until its lease ends, then are claimed again as if never tried.
      if (isStoreUnreachable(err)) throw err;
      // A throw no step foresaw: these orders try again later (an outage does not count), the batch's others too.
      this.deps.metrics.unhandledError('plan');
      this.deps.log.error({ err }, 'planning a batch failed');
      await this.deps.moves.failAll(orders, isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR');
      return undefined;
    }
  }

  private async plan(
    orders: readonly ExecutionOrder[],
    from: string,
    now: number,
    reservation: object,
  ): Promise<BatchPlan | undefined> {
    const { deps } = this;
    let outage = false;
    const noteOutage = (err: unknown): undefined => {
      if (isOutageError(err)) outage = true;
      return undefined;
    };
    const reads = await this.headReads().catch(noteOutage);
    if (reads === undefined) {
      if (outage) deps.availability.rpcFailed();
      await deps.moves.failAll(orders, 'RPC_ERROR');
      return undefined;
    }
    const { gasPrice, maxFeeBps } = reads;
    // The pairs' price bounds are read while the makers' funding is: neither waits for the other.
    const head = this.head();
    // One read per pair and head whatever the number of its orders: the reader shares it.
    for (const o of orders) this.bounds.read(o.tokenIn, o.tokenOut, head).catch(() => undefined);
    const priced = await this.price(orders, gasPrice, maxFeeBps);
    const funded = await this.fund(priced, now, reservation);
    if (!funded) return undefined;
    const groups = await this.group(funded, gasPrice, head);
    if (!groups.length) return undefined;
    const planned = groups.flatMap((g) => g.orders);
    // The batch's deadline counts from the chain's clock (a devnet's may run ahead of ours).
    const chainTime = BigInt(Math.max(reads.timestamp, Math.floor(now / 1000)));
    const simulated = await simulateBatch(
      deps.client,
      deps.chain.chainId,
      deps.chain.contracts.orderExecutor,
      from,
      groups,
      chainTime,
    );
    if (!simulated.ok) {
      deps.log.warn({ reason: simulated.reason, detail: simulated.detail }, 'batch not sent');
      if (simulated.reason === 'RPC_ERROR') deps.availability.rpcFailed();
      await deps.moves.failAll(
        planned.map((p) => p.order),
        SIMULATION_FAILURES[simulated.reason],
      );
      return undefined;
    }
    return { groups, planned, gasPrice, call: simulated.call, reservation };
  }

  /** Signature and execution fee of each order; those that fail here fail with their reason. */
  private async price(
    orders: readonly ExecutionOrder[],
    gasPriceWei: bigint,
    maxFeeBps: bigint,
  ): Promise<PricedOrder[]> {
    const { deps } = this;
    const priced: PricedOrder[] = [];
    await deps.guard.each(
      (o) => o.kind,
      orders,
      (o) => o.id,
      async (order) => {
        // An order created without its signed cap is taken to have signed the contract's cap now.
        const signedMaxFeeBps = order.maxFeeBps ?? Number(maxFeeBps);
        const signed = await this.signatures
          .isValid(
            {
              chainId: deps.chain.chainId,
              orderExecutor: deps.chain.contracts.orderExecutor,
              maker: order.maker,
              tokenIn: checksumAddress(order.tokenIn),
              tokenOut: checksumAddress(order.tokenOut),
              integrator: order.integrator,
              maxDeviationBps: DEFAULT_MAX_DEVIATION_BPS,
              maxFeeBps: signedMaxFeeBps,
              signature: order.signature,
            },
            deps.client,
          )
          .catch((err: unknown) => {
            if (!isOutageError(err)) throw err;
            deps.availability.rpcFailed();
            return undefined;
          });
        if (signed === undefined) return deps.moves.fail(order, 'RPC_ERROR');
        if (!signed) return deps.moves.fail(order, 'BAD_SIGNATURE');
        const fee = executionFee({
          prices: deps.prices,
          chainId: deps.chain.chainId,
          tokenIn: { address: order.tokenIn, decimals: order.decimalsIn },
          wrappedNative: deps.chain.wrappedNative,
          nativeDecimals: deps.chain.nativeDecimals,
          amountIn: order.amountIn,
          gasPerOrder: GAS_PER_ORDER,
          gasPriceWei,
          // The contract takes no more than the lower of its cap and the signed one.
          maxFeeBps: BigInt(Math.min(signedMaxFeeBps, Number(maxFeeBps))),
        });
        if (fee === undefined) await deps.moves.fail(order, 'NO_ROUTE');
        else priced.push({ order, fee, allowance: 0n, signedMaxFeeBps });
      },
      (order) => deps.moves.fail(order, 'KEEPER_ERROR'),
    );
    return priced;
  }

  /**
   * Orders whose makers can pay amountIn + fee on top of our batches in flight and of the batches being planned at
   * the same time; undefined when that read failed. What the funded orders pull is reserved under `reservation` until
   * `done` (their batch is then recorded, and counted from the store, or not sent).
   */
  private async fund(
    priced: PricedOrder[],
    now: number,
    reservation: object,
  ): Promise<PricedOrder[] | undefined> {
    const { deps } = this;
    try {
      const stored = await this.inFlightPulls();
      const { orderExecutor, multicall } = deps.chain.contracts;
      const funding = await readFunding(deps.client, orderExecutor, priced, multicall);
      // From the judgement to the reservation nothing awaits: batches planned at once never admit the same funds.
      const verdict = judgeFunding(priced, funding, this.withReserved(stored));
      this.reserved.set(reservation, pullsOf(verdict.funded));
      for (const short of verdict.short) await this.waitForFunds(short, now);
      for (const o of verdict.waiting) {
        // Our batches in flight will pull what would cover it: judged again once they are mined.
        if (await deps.moves.release(o)) deps.diagnoses?.note(o.kind, o.id, { code: 'WAITING_FOR_BLOCK' });
      }
      return verdict.funded;
    } catch (err) {
      if (isOutageError(err)) deps.availability.rpcFailed();
      await deps.moves.failAll(
        priced.map((p) => p.order),
        isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR',
      );
      return undefined;
    }
  }

  /** `pulls` plus what the batches being planned have reserved. */
  private withReserved(pulls: Map<string, bigint>): Map<string, bigint> {
    for (const reserved of this.reserved.values()) {
      for (const [key, amount] of reserved) pulls.set(key, (pulls.get(key) ?? 0n) + amount);
    }
    return pulls;
  }

  /** The plan's batch was recorded (its pulls now count from the store) or will not be sent: its reservation ends. */
  done(plan: BatchPlan): void {
    this.reserved.delete(plan.reservation);
  }

  /**
   * An order its maker's balance or allowance does not cover waits in pending (ALLOWANCE_SHORT / BALANCE_SHORT with
   * what it needs and what there is), judged again after fundingRecheckDelay; a DCA iteration whose window has
   * ended fails with the funding reason.
   */
  private async waitForFunds(short: ShortOrder, now: number): Promise<void> {
    const { deps } = this;
    const { order } = short;
    if (order.waitsUntil !== undefined && now >= order.waitsUntil)
      return deps.moves.fail(order, short.reason);
    const code = short.reason === 'INSUFFICIENT_BALANCE' ? 'BALANCE_SHORT' : 'ALLOWANCE_SHORT';
    const known = deps.diagnoses?.of(order.kind, order.id);
    const shortFor = known?.code === code ? now - known.since : 0;
    let nextAttemptAt = now + fundingRecheckDelay(shortFor);
    if (order.waitsUntil !== undefined) nextAttemptAt = Math.min(nextAttemptAt, order.waitsUntil);
    if (!(await deps.moves.release(order, nextAttemptAt))) return;
    const required = short.required.toString();
    const available = short.available.toString();
    if (deps.diagnoses?.note(order.kind, order.id, { code, required, available }, true)) {
      deps.log.info(
        { orderId: order.id, reason: short.reason, required, available },
        'order waits for its maker',
      );
    }
  }

  /**
   * Why the route did not satisfy an order sent back to pending: no route at all for its amount (NO_ROUTE), or the
   * price its amount plus fee would get is under its trigger (PRICE_NOT_REACHED, that price beside the trigger); else
   * the pair's price bound or its group held it back for now (WAITING_FOR_BLOCK).
   */
  private noteNotCrossed(p: PricedOrder, gasPriceWei: bigint): void {
    const diagnoses = this.deps.diagnoses;
    if (!diagnoses) return;
    const { order } = p;
    try {
      const best = this.deps.engine.quote({
        chainId: order.chainId,
        tokenIn: order.tokenIn,
        tokenOut: order.tokenOut,
        amountIn: order.amountIn,
        gasPriceWei,
      })?.quotes[0];
      if (!best) {
        diagnoses.note(order.kind, order.id, { code: 'NO_ROUTE' }, true);
        return;
      }
      if (order.priceTrigger !== undefined) {
        const paid = Number(formatUnits(order.amountIn + p.fee, order.decimalsIn));
        const price = Number(formatUnits(best.amountOut, order.decimalsOut)) / paid;
        const trigger = Number(order.priceTrigger);
        if (price < trigger) {
          diagnoses.note(
            order.kind,
            order.id,
            { code: 'PRICE_NOT_REACHED', marketPrice: diagnosisPrice(price), priceTrigger: trigger },
            true,
          );
          return;
        }
      }
      diagnoses.note(order.kind, order.id, { code: 'WAITING_FOR_BLOCK' }, true);
    } catch (err) {
      this.deps.log.warn({ err, orderId: order.id }, 'diagnosing an order the route did not satisfy failed');
    }
  }

  /** One routed group per pair; one pair's group that cannot be planned leaves the other pairs' groups to go. */
  private async group(
    funded: readonly PricedOrder[],
    gasPrice: bigint,
    head: number,
  ): Promise<PlannedGroup[]> {
    const { deps } = this;
    const byPair = new Map<string, PricedOrder[]>();
    for (const p of funded) {
      const key = `${p.order.tokenIn}>${p.order.tokenOut}`;
      byPair.set(key, [...(byPair.get(key) ?? []), p]);
    }
    const groups: PlannedGroup[] = [];
    await deps.guard.each(
      (pairOrders) => pairOrders[0]!.order.kind,
      byPair.values(),
      (pairOrders) => `${pairOrders[0]!.order.tokenIn}>${pairOrders[0]!.order.tokenOut}`,
      async (pairOrders) => {
        const first = pairOrders[0]!.order;
        const failPair = (reason: string) =>
          deps.moves.failAll(
            pairOrders.map((p) => p.order),
            reason,
          );
        const bound = await this.bounds.read(first.tokenIn, first.tokenOut, head).catch((err: unknown) => {
          if (!isOutageError(err)) throw err;
          deps.availability.rpcFailed();
          return 'outage' as const;
        });
        if (bound === 'outage') return failPair('RPC_ERROR');
        // The contract would fail every order of the pair NO_PRICE_BOUND: not worth a transaction.
        if (bound === undefined) return failPair('NO_PRICE_BOUND');
        const plan = planGroup(deps.engine, pairOrders, gasPrice, bound);
        const priced = new Map(pairOrders.map((p) => [p.order.id, p]));
        for (const o of plan.notCrossed) {
          if (await deps.moves.release(o)) this.noteNotCrossed(priced.get(o.id)!, gasPrice);
        }
        if (plan.planned) groups.push(plan.planned);
      },
      (pairOrders) =>
        deps.moves.failAll(
          pairOrders.map((p) => p.order),
          'KEEPER_ERROR',
        ),
    );
    return groups;
  }

  /**
   * The gas price, the contract's fee cap and the chain's clock, read once per head of the chain's pool state: every
   * batch planned on one block prices with the same figures. A read that fails is not kept.
   */
  private headReads(): Promise<HeadReads> {
    const head = this.head();
    if (this.reads?.head === head) return this.reads.value;
    const value = Promise.all([
      this.deps.client.feeData(),
      this.orderExecutorMaxFeeBps(),
      this.deps.client.getBlock('latest').catch(() => null),
    ]).then(([fees, maxFeeBps, block]) => ({
      gasPrice:
        fees.baseFeePerGas !== null && fees.maxPriorityFeePerGas !== null
          ? fees.baseFeePerGas + fees.maxPriorityFeePerGas
          : fees.gasPrice,
      maxFeeBps,
      timestamp: block?.timestamp ?? 0,
    }));
    this.reads = { head, value };
    value.catch(() => {
      if (this.reads?.value === value) this.reads = undefined;
    });
    return value;
  }

  /** The block of the chain's pool state the keeper plans on (-1 before the first). */
  private head(): number {
    return this.deps.engine.blockNumber(this.deps.chain.chainId) ?? -1;
  }

  /**
   * Read per head, never kept longer: the owner raises the cap through the timelock and the guardian lowers it at
   * once, and a fee priced at a stale cap would fail FEE_TOO_HIGH on-chain.
   */
  private async orderExecutorMaxFeeBps(): Promise<bigint> {
    const iface = orderExecutorInterface();
    const data = await this.deps.client.call({
      to: this.deps.chain.contracts.orderExecutor,
      data: iface.encodeFunctionData('maxFeeBps', []),
    });
    return BigInt(iface.decodeFunctionResult('maxFeeBps', data)[0] as bigint);
  }

  /**
   * What this chain's batches sent but not yet mined (any keeper's) will pull from makers, per fundingKey: the
   * chain's state does not show it yet. Read from the signed transactions themselves.
   */
  private async inFlightPulls(): Promise<Map<string, bigint>> {
    const pulls = new Map<string, bigint>();
    const open = (await this.deps.transactions.listOpen(this.deps.chain.chainId)).filter(
      (row) => row.status !== 'mined',
    );
    const known = new Map<string, ReadonlyMap<string, bigint>>();
    // A row whose raw transaction cannot be read is left out here rather than holding back every batch.
    await this.deps.guard.each(
      'transaction',
      open,
      (row) => row.id,
      (row) => {
        // A replacement re-signs the same calldata: what a row pulls is decoded once, not once per batch planned.
        const rowPulls = this.rowPulls.get(row.id) ?? batchPulls(calldataOfRawTransaction(row.rawTx));
        known.set(row.id, rowPulls);
        for (const [key, amount] of rowPulls) pulls.set(key, (pulls.get(key) ?? 0n) + amount);
      },
    );
    this.rowPulls = known;
    return pulls;
  }
}
