import type { PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperDcaRepository } from '../../shared/store/repositories/keeper-dca-repository';
import type { KeeperOrderRef } from '../../shared/store/repositories/keeper-order-repository';
import { readClaimed, readDcaOrder, type ClaimContext, type ClaimedOrders } from '../claim/read-claimed';
import type { OrderDiagnoses } from '../diagnose/order-diagnoses';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderWork, SettlementFacts } from '../order-work';
import type { DcaStrategy } from '../../shared/domain/dca';
import type { DcaScheduler } from './dca-scheduler';

export interface DcaWorkDeps {
  chainId: number;
  repository: KeeperDcaRepository;
  scheduler: DcaScheduler;
  token: (address: string) => PriceListToken | undefined;
  metrics: KeeperMetrics;
  now: () => number;
  /** Why due iterations are still pending (queued, chain held); the scheduler judges their price bounds. */
  diagnoses?: OrderDiagnoses;
}

/**
 * DCA iterations of one chain: the scheduler creates each at its slot and picks the due ones inside their price
 * bounds; an iteration's end is counted, and its strategy finished once every iteration is final.
 */
export class DcaWork implements OrderWork {
  readonly kind = 'dca';
  readonly prepareStage = 'dca';
  readonly repository: KeeperDcaRepository;
  /** The due iterations last found ready, and those claimed since: the rest were left queued. */
  private lastReady: readonly string[] = [];
  private readonly claimedSince = new Set<string>();

  constructor(private readonly deps: DcaWorkDeps) {
    this.repository = deps.repository;
  }

  prepare(now: number): Promise<void> {
    return this.deps.scheduler.schedule(now);
  }

  async select(now: number, max: number): Promise<KeeperOrderRef[]> {
    const { ready } = await this.deps.scheduler.select(now);
    this.lastReady = ready.map((ref) => ref.id);
    return ready.slice(0, max);
  }

  async claim(refs: readonly KeeperOrderRef[], ctx: ClaimContext): Promise<ClaimedOrders> {
    const rows = await this.deps.repository.claimVersioned(refs, ctx.owner, ctx.leaseMs, ctx.now);
    for (const row of rows) this.claimedSince.add(row.order.id);
    return readClaimed('dca', rows, (row) => row.order.id, readDcaOrder, ctx);
  }

  /**
   * Ready iterations the tick's batches did not take wait for a coming block (WAITING_FOR_BLOCK); while the chain
   * holds claims, CHAIN_STALE. A judgment of the iteration itself (its funding) holds until it is claimed again.
   */
  afterBatches(_now: number, held: boolean): void {
    // Kept until the next selection replaces it: while claims are held there is none.
    this.lastReady = this.lastReady.filter((id) => !this.claimedSince.has(id));
    this.claimedSince.clear();
    const diagnoses = this.deps.diagnoses;
    if (!diagnoses) return;
    for (const id of this.lastReady)
      diagnoses.noteUnlessHeld('dca', id, { code: held ? 'CHAIN_STALE' : 'WAITING_FOR_BLOCK' });
  }

  async settlementFacts(ids: readonly string[]): Promise<Map<string, SettlementFacts>> {
    const facts = new Map<string, SettlementFacts>();
    const strategies = new Map<string, Promise<DcaStrategy | undefined>>();
    for (const order of await this.deps.repository.findByIds(ids)) {
      const pending = strategies.get(order.strategyId) ?? this.deps.repository.findStrategy(order.strategyId);
      strategies.set(order.strategyId, pending);
      const strategy = await pending;
      const from = strategy && this.deps.token(strategy.tokenAddressFrom);
      const to = strategy && this.deps.token(strategy.tokenAddressTo);
      facts.set(order.id, {
        attemptNumber: order.attemptNumber,
        decimals: from && to ? { decimalsIn: from.decimals, decimalsOut: to.decimals } : undefined,
      });
    }
    return facts;
  }

  async onOutcome(id: string, outcome: 'executed' | 'failed'): Promise<void> {
    this.deps.metrics.dcaIteration(this.deps.chainId, outcome === 'executed' ? 'successful' : 'error');
    const order = await this.deps.repository.findById(id);
    if (order) await this.deps.repository.finishStrategyIfDone(order.strategyId, this.deps.now());
  }
}
