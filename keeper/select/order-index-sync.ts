import { eachRow } from '../row-guard';
import type { IndexedOrder, OrderIndex } from './order-index';

/** A limit-order row changed since a point in time, as the store reports it. */
export interface ChangedOrder extends IndexedOrder {
  status: string;
  /** Unix ms, the store's `updated_at`. */
  updatedAt: number;
}

/**
 * Rows with (updatedAt, id) strictly after (sinceUpdatedAt, afterId), ordered by updatedAt then id, at most
 * `limit`. With afterId '' every row at exactly sinceUpdatedAt is included. A loader may return only `pending`
 * rows while the index is empty (the first poll, since = 0): other rows would only be removed again.
 */
export type LoadOrderChanges = (
  sinceUpdatedAt: number,
  afterId: string,
  limit: number,
) => Promise<ChangedOrder[]>;

export interface OrderIndexSyncOptions {
  /** Rows per loader call. */
  pageSize?: number;
  /**
   * How far before the watermark each poll starts again. A transaction that stamped updated_at before an
   * earlier poll but committed after it would be skipped by a plain watermark; re-reading this window catches
   * it, and re-applying rows already seen is harmless (upserts are idempotent, removes of absent ids no-ops).
   */
  overlapMs?: number;
  /** The keeper's clock, Unix ms. */
  now?: () => number;
  /**
   * A row the index cannot hold (a trigger or expiry that is not a number): left out, and the sync goes on with
   * the rest. Reported once per version of the row.
   */
  onUnreadable?: (row: ChangedOrder, err: unknown) => void;
}

export interface SyncResult {
  upserted: number;
  removed: number;
  /** Rows the loader returned, overlap re-reads included. */
  rows: number;
  pages: number;
  /** Rows left out of the index (see `onUnreadable`). */
  unreadable: number;
}

const DEFAULT_PAGE_SIZE = 1000;
const DEFAULT_OVERLAP_MS = 2000;

/**
 * Keeps an OrderIndex in step with the store: each `poll()` reads the rows changed since the last one and
 * upserts the `pending` ones and removes every other status (executing, cancelled, final...). Paging uses the
 * (updatedAt, id) keyset, so a page boundary inside a run of equal updatedAt neither skips nor repeats rows.
 * The caller polls at least once a second so that new, patched and cancelled orders are seen within a second.
 */
export class OrderIndexSync {
  private readonly pageSize: number;
  private readonly overlapMs: number;
  private readonly now: () => number;
  private readonly onUnreadable: (row: ChangedOrder, err: unknown) => void;
  /** Rows left out, by id: the version reported (the overlap window reads a row more than once). */
  private readonly leftOut = new Map<string, number>();
  /** Highest updatedAt applied so far; -1 before the first poll so that rows at 0 are read too. */
  private highWater = -1;
  private running: Promise<SyncResult> | null = null;

  constructor(
    private readonly index: OrderIndex,
    private readonly loadChanges: LoadOrderChanges,
    options: OrderIndexSyncOptions = {},
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.overlapMs = options.overlapMs ?? DEFAULT_OVERLAP_MS;
    this.now = options.now ?? Date.now;
    this.onUnreadable = options.onUnreadable ?? (() => undefined);
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${this.pageSize}`);
    }
    if (!(this.overlapMs >= 0)) throw new RangeError(`overlapMs must be >= 0, got ${this.overlapMs}`);
  }

  /** The updatedAt the next poll reads from (inclusive). */
  get watermark(): number {
    return this.highWater < 0 ? -1 : Math.max(-1, this.highWater - this.overlapMs);
  }

  /** Applies the changes since the last poll. Concurrent calls share one run instead of racing each other. */
  poll(): Promise<SyncResult> {
    if (this.running === null) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async run(): Promise<SyncResult> {
    const result: SyncResult = { upserted: 0, removed: 0, rows: 0, pages: 0, unreadable: 0 };
    let since = this.watermark;
    let afterId = '';
    let seen = this.highWater;
    for (;;) {
      const page = await this.loadChanges(since, afterId, this.pageSize);
      result.pages++;
      result.rows += page.length;
      for (const row of page) {
        // Ids are compared only for equality: the store's collation, not JS, orders them within one updatedAt.
        if (row.updatedAt < since || (row.updatedAt === since && row.id === afterId)) {
          throw new Error(
            `order change loader went backwards: (${row.updatedAt}, ${row.id}) after (${since}, ${afterId})`,
          );
        }
        since = row.updatedAt;
        afterId = row.id;
        if (row.updatedAt > seen) seen = row.updatedAt;
      }
      // Each row on its own: one the index refuses must not hold back every later change.
      await eachRow(
        page,
        (row) => {
          if (row.status === 'pending') {
            if (this.index.upsert(row)) result.upserted++;
          } else if (this.index.remove(row.id)) {
            result.removed++;
          }
          this.leftOut.delete(row.id);
        },
        (row, err) => {
          result.unreadable++;
          this.index.remove(row.id);
          if (this.leftOut.get(row.id) === row.version) return;
          this.leftOut.set(row.id, row.version);
          this.onUnreadable(row, err);
        },
      );
      if (page.length < this.pageSize) break;
    }
    // A writer whose clock runs ahead would otherwise drag the watermark past rows other writers stamp with
    // correct times; capped at our own clock, those future rows are simply re-read until time catches up.
    this.highWater = Math.min(seen, this.now());
    return result;
  }
}
