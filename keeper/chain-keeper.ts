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
import { decideFailure } from './plan/failure-kinds';
import { checkFunding } from './plan/funding-check';
import { PairSignatureVerifier } from './plan/pair-signature';
import type { OrderIndex } from './select/order-index';
import type { OrderFacts } from './settle/batch-outcomes';
import { submitBatch } from './submit/batch-submitter';
import type { FeePolicy } from './submit/fee-policy';
import type { WalletPool } from './submit/wallet-pool';
import { TransactionTracker } from './track/transaction-tracker';
import { ReferencePricePublisher } from './watch/reference-price-publisher';

const LEASE_SWEEP_MS = 5_000;
const BALANCE_READ_MS = 15_000;
const LAG_READ_MS = 1_000;

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
 */
export class ChainKeeper {
  readonly chainId: number;
  private readonly publisher: ReferencePricePublisher;
  private readonly tracker: TransactionTracker;
  private readonly dcaScheduler: DcaScheduler;
  private readonly signatures = new PairSignatureVerifier();
  private lastBlock: number | undefined;
  private lastBlockAt = 0;
  private lastLeaseSweep = 0;
  private lastBalanceRead = 0;
  private lastLagRead = 0;
  private maxFeeBps: bigint | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChainKeeperDeps) {
    this.chainId = deps.chain.chainId;
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
      facts,
      orderExecutor: deps.chain.contracts.orderExecutor,
      owner: deps.owner,
      leaseMs: deps.config.leaseMs,
      confirmations: deps.config.confirmations,
      replaceAfterBlocks: deps.config.replaceAfterBlocks,
      log: deps.log,
      now: deps.now,
      onSettled: async (settled) => {
        for (const s of settled.filter((o) => o.kind === 'dca')) {
          const order = await deps.dca.findOrder(s.id);
          if (order) await deps.dca.finishStrategyIfDone(order.strategyId, deps.now());
          deps.metrics.dcaIteration(this.chainId, s.result === 'executed' ? 'successful' : 'error');
        }
      },
    });
    this.dcaScheduler = new DcaScheduler(
      this.chainId,
      deps.dca,
      deps.prices,
      (address) => this.token(address),
      deps.metrics,
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
      // Blocks between the chain's head and the pool state prices were read from.
      const chainHead = await deps.client.blockNumber().catch(() => undefined);
      if (chainHead !== undefined) deps.metrics.setPriceLag(this.chainId, Math.max(0, chainHead - head));
    }
    await this.stage('select', () => this.expire(now));
    await this.stage('dca', () => this.dcaScheduler.schedule(now));
    await this.stage('submit', () => this.execute(head, now));
    // The api's reference prices wait for this block's batches: only limit-order creation reads them.
    if (newBlock) await this.stage('watch', () => this.publisher.publish(head));
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
      if (!tokenIn || !tokenOut) continue;
      const rate = this.deps.prices.rate(this.chainId, tokenIn, tokenOut);
      if (!rate || rate.price < pair.lowestTrigger) continue;
      for (const o of this.deps.index.crossed(
        this.chainId,
        pair.tokenIn,
        pair.tokenOut,
        rate.price,
        now,
        max,
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
    for (const o of orders) if (o.kind === 'limit') deps.index.remove(o.id);
    if (orders.length)
      deps.metrics.ordersClaimed(this.chainId, 'limit', orders.filter((o) => o.kind === 'limit').length);
    const lost = limitSelected.length - orders.filter((o) => o.kind === 'limit').length;
    if (lost > 0) deps.metrics.claimsLost(this.chainId, 'limit', lost);
    for (const u of unreadable) await this.fail({ kind: u.kind, id: u.id, attemptNumber: 0 }, u.reason);
    if (!orders.length) return false;

    const gasPrice = await deps.client.feeData().then(
      (f) =>
        f.baseFeePerGas !== null && f.maxPriorityFeePerGas !== null
          ? f.baseFeePerGas + f.maxPriorityFeePerGas
          : f.gasPrice,
      () => undefined,
    );
    const maxFeeBps = await this.orderExecutorMaxFeeBps().catch(() => undefined);
    if (gasPrice === undefined || maxFeeBps === undefined) {
      await this.retryAll(orders, 'RPC_ERROR');
      return false;
    }
    const priced: PricedOrder[] = [];
    for (const order of orders) {
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
        continue;
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
    }
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
    } catch {
      await this.retryAll(
        priced.map((p) => p.order),
        'RPC_ERROR',
      );
      return false;
    }
    const byPair = new Map<string, PricedOrder[]>();
    for (const p of funded) {
      const key = `${p.order.tokenIn}>${p.order.tokenOut}`;
      byPair.set(key, [...(byPair.get(key) ?? []), p]);
    }
    const groups: PlannedGroup[] = [];
    for (const pairOrders of byPair.values()) {
      const plan = planGroup(deps.engine, pairOrders, gasPrice);
      for (const o of plan.notCrossed) await this.release(o);
      if (plan.planned) groups.push(plan.planned);
    }
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
      else await this.retryAll(orders, outcome.reason === 'SEND_FAILED' ? 'RPC_ERROR' : outcome.reason);
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
    for (const row of await this.deps.transactions.listOpen(this.chainId)) {
      if (row.status === 'mined') continue;
      for (const [key, amount] of batchPulls(Transaction.from(row.rawTx).data)) {
        pulls.set(key, (pulls.get(key) ?? 0n) + amount);
      }
    }
    return pulls;
  }

  private reportInFlight(): void {
    for (const wallet of this.deps.pool.wallets) {
      this.deps.metrics.setInFlight(this.chainId, wallet.address, wallet.inFlight);
    }
  }

  private async release(order: ExecutionOrder): Promise<void> {
    const now = this.deps.now();
    if (order.kind === 'limit') await this.deps.limit.releaseLease(order.id, this.deps.owner, now);
    else await this.deps.dca.releaseOrder(order.id, this.deps.owner, now);
  }

  private async retryAll(orders: readonly ExecutionOrder[], reason: string): Promise<void> {
    for (const o of orders) await this.fail(o, reason);
  }

  private async fail(
    order: Pick<ExecutionOrder, 'kind' | 'id' | 'attemptNumber'>,
    reason: string,
  ): Promise<void> {
    const now = this.deps.now();
    const decision = decideFailure(reason, order.attemptNumber, now);
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
