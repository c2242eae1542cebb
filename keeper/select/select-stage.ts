import type {
  KeeperOrderKind,
  KeeperOrderRef,
} from '../../shared/store/repositories/keeper-order-repository';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderWorks } from '../order-work';
import type { StageTimer } from '../stage-timer';

/** Orders selected to claim, by kind, at the versions they were selected at. */
export type Selection = Map<KeeperOrderKind, KeeperOrderRef[]>;

export interface SelectStageDeps {
  chainId: number;
  works: OrderWorks;
  metrics: KeeperMetrics;
  timer: StageTimer;
}

/**
 * What runs next on a chain: each kind of work keeps itself up to date once per tick (`prepare`), then every batch
 * takes the ready orders of each kind in the works' order (limit orders before DCA iterations) up to the batch's
 * size. Every kind is asked each time, even with no room left: asking is also how a kind notices what expired.
 */
export class SelectStage {
  /** Per kind: the head at which each order still being selected was first selected (crossed, not yet gone). */
  private readonly firstSelectedAt = new Map<string, Map<string, number>>();

  constructor(private readonly deps: SelectStageDeps) {}

  async prepare(now: number): Promise<void> {
    for (const work of this.deps.works.values()) {
      await this.deps.timer.run(work.prepareStage, () => work.prepare(now));
    }
  }

  /** After the tick's batches (or in their place while claims are held): each kind judges what it left pending. */
  async afterBatches(now: number, held: boolean): Promise<void> {
    for (const work of this.deps.works.values()) {
      if (!work.afterBatches) continue;
      await this.deps.timer.run(work.prepareStage, async () => work.afterBatches!(now, held));
    }
  }

  async next(now: number, head: number, max: number): Promise<Selection> {
    const { deps } = this;
    const selection: Selection = new Map();
    let room = max;
    for (const work of deps.works.values()) {
      const refs = (await work.select(now, Math.max(0, room))).slice(0, Math.max(0, room));
      deps.metrics.ordersTriggered(deps.chainId, work.kind, refs.length);
      this.notePastTrigger(work.kind, refs, head);
      if (!refs.length) continue;
      selection.set(work.kind, refs);
      room -= refs.length;
    }
    return selection;
  }

  /**
   * How long the longest-waiting selected order has been selected again and again without leaving (an order still
   * selected blocks after its first selection is crossed and not executed: routed price, funding, a stuck wallet).
   * An order not selected now (sent, failed, uncrossed) starts again from its next selection.
   */
  private notePastTrigger(kind: KeeperOrderKind, refs: readonly { id: string }[], head: number): void {
    const before = this.firstSelectedAt.get(kind) ?? new Map<string, number>();
    const now = new Map(refs.map((ref) => [ref.id, before.get(ref.id) ?? head]));
    this.firstSelectedAt.set(kind, now);
    const oldest = Math.min(head, ...now.values());
    this.deps.metrics.setOldestCrossedOrder(this.deps.chainId, kind, head - oldest);
  }
}
