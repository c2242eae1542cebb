import type { PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { KeeperDcaRepository } from '../../shared/store/repositories/keeper-dca-repository';
import type { KeeperOrderRef } from '../../shared/store/repositories/keeper-order-repository';
import { readClaimed, readDcaOrder, type ClaimContext, type ClaimedOrders } from '../claim/read-claimed';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderWork, TokenPairDecimals } from '../order-work';
import type { DcaScheduler } from './dca-scheduler';

export interface DcaWorkDeps {
  chainId: number;
  repository: KeeperDcaRepository;
  scheduler: DcaScheduler;
  token: (address: string) => PriceListToken | undefined;
  metrics: KeeperMetrics;
  now: () => number;
}

/**
 * DCA iterations of one chain: the scheduler creates each at its slot and picks the due ones inside their price
 * bounds; an iteration's end is counted, and its strategy finished once every iteration is final.
 */
export class DcaWork implements OrderWork {
  readonly kind = 'dca';
  readonly prepareStage = 'dca';
  readonly repository: KeeperDcaRepository;

  constructor(private readonly deps: DcaWorkDeps) {
    this.repository = deps.repository;
  }

  prepare(now: number): Promise<void> {
    return this.deps.scheduler.schedule(now);
  }

  async select(now: number, max: number): Promise<KeeperOrderRef[]> {
    return (await this.deps.scheduler.select(now)).ready.slice(0, max);
  }

  async claim(refs: readonly KeeperOrderRef[], ctx: ClaimContext): Promise<ClaimedOrders> {
    const rows = await this.deps.repository.claimVersioned(refs, ctx.owner, ctx.leaseMs, ctx.now);
    return readClaimed('dca', rows, (row) => row.order.id, readDcaOrder, ctx);
  }

  async decimals(id: string): Promise<TokenPairDecimals | undefined> {
    const order = await this.deps.repository.findById(id);
    const strategy = order && (await this.deps.repository.findStrategy(order.strategyId));
    const from = strategy && this.deps.token(strategy.tokenAddressFrom);
    const to = strategy && this.deps.token(strategy.tokenAddressTo);
    return from && to ? { decimalsIn: from.decimals, decimalsOut: to.decimals } : undefined;
  }

  async onOutcome(id: string, outcome: 'executed' | 'failed'): Promise<void> {
    this.deps.metrics.dcaIteration(this.deps.chainId, outcome === 'executed' ? 'successful' : 'error');
    const order = await this.deps.repository.findById(id);
    if (order) await this.deps.repository.finishStrategyIfDone(order.strategyId, this.deps.now());
  }
}
