import { getAddress, Interface, Transaction } from 'ethers';
import type { ChainClient } from '../shared/chain/chain-client';
import type { ChainConfig, ChainContracts, KeeperConfig } from '../shared/config/config-schema';
import type { Logger } from '../shared/log/create-logger';
import type { QuoteEngine } from '../shared/routing/quote-engine';
import type { Prices, PriceListToken } from '../shared/routing/prices/usd-prices';
import type { KeeperDcaRepository } from '../shared/store/repositories/keeper-dca-repository';
import type { KeeperLimitOrdersRepository } from '../shared/store/repositories/keeper-limit-orders-repository';
import type { KeeperTransactionsRepository } from '../shared/store/repositories/keeper-transactions-repository';
import type { ReferencePricesRepository } from '../shared/store/repositories/reference-prices-repository';
import { claimOrders } from './claim/claim-orders';
import { DcaScheduler } from './dca/dca-scheduler';
import type { KeeperMetrics } from './keeper-metrics';
import { planGroup, type PlannedGroup, type PricedOrder } from './plan/batch-planner';
import { batchPulls, orderExecutorInterface } from './plan/execute-batch-call';
import { BATCH_BASE_GAS, GAS_PER_ORDER, executionFee } from './plan/execution-fee';
import type { ExecutionOrder } from './plan/execution-order';
import { countsAsAttempt, decideFailure, type FailureReason } from './plan/failure-kinds';
import { checkFunding } from './plan/funding-check';
import { PairSignatureVerifier } from './plan/pair-signature';
import { RowGuard } from './row-guard';
import type { OrderIndex } from './select/order-index';
import type { OrderFacts } from './settle/batch-outcomes';
import { submitBatch, type SubmitOutcome } from './submit/batch-submitter';
import type { FeePolicy } from './submit/fee-policy';
import type { WalletPool } from './submit/wallet-pool';
import { TransactionTracker } from './track/transaction-tracker';
import { ChainAvailability, isOutageError, type HoldReason } from './watch/chain-availability';
import { ReferencePricePublisher } from './watch/reference-price-publisher';

const LEASE_SWEEP_MS = 5_000;
const BALANCE_READ_MS = 15_000;
const LAG_READ_MS = 1_000;

/**
 * What a batch not sent means for its orders: the chain unreachable or a send that did not go out are no fault of
 * theirs (RPC_ERROR delays them uncounted); a reverting simulation or a transaction the node refuses counts.
 */
const NOT_SENT_REASONS: Record<
  Exclude<Extract<SubmitOutcome, { kind: 'not-sent' }>['reason'], 'CONFLICT'>,
  FailureReason
> = {
  GAS_TOO_EXPENSIVE: 'GAS_TOO_EXPENSIVE',
  RPC_ERROR: 'RPC_ERROR',
  SEND_FAILED: 'RPC_ERROR',
  REVERTED: 'TRANSACTION_REVERTED',
  REJECTED: 'KEEPER_ERROR',
};

export interface ChainKeeperDeps {
  chain: ChainConfig & { contracts: ChainContracts };
  client: ChainClient;
  engine: QuoteEngine;
  prices: Prices;
  tokens: () => readonly PriceListToken[];
  index: OrderIndex;
  limit: KeeperLimitOrdersRepository;
  dca: KeeperDcaRepository;
  transactions: KeeperTransactionsRepository;
  referencePrices: ReferencePricesRepository;
  pool: WalletPool;
  fees: FeePolicy;
  metrics: KeeperMetrics;
  config: KeeperConfig;
  owner: string;
  log: Logger;
  now: () => number;
}

/**
 * One chain's pipeline, ticked by the keeper (and at once when the chain's pool state reaches a new block): track
 * (new block: receipts, replacements), select (crossed limit orders from the index, due DCA iterations), claim
 * (leases in the store), plan (signature, funding, fee, routed confirmation per pair group), submit (one batch per
 * free executor wallet), then watch (new block: the reference prices the api reads). Ticks never overlap, and
 * each chain has its own, so one chain's slow RPC never delays another's.
 *
 * Every stage handles each order, strategy and transaction on its own (RowGuard): a row that cannot execute fails
 * with its reason, one that throws is set aside, and the others go on. While the chain's pool state is stale or
 * its RPC fails, nothing is claimed and no reference price published; an order caught by an outage goes back to
 * pending without counting an attempt.
 */
export class ChainKeeper {
  readonly chainId: number;
  private readonly publisher: ReferencePricePublisher;
  private readonly tracker: TransactionTracker;
  private readonly dcaScheduler: DcaScheduler;
  private readonly signatures = new PairSignatureVerifier();
  private readonly guard: RowGuard;
  private readonly availability: ChainAvailability;
  private heldBy: HoldReason | undefined;
  /** A new block's reference prices are still to be published (deferred while the state is stale). */
  private unpublished = false;
  private lastBlock: number | undefined;
  private lastBlockAt = 0;
  private lastLeaseSweep = 0;
  private lastBalanceRead = 0;
  private lastLagRead = 0;
  private maxFeeBps: bigint | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChainKeeperDeps) {
    this.chainId = deps.chain.chainId;
    deps.metrics.initChain(this.chainId);
    this.availability = new ChainAvailability(this.chainId, deps.engine);
    this.guard = new RowGuard(this.chainId, deps.metrics, deps.log, () => this.availability.rpcFailed());
    this.publisher = new ReferencePricePublisher(
      this.chainId,
      deps.prices,
      deps.tokens,
      deps.referencePrices,
    );
    const facts: OrderFacts = {
      attemptNumber: async (kind, id) =>
        kind === 'limit'
          ? ((await deps.limit.findById(id))?.attemptNumber ?? 0)
          : ((await deps.dca.findOrder(id))?.attemptNumber ?? 0),
      dcaDecimals: async (id) => {
        const order = await deps.dca.findOrder(id);
        const strategy = order && (await deps.dca.findStrategy(order.strategyId));
        const from = strategy && this.token(strategy.tokenAddressFrom);
        const to = strategy && this.token(strategy.tokenAddressTo);
        return from && to ? { decimalsIn: from.decimals, decimalsOut: to.decimals } : undefined;
      },
    };
    this.tracker = new TransactionTracker({
      chainId: this.chainId,
      client: deps.client,
      pool: deps.pool,
      fees: deps.fees,
      transactions: deps.transactions,
      limit: deps.limit,
      dca: deps.dca,
      metrics: deps.metrics,
      guard: this.guard,
      facts,
      orderExecutor: deps.chain.contracts.orderExecutor,
      owner: deps.owner,
      leaseMs: deps.config.leaseMs,
      confirmations: deps.config.confirmations,
      replaceAfterBlocks: deps.config.replaceAfterBlocks,
      log: deps.log,
      now: deps.now,
      onSettled: (settled) =>
        this.guard.each(
          'dca',
          settled.filter((o) => o.kind === 'dca'),
          (s) => s.id,
          async (s) => {
            deps.metrics.dcaIteration(this.chainId, s.result === 'executed' ? 'successful' : 'error');
            const order = await deps.dca.findOrder(s.id);
            if (order) await deps.dca.finishStrategyIfDone(order.strategyId, deps.now());
          },
        ),
    });
    this.dcaScheduler = new DcaScheduler(
      this.chainId,
      deps.dca,
      deps.prices,
      (address) => this.token(address),
      deps.metrics,
      this.guard,
      deps.log,
    );
  }

  /** Runs one tick unless one is running (then waits for it). */
  tick(): Promise<void> {
    if (!this.running) {
      this.running = this.runTick().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private token(address: string): PriceListToken | undefined {
    return this.deps.prices.token(this.chainId, address);
  }

  private async runTick(): Promise<void> {
    const { deps } = this;
    const head = deps.engine.blockNumber(this.chainId);
    if (head === undefined) return;
    const now = deps.now();
    const newBlock = head !== this.lastBlock;
    if (newBlock) {
      this.lastBlock = head;
      this.lastBlockAt = now;
      deps.metrics.blockSeen(this.chainId, head, now);
      // Receipts first: a settled batch frees its wallet for this block's orders.
      await this.stage('track', () => this.tracker.track(head));
      this.reportInFlight();
    } else if (now - this.lastBlockAt > deps.config.blockStallMs) {
      deps.metrics.feedStall(this.chainId);
      this.lastBlockAt = now;
      deps.log.warn({ block: head }, 'no new block for a while: block feed stalled?');
    }
    if (now - this.lastLeaseSweep > LEASE_SWEEP_MS) {
      this.lastLeaseSweep = now;
      await this.stage('claim', () => this.sweepLeases(now));
    }
    if (now - this.lastBalanceRead > BALANCE_READ_MS) {
      this.lastBalanceRead = now;
      await deps.pool.balances();
    }
    if (now - this.lastLagRead > LAG_READ_MS) {
      this.lastLagRead = now;
      // Blocks between the chain's head and the pool state prices were read from; also the probe that tells
      // when a failing RPC answers again.
      const chainHead = await deps.client.blockNumber().catch((err: unknown) => {
        if (isOutageError(err)) this.availability.rpcFailed();
        return undefined;
      });
      if (chainHead !== undefined) {
        this.availability.rpcAnswered();
        deps.metrics.setPriceLag(this.chainId, Math.max(0, chainHead - head));
      }
    }
    await this.stage('select', () => this.expire(now));
    await this.stage('dca', () => this.dcaScheduler.schedule(now));
    if (!this.holdClaims(deps.now())) await this.stage('submit', () => this.execute(head, now));
    // The api's reference prices wait for this block's batches: only limit-order creation reads them. A stale
    // state publishes nothing: its prices may be long gone (the block is published once the state is fresh).
    if (newBlock) this.unpublished = true;
    if (this.unpublished && !this.availability.stale(deps.now())) {
      this.unpublished = false;
      await this.stage('watch', () => this.publisher.publish(head));
    }
  }

  /** Whether claims wait on this chain now; logs and gauges the changes. */
  private holdClaims(now: number): boolean {
    const heldBy = this.availability.heldBy(now);
    if (heldBy !== this.heldBy) {
      if (heldBy) this.deps.log.warn({ reason: heldBy }, 'chain unavailable: claiming nothing on it');
      else this.deps.log.info('chain available again: claiming resumes');
      this.deps.metrics.setClaimsHeld(this.chainId, heldBy !== undefined);
      this.heldBy = heldBy;
    }
    return heldBy !== undefined;
  }

  private async stage(name: Parameters<KeeperMetrics['unhandledError']>[0], run: () => Promise<unknown>) {
    const started = performance.now();
    try {
      await run();
    } catch (err) {
      this.deps.metrics.unhandledError(name);
      this.deps.log.error({ err, stage: name }, 'keeper stage failed');
    } finally {
      if (name !== 'main')
        this.deps.metrics.observeTick(this.chainId, name, (performance.now() - started) / 1000);
    }
  }

  private async sweepLeases(now: number): Promise<void> {
    const limit = await this.deps.limit.reclaimExpiredLeases(now);
    const dca = await this.deps.dca.reclaimExpiredLeases(now);
    if (limit.length) this.deps.metrics.leasesReclaimed(this.chainId, 'limit', limit.length);
    if (dca.length) this.deps.metrics.leasesReclaimed(this.chainId, 'dca', dca.length);
  }

  /** Open orders past `expired` are settled failed with reason `expired`. */
  private async expire(now: number): Promise<void> {
    const ids = this.deps.index
      .expired(now)
      .filter((o) => o.chainId === this.chainId)
      .map((o) => o.id);
    if (!ids.length) return;
    const moved = await this.deps.limit.expire(ids, now);
    for (const id of ids) this.deps.index.remove(id);
    for (let i = 0; i < moved.length; i++)
      this.deps.metrics.orderFailure(this.chainId, 'limit', 'expired', 'final');
  }

  /** Crossed limit orders by the index's cheap screen, lowest trigger first, capped to one batch. */
  private selectLimit(now: number, max: number): { id: string; version: number }[] {
    const started = performance.now();
    const out: { id: string; version: number }[] = [];
    for (const pair of this.deps.index.pairs(this.chainId)) {
      const tokenIn = this.token(pair.tokenIn);
      const tokenOut = this.token(pair.tokenOut);
      // A pair with a token not listed can never execute: every order of it goes to the claim, which fails it.
      const price =
        tokenIn && tokenOut
          ? this.deps.prices.rate(this.chainId, tokenIn, tokenOut)?.price
          : Number.POSITIVE_INFINITY;
      if (price === undefined || price < pair.lowestTrigger) continue;
      for (const o of this.deps.index.crossed(
        this.chainId,
        pair.tokenIn,
        pair.tokenOut,
        price,
        now,
        max - out.length,
      )) {
        out.push({ id: o.id, version: o.version });
      }
      if (out.length >= max) break;
    }
    this.deps.metrics.observeSelection(this.chainId, (performance.now() - started) / 1000);
    this.deps.metrics.ordersTriggered(this.chainId, 'limit', Math.min(out.length, max));
    return out.slice(0, max);
  }

  private async orderExecutorMaxFeeBps(): Promise<bigint> {
    if (this.maxFeeBps === undefined) {
      const iface: Interface = orderExecutorInterface();
      const data = await this.deps.client.call({
        to: this.deps.chain.contracts.orderExecutor,
        data: iface.encodeFunctionData('maxFeeBps', []),
      });
      this.maxFeeBps = BigInt(iface.decodeFunctionResult('maxFeeBps', data)[0] as bigint);
    }
    return this.maxFeeBps;
  }

  /** One batch per free executor wallet while orders are crossed. */
  private async execute(head: number, tickStart: number): Promise<void> {
    let now = tickStart;
    const { deps } = this;
    const maxOrders = Math.max(
      1,
      Math.min(
        deps.config.maxBatchOrders,
        Number((BigInt(deps.config.batchGasCap) - BATCH_BASE_GAS) / GAS_PER_ORDER),
      ),
    );
    // At most one batch per wallet per tick: a long run of batches must not hold back the next block's watch,
    // tracking and expiry, and each claim takes its lease from the moment it is made.
    for (let batches = 0; batches < deps.pool.wallets.length; batches++) {
      now = deps.now();
      const limitSelected = this.selectLimit(now, maxOrders);
      const dcaSelected = (await this.dcaScheduler.select(now)).ready.slice(0, maxOrders);
      deps.metrics.ordersTriggered(this.chainId, 'dca', dcaSelected.length);
      if (!limitSelected.length && !dcaSelected.length) return;
      const wallet = deps.pool.acquire();
      if (!wallet) return;
      const sent = await this.executeOnce(
        wallet,
        head,
        now,
        limitSelected,
        dcaSelected.slice(0, maxOrders - Math.min(maxOrders, limitSelected.length)),
      );
      if (!sent) {
        deps.pool.free(wallet);
        return;
      }
    }
  }

  private async executeOnce(
    wallet: NonNullable<ReturnType<WalletPool['acquire']>>,
    head: number,
    now: number,
    limitSelected: { id: string; version: number }[],
    dcaSelected: { id: string; version: number }[],
  ): Promise<boolean> {
    const { deps } = this;
    const { orders, unreadable } = await claimOrders(
      { limit: deps.limit, dca: deps.dca },
      { limit: limitSelected, dca: dcaSelected },
      {
        owner: deps.owner,
        leaseMs: deps.config.leaseMs,
        now,
        triggerBlock: head,
        tokens: { decimalsOf: (_chainId, address) => this.token(address)?.decimals },
      },
    );
    // Claimed orders leave the index at once; the store sync brings back any that return to pending.
    for (const o of [...orders, ...unreadable]) if (o.kind === 'limit') deps.index.remove(o.id);
    const claimedLimit = [...orders, ...unreadable].filter((o) => o.kind === 'limit').length;
    deps.metrics.ordersClaimed(this.chainId, 'limit', claimedLimit);
    deps.metrics.claimsLost(this.chainId, 'limit', limitSelected.length - claimedLimit);
    await this.guard.each(
      (u) => u.kind,
      unreadable,
      (u) => u.id,
      async (u) => {
        deps.log.info({ orderId: u.id, reason: u.reason, detail: u.detail }, 'order cannot execute');
        await this.fail({ kind: u.kind, id: u.id, attemptNumber: 0 }, u.reason);
      },
    );
    if (!orders.length) return false;
    try {
      return await this.planAndSubmit(wallet, head, now, orders);
    } catch (err) {
      // A throw no step foresaw: these orders try again later (an outage does not count), the batch's others too.
      deps.metrics.unhandledError('plan');
      deps.log.error({ err }, 'planning a batch failed');
      await this.retryAll(orders, isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR');
      return false;
    }
  }

  private async planAndSubmit(
    wallet: NonNullable<ReturnType<WalletPool['acquire']>>,
    head: number,
    now: number,
    orders: readonly ExecutionOrder[],
  ): Promise<boolean> {
    const { deps } = this;
    let outage = false;
    const noteOutage = (err: unknown): undefined => {
      if (isOutageError(err)) outage = true;
      return undefined;
    };
    const gasPrice = await deps.client
      .feeData()
      .then(
        (f) =>
          f.baseFeePerGas !== null && f.maxPriorityFeePerGas !== null
            ? f.baseFeePerGas + f.maxPriorityFeePerGas
            : f.gasPrice,
        noteOutage,
      );
    const maxFeeBps = await this.orderExecutorMaxFeeBps().catch(noteOutage);
    if (gasPrice === undefined || maxFeeBps === undefined) {
      if (outage) this.availability.rpcFailed();
      await this.retryAll(orders, 'RPC_ERROR');
      return false;
    }
    const priced: PricedOrder[] = [];
    await this.guard.each(
      (o) => o.kind,
      orders,
      (o) => o.id,
      async (order) => {
        if (
          !this.signatures.isValid({
            chainId: this.chainId,
            orderExecutor: deps.chain.contracts.orderExecutor,
            maker: order.maker,
            tokenIn: getAddress(order.tokenIn),
            tokenOut: getAddress(order.tokenOut),
            signature: order.signature,
          })
        ) {
          await this.fail(order, 'BAD_SIGNATURE');
          return;
        }
        const fee = executionFee({
          prices: deps.prices,
          chainId: this.chainId,
          tokenIn: { address: order.tokenIn, decimals: order.decimalsIn },
          wrappedNative: deps.chain.wrappedNative,
          nativeDecimals: deps.chain.nativeDecimals,
          amountIn: order.amountIn,
          gasPerOrder: GAS_PER_ORDER,
          gasPriceWei: gasPrice,
          maxFeeBps,
        });
        if (fee === undefined) await this.fail(order, 'NO_ROUTE');
        else priced.push({ order, fee, allowance: 0n });
      },
      (order) => this.fail(order, 'KEEPER_ERROR'),
    );
    let funded: PricedOrder[];
    try {
      const verdict = await checkFunding(
        deps.client,
        deps.chain.contracts.orderExecutor,
        priced,
        await this.inFlightPulls(),
      );
      for (const f of verdict.failed) await this.fail(f.order, f.reason);
      for (const o of verdict.waiting) await this.release(o);
      funded = verdict.funded;
    } catch (err) {
      if (isOutageError(err)) this.availability.rpcFailed();
      await this.retryAll(
        priced.map((p) => p.order),
        isOutageError(err) ? 'RPC_ERROR' : 'KEEPER_ERROR',
      );
      return false;
    }
    const byPair = new Map<string, PricedOrder[]>();
    for (const p of funded) {
      const key = `${p.order.tokenIn}>${p.order.tokenOut}`;
      byPair.set(key, [...(byPair.get(key) ?? []), p]);
    }
    const groups: PlannedGroup[] = [];
    // One pair's group that cannot be planned leaves the other pairs' groups to go.
    await this.guard.each(
      (pairOrders) => pairOrders[0]!.order.kind,
      byPair.values(),
      (pairOrders) => `${pairOrders[0]!.order.tokenIn}>${pairOrders[0]!.order.tokenOut}`,
      async (pairOrders) => {
        const plan = planGroup(deps.engine, pairOrders, gasPrice);
        for (const o of plan.notCrossed) await this.release(o);
        if (plan.planned) groups.push(plan.planned);
      },
      (pairOrders) =>
        this.retryAll(
          pairOrders.map((p) => p.order),
          'KEEPER_ERROR',
        ),
    );
    if (!groups.length) return false;
    const planned = groups.flatMap((g) => g.orders);
    const perOrderGas = (BATCH_BASE_GAS + GAS_PER_ORDER * BigInt(planned.length)) / BigInt(planned.length);
    const block = await deps.client.getBlock('latest').catch(() => null);
    const chainTime = BigInt(Math.max(block?.timestamp ?? 0, Math.floor(now / 1000)));
    const outcome = await submitBatch(
      {
        client: deps.client,
        pool: deps.pool,
        fees: deps.fees,
        transactions: deps.transactions,
        orderExecutor: deps.chain.contracts.orderExecutor,
        owner: deps.owner,
        leaseMs: deps.config.leaseMs,
        now: deps.now,
      },
      wallet,
      groups,
      chainTime,
      head,
      (id) => {
        const p = planned.find((o) => o.order.id === id)!;
        return {
          allowance: p.allowance.toString(),
          estimateGas: perOrderGas.toString(),
          effectivePriceGas: gasPrice.toString(),
        };
      },
    );
    if (outcome.kind === 'not-sent') {
      deps.log.warn({ reason: outcome.reason, detail: outcome.detail }, 'batch not sent');
      const orders = planned.map((p) => p.order);
      if (outcome.reason === 'CONFLICT') for (const o of orders) await this.release(o);
      else {
        if (outcome.reason === 'RPC_ERROR') this.availability.rpcFailed();
        await this.retryAll(orders, NOT_SENT_REASONS[outcome.reason]);
      }
      return false;
    }
    deps.metrics.batchSent(this.chainId, planned.length);
    deps.metrics.transactionSent(this.chainId, false);
    planned.forEach(() => deps.metrics.executionFee(this.chainId, perOrderGas * gasPrice));
    this.reportInFlight();
    deps.log.info(
      { txHash: outcome.transaction.txHash, orders: planned.length, block: head, executor: wallet.address },
      'batch submitted',
    );
    // Instant-mining chains include it at once: follow it now, at the chain's head, rather than at the next tick.
    const latest = await deps.client.blockNumber().catch(() => head);
    await this.stage('track', () => this.tracker.track(latest));
    return true;
  }

  /**
   * What this chain's batches sent but not yet mined (any keeper's) will pull from makers, per fundingKey: the
   * chain's state does not show it yet. Read from the signed transactions themselves.
   */
  private async inFlightPulls(): Promise<Map<string, bigint>> {
    const pulls = new Map<string, bigint>();
    const open = (await this.deps.transactions.listOpen(this.chainId)).filter(
      (row) => row.status !== 'mined',
    );
    // A row whose raw transaction cannot be read is left out here rather than holding back every batch.
    await this.guard.each(
      'transaction',
      open,
      (row) => row.id,
      (row) => {
        for (const [key, amount] of batchPulls(Transaction.from(row.rawTx).data)) {
          pulls.set(key, (pulls.get(key) ?? 0n) + amount);
        }
      },
    );
    return pulls;
  }

  private reportInFlight(): void {
    for (const wallet of this.deps.pool.wallets) {
      this.deps.metrics.setInFlight(this.chainId, wallet.address, wallet.inFlight);
    }
  }

  private async release(order: Pick<ExecutionOrder, 'kind' | 'id'>, nextAttemptAt?: number): Promise<void> {
    const now = this.deps.now();
    if (order.kind === 'limit') {
      await this.deps.limit.releaseLease(order.id, this.deps.owner, now, nextAttemptAt);
    } else {
      await this.deps.dca.releaseOrder(order.id, this.deps.owner, now, nextAttemptAt);
    }
  }

  private retryAll(orders: readonly ExecutionOrder[], reason: string): Promise<void> {
    return this.guard.each(
      (o) => o.kind,
      orders,
      (o) => o.id,
      (o) => this.fail(o, reason),
    );
  }

  private async fail(
    order: Pick<ExecutionOrder, 'kind' | 'id' | 'attemptNumber'>,
    reason: string,
  ): Promise<void> {
    const now = this.deps.now();
    const decision = decideFailure(reason, order.attemptNumber, now);
    if (!countsAsAttempt(reason)) {
      // An outage: back to pending as it was, attempts untouched; the keeper claims nothing here until it ends.
      await this.release(order, decision.nextAttemptAt);
      this.deps.metrics.outageDelay(this.chainId, order.kind);
      this.deps.log.info({ orderId: order.id, reason }, 'order delayed by an outage');
      return;
    }
    if (order.kind === 'limit') {
      await this.deps.limit.fail(
        order.id,
        this.deps.owner,
        { reason, final: decision.final, nextAttemptAt: decision.nextAttemptAt },
        now,
      );
    } else {
      await this.deps.dca.failOrder(
        order.id,
        this.deps.owner,
        { message: reason, final: decision.final, nextAttemptAt: decision.nextAttemptAt },
        now,
      );
      if (decision.final) this.deps.metrics.dcaIteration(this.chainId, 'error');
    }
    this.deps.metrics.orderFailure(this.chainId, order.kind, reason, decision.final ? 'final' : 'backoff');
    this.deps.log.info({ orderId: order.id, reason, final: decision.final }, 'order attempt failed');
  }
}
