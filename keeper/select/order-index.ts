import { SortedChunkList } from './sorted-chunk-list';

/** An open limit order as the selector sees it: only what ordering and screening need. */
export interface IndexedOrder {
  id: string;
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  /** `priceTrigger` as a double: units of tokenOut per 1 tokenIn. */
  trigger: number;
  /** Unix ms; the order may not execute from this instant on. */
  expiresAt: number;
  /** Unix ms; back-off after a retryable failure, 0 when the order may run at once. */
  nextAttemptAt: number;
  version: number;
}

/** One (chain, tokenIn, tokenOut) book with open orders. Addresses are lowercase. */
export interface OrderPair {
  key: string;
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  size: number;
  /** The book's lowest trigger: a price below it crosses nothing, so the caller may skip the pair. */
  lowestTrigger: number;
}

interface Book {
  pair: Omit<OrderPair, 'size' | 'lowestTrigger'>;
  orders: SortedChunkList<IndexedOrder>;
}

const byId = (a: IndexedOrder, b: IndexedOrder): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byTrigger = (a: IndexedOrder, b: IndexedOrder): number => a.trigger - b.trigger || byId(a, b);
const byExpiry = (a: IndexedOrder, b: IndexedOrder): number => a.expiresAt - b.expiresAt || byId(a, b);

export function pairKey(chainId: number, tokenIn: string, tokenOut: string): string {
  return `${chainId}:${tokenIn.toLowerCase()}:${tokenOut.toLowerCase()}`;
}

/**
 * In-memory index of open limit orders, one book per (chainId, tokenIn, tokenOut) sorted by trigger, plus one
 * list of all orders sorted by expiry. Addresses are compared case-insensitively and stored lowercase (what
 * `get`, `crossed` and `expired` return). An order is executable when the market price of tokenIn in tokenOut
 * is >= its trigger; `crossed` returns the lowest trigger first, the order deepest in the money, so that when
 * a batch cannot take every crossed order the ones with the most margin over their trigger go first.
 *
 * Updates cost O(log n) (see SortedChunkList). Entries are frozen copies: a caller cannot reorder a book by
 * mutating what it got back.
 */
export class OrderIndex {
  private readonly byOrderId = new Map<string, IndexedOrder>();
  private readonly books = new Map<number, Map<string, Book>>();
  private readonly byExpiry = new SortedChunkList<IndexedOrder>(byExpiry);
  /** Per chain: ids added or changed (another version) since the chain last took them (`takeFresh`). */
  private readonly fresh = new Map<number, Set<string>>();

  get size(): number {
    return this.byOrderId.size;
  }

  get(id: string): Readonly<IndexedOrder> | undefined {
    return this.byOrderId.get(id);
  }

  /**
   * Adds the order or replaces the indexed one, re-positioning it when its trigger, expiry or pair changed.
   * An update older than the indexed entry (lower `version`) is ignored and returns false: a store read that
   * started before a newer write must not roll the entry back.
   */
  upsert(order: IndexedOrder): boolean {
    for (const field of ['trigger', 'expiresAt', 'nextAttemptAt', 'version'] as const) {
      if (Number.isNaN(order[field])) throw new RangeError(`order ${order.id}: ${field} is NaN`);
    }
    const current = this.byOrderId.get(order.id);
    if (current !== undefined && order.version < current.version) return false;
    if (current !== undefined) this.unlink(current);
    if (current === undefined || current.version !== order.version || current.chainId !== order.chainId) {
      if (current !== undefined) this.fresh.get(current.chainId)?.delete(order.id);
      let fresh = this.fresh.get(order.chainId);
      if (fresh === undefined) this.fresh.set(order.chainId, (fresh = new Set()));
      fresh.add(order.id);
    }
    const entry: IndexedOrder = Object.freeze({
      id: order.id,
      chainId: order.chainId,
      tokenIn: order.tokenIn.toLowerCase(),
      tokenOut: order.tokenOut.toLowerCase(),
      trigger: order.trigger,
      expiresAt: order.expiresAt,
      nextAttemptAt: order.nextAttemptAt,
      version: order.version,
    });
    this.byOrderId.set(entry.id, entry);
    this.bookFor(entry).orders.insert(entry);
    this.byExpiry.insert(entry);
    return true;
  }

  remove(id: string): boolean {
    const current = this.byOrderId.get(id);
    if (current === undefined) return false;
    this.unlink(current);
    this.byOrderId.delete(id);
    this.fresh.get(current.chainId)?.delete(id);
    return true;
  }

  /**
   * Ids of the chain's orders added to the index, or changed there (a new version), since the last call: the
   * orders whose standing the keeper has not judged yet. Each is handed out once.
   */
  takeFresh(chainId: number): string[] {
    const fresh = this.fresh.get(chainId);
    if (fresh === undefined) return [];
    this.fresh.delete(chainId);
    return [...fresh];
  }

  /** The books of a chain that hold at least one order. */
  pairs(chainId: number): OrderPair[] {
    const books = this.books.get(chainId);
    if (books === undefined) return [];
    const out: OrderPair[] = [];
    for (const book of books.values()) {
      out.push({ ...book.pair, size: book.orders.size, lowestTrigger: book.orders.first()!.trigger });
    }
    return out;
  }

  /**
   * Orders of one pair with trigger <= price that may be attempted now (nextAttemptAt <= nowMs) and have not
   * expired (expiresAt > nowMs), lowest trigger first, ties by id. Scans only the crossed prefix of the book.
   */
  crossed(
    chainId: number,
    tokenIn: string,
    tokenOut: string,
    price: number,
    nowMs: number,
    limit = Number.POSITIVE_INFINITY,
  ): Readonly<IndexedOrder>[] {
    const out: IndexedOrder[] = [];
    const book = this.books.get(chainId)?.get(pairKey(chainId, tokenIn, tokenOut));
    if (book === undefined || !(limit > 0)) return out;
    book.orders.scan((o) => {
      // NaN price: the comparison is false and nothing is crossed.
      if (!(o.trigger <= price)) return false;
      if (o.nextAttemptAt <= nowMs && o.expiresAt > nowMs) out.push(o);
      return out.length < limit;
    });
    return out;
  }

  /**
   * Orders with expiresAt <= nowMs, soonest first. They stay indexed until removed: the caller settles them
   * (`failed`, reason `expired`) and removes them, or the sync removes them when their status changes.
   */
  expired(nowMs: number, limit = Number.POSITIVE_INFINITY): Readonly<IndexedOrder>[] {
    const out: IndexedOrder[] = [];
    if (!(limit > 0)) return out;
    this.byExpiry.scan((o) => {
      if (o.expiresAt > nowMs) return false;
      out.push(o);
      return out.length < limit;
    });
    return out;
  }

  private bookFor(entry: IndexedOrder): Book {
    let books = this.books.get(entry.chainId);
    if (books === undefined) {
      books = new Map();
      this.books.set(entry.chainId, books);
    }
    const key = pairKey(entry.chainId, entry.tokenIn, entry.tokenOut);
    let book = books.get(key);
    if (book === undefined) {
      book = {
        pair: { key, chainId: entry.chainId, tokenIn: entry.tokenIn, tokenOut: entry.tokenOut },
        orders: new SortedChunkList<IndexedOrder>(byTrigger),
      };
      books.set(key, book);
    }
    return book;
  }

  private unlink(entry: IndexedOrder): void {
    this.byExpiry.delete(entry);
    const books = this.books.get(entry.chainId)!;
    const key = pairKey(entry.chainId, entry.tokenIn, entry.tokenOut);
    const book = books.get(key)!;
    book.orders.delete(entry);
    if (book.orders.size === 0) books.delete(key);
    if (books.size === 0) this.books.delete(entry.chainId);
  }
}
