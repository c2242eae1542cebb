/**
 * A sorted multiset split into bounded chunks (the layout of Python's sortedcontainers): an insert or delete is
 * a binary search over the chunks' last items, a binary search inside one chunk and a splice of at most
 * `2 × load` references, so it costs O(log n + load) however large the list grows. A single sorted array would
 * move every later reference on each splice, which at 100,000 orders in one pair costs more than the whole
 * per-block selection budget after a few dozen updates.
 *
 * The comparator must be a strict total order over the items held (break ties, e.g. by id), because `delete`
 * finds its item by comparison, not by identity.
 */
export class SortedChunkList<T> {
  private readonly chunks: T[][] = [];
  private count = 0;

  constructor(
    private readonly compare: (a: T, b: T) => number,
    private readonly load = 256,
  ) {
    if (!Number.isInteger(load) || load < 4)
      throw new RangeError(`chunk load must be an integer >= 4, got ${load}`);
  }

  get size(): number {
    return this.count;
  }

  insert(item: T): void {
    this.count++;
    if (this.chunks.length === 0) {
      this.chunks.push([item]);
      return;
    }
    // Past every chunk's end the item belongs at the end of the last chunk.
    const ci = Math.min(this.chunkFor(item), this.chunks.length - 1);
    const chunk = this.chunks[ci]!;
    chunk.splice(this.upperBound(chunk, item), 0, item);
    if (chunk.length > 2 * this.load) this.chunks.splice(ci + 1, 0, chunk.splice(this.load));
  }

  /** Removes the item comparing equal to `item`; false when there is none. */
  delete(item: T): boolean {
    const ci = this.chunkFor(item);
    const chunk = this.chunks[ci];
    if (chunk === undefined) return false;
    const at = this.lowerBound(chunk, item);
    if (at >= chunk.length || this.compare(chunk[at]!, item) !== 0) return false;
    chunk.splice(at, 1);
    this.count--;
    this.rebalance(ci);
    return true;
  }

  /** Calls `visit` on items in ascending order until it returns false or the list ends. */
  scan(visit: (item: T) => boolean): void {
    for (const chunk of this.chunks) {
      for (let i = 0; i < chunk.length; i++) if (!visit(chunk[i]!)) return;
    }
  }

  first(): T | undefined {
    return this.chunks[0]?.[0];
  }

  toArray(): T[] {
    return this.chunks.flat();
  }

  /** Index of the first chunk whose last item is >= item (chunks.length when none is). */
  private chunkFor(item: T): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (this.compare(chunk[chunk.length - 1]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private lowerBound(chunk: T[], item: T): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(chunk[mid]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private upperBound(chunk: T[], item: T): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(chunk[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Keeps chunks from thinning out after many deletes: otherwise the chunk array could approach one item per
   * chunk and its own splices would become the O(n) cost this structure exists to avoid.
   */
  private rebalance(ci: number): void {
    const chunk = this.chunks[ci]!;
    if (chunk.length === 0) {
      this.chunks.splice(ci, 1);
      return;
    }
    if (chunk.length >= this.load >> 2 || this.chunks.length === 1) return;
    const left = ci > 0 ? ci - 1 : ci;
    const merged = this.chunks[left]!.concat(this.chunks[left + 1]!);
    if (merged.length > 2 * this.load) {
      this.chunks.splice(left, 2, merged.slice(0, merged.length >> 1), merged.slice(merged.length >> 1));
    } else {
      this.chunks.splice(left, 2, merged);
    }
  }
}
