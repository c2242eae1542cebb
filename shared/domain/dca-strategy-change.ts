import type { DcaStrategy } from './dca';

/** New price bounds: a number sets one, null clears it, absent keeps the stored value. */
export interface PriceBoundsChange {
  minPrice?: number | null;
  maxPrice?: number | null;
}

/** What a client may change on a strategy: cancel it and/or move its price bounds. */
export interface DcaStrategyChange extends PriceBoundsChange {
  cancel?: boolean;
}

export type DcaStrategyChangeOutcome =
  | { kind: 'not-found' }
  | { kind: 'updated'; strategy: DcaStrategy }
  /** A cancel repeated on a cancelled strategy: nothing to do, and not an error. */
  | { kind: 'unchanged'; strategy: DcaStrategy }
  | { kind: 'not-active'; strategy: DcaStrategy }
  /** The bounds after merging with the stored ones would have minPrice above maxPrice. */
  | { kind: 'bounds-crossed'; strategy: DcaStrategy; minPrice: number; maxPrice: number };

/** The fields a change writes, or why it cannot be applied; `updated` carries the strategy as it would read. */
export type DcaStrategyChangePlan =
  | Exclude<DcaStrategyChangeOutcome, { kind: 'updated' } | { kind: 'not-found' }>
  | { kind: 'apply'; next: DcaStrategy; cancels: boolean };

export const changesBounds = (change: PriceBoundsChange): boolean =>
  change.minPrice !== undefined || change.maxPrice !== undefined;

/**
 * Only an active strategy changes. A cancel of a cancelled strategy is a harmless repeat, but new price bounds
 * on it are not: they could never take effect, and the client should learn that.
 */
export function planStrategyChange(
  current: DcaStrategy,
  change: DcaStrategyChange,
  now: number,
): DcaStrategyChangePlan {
  if (current.status !== 'active') {
    if (current.status === 'cancelled' && change.cancel && !changesBounds(change)) {
      return { kind: 'unchanged', strategy: current };
    }
    return { kind: 'not-active', strategy: current };
  }
  const minPrice = change.minPrice === undefined ? current.minPrice : change.minPrice;
  const maxPrice = change.maxPrice === undefined ? current.maxPrice : change.maxPrice;
  if (minPrice !== null && maxPrice !== null && minPrice > maxPrice) {
    return { kind: 'bounds-crossed', strategy: current, minPrice, maxPrice };
  }
  const cancels = change.cancel === true;
  return {
    kind: 'apply',
    cancels,
    next: {
      ...current,
      minPrice,
      maxPrice,
      status: cancels ? 'cancelled' : current.status,
      version: current.version + 1,
      updatedAt: now,
    },
  };
}
