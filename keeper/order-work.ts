import type {
  AnyKeeperOrderRepository,
  KeeperOrderKind,
  KeeperOrderRef,
} from '../shared/store/repositories/keeper-order-repository';
import type { ClaimContext, ClaimedOrders } from './claim/read-claimed';
import type { KeeperStage } from './keeper-metrics';

export interface TokenPairDecimals {
  decimalsIn: number;
  decimalsOut: number;
}

export interface SettlementFacts {
  attemptNumber: number;
  decimals?: TokenPairDecimals;
}

/**
 * One kind of order the keeper runs through OrderExecutor batches (limit orders, DCA iterations). The pipeline's
 * stages hold works by kind and never ask which kind they hold: a new kind of order is a new OrderWork (and its
 * repository), not a branch in the stages.
 */
export interface OrderWork {
  readonly kind: KeeperOrderKind;
  /** The stage label its `prepare` is timed and counted under. */
  readonly prepareStage: KeeperStage;
  readonly repository: AnyKeeperOrderRepository;
  /** Once per tick before selection: what the kind keeps up to date (expiry, scheduled iterations). */
  prepare(now: number): Promise<void>;
  /**
   * After the tick's batches (or in their place while the chain holds claims, `held`): judges why the orders it
   * selected, or would have, are still pending (diagnoses; no I/O).
   */
  afterBatches?(now: number, held: boolean): void;
  /** Orders ready to run now, at most `max`, those to run first first. */
  select(now: number, max: number): Promise<KeeperOrderRef[]>;
  /** Claims the selected orders at their versions and reads them in the terms the plan stage shares. */
  claim(refs: readonly KeeperOrderRef[], ctx: ClaimContext): Promise<ClaimedOrders>;
  /**
   * What settling its orders needs, read at once for a whole batch: each order's attempt number (how a failure
   * backs off) and its tokens' decimals (to report the amounts of its OrderExecuted event; undefined when a token
   * is gone from the list). Orders that no longer exist are left out.
   */
  settlementFacts(ids: readonly string[]): Promise<Map<string, SettlementFacts>>;
  /** An attempt of one of its orders ended: executed, or failed (settled from a receipt, or final before sending). */
  onOutcome(id: string, outcome: 'executed' | 'failed'): Promise<void>;
}

/** The works of one chain keeper, by kind. */
export type OrderWorks = ReadonlyMap<KeeperOrderKind, OrderWork>;

/** The work of an order's kind; every kind the keeper claims has one, so a missing one is a wiring error. */
export function workOf(works: OrderWorks, kind: KeeperOrderKind): OrderWork {
  const work = works.get(kind);
  if (!work) throw new Error(`no keeper work for orders of kind ${kind}`);
  return work;
}

/** Items by their kind, each kind's in their given order. */
export function byKind<T extends { kind: KeeperOrderKind }>(items: Iterable<T>): Map<KeeperOrderKind, T[]> {
  const out = new Map<KeeperOrderKind, T[]>();
  for (const item of items) {
    const ofKind = out.get(item.kind);
    if (ofKind) ofKind.push(item);
    else out.set(item.kind, [item]);
  }
  return out;
}
