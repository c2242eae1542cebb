import fc from 'fast-check';
import { OrderIndex, pairKey, type IndexedOrder } from '../../keeper/select/order-index';
import { OrderIndexSync, type ChangedOrder } from '../../keeper/select/order-index-sync';
import { SortedChunkList } from '../../keeper/select/sorted-chunk-list';

const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const DAI = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

function order(id: string, trigger: number, extra: Partial<IndexedOrder> = {}): IndexedOrder {
  return {
    id,
    chainId: 1,
    tokenIn: WETH,
    tokenOut: USDC,
    trigger,
    expiresAt: NOW + DAY,
    nextAttemptAt: 0,
    version: 0,
    ...extra,
  };
}

const ids = (orders: readonly Readonly<IndexedOrder>[]) => orders.map((o) => o.id);

describe('SortedChunkList', () => {
  it('matches a sorted array under any sequence of inserts and deletes, across chunk splits and merges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 300 })), { maxLength: 2000 }),
        (ops) => {
          const list = new SortedChunkList<number>((a, b) => a - b, 4);
          const model: number[] = [];
          for (const [isInsert, v] of ops) {
            if (isInsert && !model.includes(v)) {
              list.insert(v);
              model.push(v);
            } else {
              const at = model.indexOf(v);
              expect(list.delete(v)).toBe(at >= 0);
              if (at >= 0) model.splice(at, 1);
            }
          }
          model.sort((a, b) => a - b);
          expect(list.toArray()).toEqual(model);
          expect(list.size).toBe(model.length);
          expect(list.first()).toBe(model[0]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('stops a scan when the visitor returns false', () => {
    const list = new SortedChunkList<number>((a, b) => a - b, 4);
    for (let i = 0; i < 50; i++) list.insert(49 - i);
    const seen: number[] = [];
    list.scan((v) => {
      seen.push(v);
      return v < 11;
    });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('rejects a chunk load too small to split', () => {
    expect(() => new SortedChunkList<number>((a, b) => a - b, 2)).toThrow(RangeError);
  });
});

describe('OrderIndex', () => {
  it('returns crossed orders lowest trigger first, ties by id, and only those with trigger <= price', () => {
    const index = new OrderIndex();
    index.upsert(order('c', 3000));
    index.upsert(order('a', 3000));
    index.upsert(order('b', 2900));
    index.upsert(order('d', 3000.01));
    index.upsert(order('e', 3100));
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW))).toEqual(['b', 'a', 'c']);
    expect(ids(index.crossed(1, WETH, USDC, 2899.99, NOW))).toEqual([]);
    expect(ids(index.crossed(1, WETH, USDC, 5000, NOW))).toEqual(['b', 'a', 'c', 'd', 'e']);
    expect(ids(index.crossed(1, WETH, USDC, 5000, NOW, 2))).toEqual(['b', 'a']);
    expect(ids(index.crossed(1, WETH, USDC, 5000, NOW, 0))).toEqual([]);
    expect(ids(index.crossed(1, WETH, USDC, Number.NaN, NOW))).toEqual([]);
  });

  it('keeps pairs and chains apart: direction matters and addresses match case-insensitively', () => {
    const index = new OrderIndex();
    index.upsert(order('weth-usdc', 3000));
    index.upsert(order('usdc-weth', 0.0003, { tokenIn: USDC, tokenOut: WETH }));
    index.upsert(order('polygon', 3000, { chainId: 137 }));
    index.upsert(order('weth-dai', 3000, { tokenOut: DAI.toLowerCase() }));
    expect(
      ids(index.crossed(1, WETH.toLowerCase(), USDC.toUpperCase().replace('0X', '0x'), 3001, NOW)),
    ).toEqual(['weth-usdc']);
    expect(ids(index.crossed(1, USDC, WETH, 0.00031, NOW))).toEqual(['usdc-weth']);
    expect(ids(index.crossed(137, WETH, USDC, 3001, NOW))).toEqual(['polygon']);
    expect(ids(index.crossed(1, WETH, DAI, 3001, NOW))).toEqual(['weth-dai']);
    expect(ids(index.crossed(10, WETH, USDC, 3001, NOW))).toEqual([]);
    expect(index.get('weth-usdc')).toMatchObject({
      tokenIn: WETH.toLowerCase(),
      tokenOut: USDC.toLowerCase(),
    });

    const pairs = index.pairs(1).sort((a, b) => a.key.localeCompare(b.key));
    expect(pairs.map((p) => p.key)).toEqual(
      [pairKey(1, USDC, WETH), pairKey(1, WETH, USDC), pairKey(1, WETH, DAI)].sort(),
    );
    expect(pairs.find((p) => p.key === pairKey(1, WETH, USDC))).toEqual({
      key: `1:${WETH.toLowerCase()}:${USDC.toLowerCase()}`,
      chainId: 1,
      tokenIn: WETH.toLowerCase(),
      tokenOut: USDC.toLowerCase(),
      size: 1,
      lowestTrigger: 3000,
    });
    expect(index.pairs(137)).toHaveLength(1);
    expect(index.pairs(56)).toEqual([]);
  });

  it('re-positions an order whose trigger changed and keeps one entry per id', () => {
    const index = new OrderIndex();
    index.upsert(order('a', 2000));
    index.upsert(order('b', 2500));
    index.upsert(order('c', 2800));
    expect(index.upsert(order('a', 2900, { version: 1 }))).toBe(true);
    expect(index.size).toBe(3);
    expect(ids(index.crossed(1, WETH, USDC, 2600, NOW))).toEqual(['b']);
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW))).toEqual(['b', 'c', 'a']);
    expect(index.get('a')).toMatchObject({ trigger: 2900, version: 1 });
    expect(index.pairs(1)[0]).toMatchObject({ size: 3, lowestTrigger: 2500 });
  });

  it('ignores an update older than the indexed version', () => {
    const index = new OrderIndex();
    index.upsert(order('a', 2000, { version: 3 }));
    expect(index.upsert(order('a', 1000, { version: 2 }))).toBe(false);
    expect(index.get('a')).toMatchObject({ trigger: 2000, version: 3 });
    expect(ids(index.crossed(1, WETH, USDC, 1500, NOW))).toEqual([]);
    // Same version: a local change such as a back-off is applied.
    expect(index.upsert(order('a', 2000, { version: 3, nextAttemptAt: NOW + 5000 }))).toBe(true);
    expect(index.get('a')?.nextAttemptAt).toBe(NOW + 5000);
  });

  it('removes orders from their book, the expiry list and the pair list', () => {
    const index = new OrderIndex();
    index.upsert(order('a', 2000, { expiresAt: NOW - 1 }));
    index.upsert(order('b', 2000));
    index.upsert(order('c', 1, { chainId: 137 }));
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.get('a')).toBeUndefined();
    expect(index.size).toBe(2);
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW))).toEqual(['b']);
    expect(index.expired(NOW)).toEqual([]);
    index.remove('b');
    expect(index.pairs(1)).toEqual([]);
    expect(index.pairs(137)).toHaveLength(1);
    expect(index.size).toBe(1);
  });

  it('skips orders backing off until their nextAttemptAt, then returns them', () => {
    const index = new OrderIndex();
    index.upsert(order('a', 2000));
    index.upsert(order('b', 2100, { nextAttemptAt: NOW + 30_000 }));
    index.upsert(order('c', 2200));
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW))).toEqual(['a', 'c']);
    // The limit counts returned orders, not the backed-off ones scanned past.
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW, 2))).toEqual(['a', 'c']);
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW + 29_999))).toEqual(['a', 'c']);
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW + 30_000))).toEqual(['a', 'b', 'c']);
    index.upsert({ ...index.get('a')!, nextAttemptAt: NOW + 60_000 });
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW + 30_000))).toEqual(['b', 'c']);
  });

  it('never returns an expired order as crossed and lists expired orders soonest first until removed', () => {
    const index = new OrderIndex();
    index.upsert(order('late', 2000, { expiresAt: NOW + 10_000 }));
    index.upsert(order('soon-b', 2000, { expiresAt: NOW }));
    index.upsert(order('soon-a', 9000, { expiresAt: NOW }));
    index.upsert(order('first', 2000, { expiresAt: NOW - 5000, chainId: 137 }));
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW))).toEqual(['late']);
    expect(ids(index.expired(NOW - 5001))).toEqual([]);
    expect(ids(index.expired(NOW))).toEqual(['first', 'soon-a', 'soon-b']);
    expect(ids(index.expired(NOW, 1))).toEqual(['first']);
    expect(ids(index.expired(NOW + 10_000))).toEqual(['first', 'soon-a', 'soon-b', 'late']);
    expect(ids(index.crossed(1, WETH, USDC, 3000, NOW + 10_000))).toEqual([]);
    index.remove('first');
    expect(ids(index.expired(NOW))).toEqual(['soon-a', 'soon-b']);
    // A PATCH of `expired` moves the order in the expiry list too.
    index.upsert(order('soon-a', 9000, { expiresAt: NOW + DAY, version: 1 }));
    expect(ids(index.expired(NOW))).toEqual(['soon-b']);
  });

  it('hands out entries a caller cannot mutate to corrupt the ordering', () => {
    const index = new OrderIndex();
    index.upsert(order('a', 2000));
    const [a] = index.crossed(1, WETH, USDC, 3000, NOW);
    expect(() => {
      (a as IndexedOrder).trigger = 1;
    }).toThrow(TypeError);
  });

  it('rejects NaN in fields that order or filter', () => {
    const index = new OrderIndex();
    expect(() => index.upsert(order('a', Number.NaN))).toThrow(RangeError);
    expect(() => index.upsert(order('a', 1, { expiresAt: Number.NaN }))).toThrow(RangeError);
    expect(index.size).toBe(0);
  });

  it('agrees with a brute-force filter over random orders and updates', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.integer({ min: 0, max: 60 }).map(String),
            pair: fc.integer({ min: 0, max: 2 }),
            trigger: fc.integer({ min: 1, max: 20 }),
            expiresIn: fc.integer({ min: -5, max: 5 }),
            backOff: fc.integer({ min: -5, max: 5 }),
            remove: fc.boolean(),
          }),
          { maxLength: 300 },
        ),
        fc.integer({ min: 1, max: 20 }),
        (ops, price) => {
          const index = new OrderIndex();
          const model = new Map<string, IndexedOrder>();
          const tokens = [USDC, DAI, WETH];
          for (const op of ops) {
            if (op.remove) {
              expect(index.remove(op.id)).toBe(model.delete(op.id));
              continue;
            }
            const o = order(op.id, op.trigger, {
              tokenOut: tokens[op.pair]!,
              tokenIn: op.pair === 2 ? USDC : WETH,
              expiresAt: NOW + op.expiresIn,
              nextAttemptAt: NOW + op.backOff,
            });
            index.upsert(o);
            model.set(o.id, { ...o, tokenIn: o.tokenIn.toLowerCase(), tokenOut: o.tokenOut.toLowerCase() });
          }
          expect(index.size).toBe(model.size);
          const cmp = (a: IndexedOrder, b: IndexedOrder) => a.trigger - b.trigger || (a.id < b.id ? -1 : 1);
          for (let pair = 0; pair < 3; pair++) {
            const tokenIn = pair === 2 ? USDC : WETH;
            const tokenOut = tokens[pair]!;
            const expected = [...model.values()]
              .filter(
                (o) =>
                  o.tokenIn === tokenIn.toLowerCase() &&
                  o.tokenOut === tokenOut.toLowerCase() &&
                  o.trigger <= price &&
                  o.nextAttemptAt <= NOW &&
                  o.expiresAt > NOW,
              )
              .sort(cmp);
            expect(ids(index.crossed(1, tokenIn, tokenOut, price, NOW))).toEqual(ids(expected));
          }
          const expired = [...model.values()]
            .filter((o) => o.expiresAt <= NOW)
            .sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : 1));
          expect(ids(index.expired(NOW))).toEqual(ids(expired));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * An in-memory limit_orders table with the keyset query the store will run:
 * WHERE updated_at > ? OR (updated_at = ? AND id > ?) ORDER BY updated_at, id LIMIT ?.
 * Rows written inside an open "transaction" are invisible until committed, as on MySQL.
 */
class FakeOrderTable {
  private readonly committed = new Map<string, ChangedOrder>();
  private readonly uncommitted = new Map<string, ChangedOrder>();
  readonly calls: { since: number; afterId: string; limit: number }[] = [];

  write(row: ChangedOrder, commit = true): void {
    (commit ? this.committed : this.uncommitted).set(row.id, row);
  }

  commit(id: string): void {
    this.committed.set(id, this.uncommitted.get(id)!);
    this.uncommitted.delete(id);
  }

  readonly load = async (since: number, afterId: string, limit: number): Promise<ChangedOrder[]> => {
    this.calls.push({ since, afterId, limit });
    return [...this.committed.values()]
      .filter((r) => r.updatedAt > since || (r.updatedAt === since && r.id > afterId))
      .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((r) => ({ ...r }));
  };
}

function row(
  id: string,
  updatedAt: number,
  status = 'pending',
  extra: Partial<ChangedOrder> = {},
): ChangedOrder {
  return { ...order(id, 3000), status, updatedAt, ...extra };
}

describe('OrderIndexSync', () => {
  it('loads every row when many share one updatedAt across page boundaries', async () => {
    const table = new FakeOrderTable();
    for (let i = 0; i < 250; i++) table.write(row(`o-${String(i).padStart(3, '0')}`, NOW));
    for (let i = 0; i < 5; i++) table.write(row(`p-${i}`, NOW + 1));
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { pageSize: 100, now: () => NOW + 10 });
    const result = await sync.poll();
    expect(index.size).toBe(255);
    expect(result).toEqual({ upserted: 255, removed: 0, rows: 255, pages: 3, unreadable: 0 });
    // The second page resumes inside the run of equal updatedAt, after the last id of the first.
    expect(table.calls.map((c) => [c.since, c.afterId])).toEqual([
      [-1, ''],
      [NOW, 'o-099'],
      [NOW, 'o-199'],
    ]);
  });

  it('upserts pending rows and removes every other status, including patches and re-positions', async () => {
    const table = new FakeOrderTable();
    let now = NOW;
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { pageSize: 2, now: () => now });
    table.write(row('a', NOW - 10));
    table.write(row('b', NOW - 9));
    table.write(row('c', NOW - 8));
    await sync.poll();
    expect(index.size).toBe(3);

    now += 1000;
    table.write(row('a', now - 5, 'cancelled', { version: 1 }));
    table.write(row('b', now - 5, 'pending', { trigger: 3500, version: 1 }));
    table.write(row('c', now - 4, 'executing', { version: 1 }));
    table.write(row('d', now - 3, 'completed', { version: 2 }));
    const result = await sync.poll();
    expect(index.get('a')).toBeUndefined();
    expect(index.get('c')).toBeUndefined();
    expect(index.get('d')).toBeUndefined();
    expect(index.get('b')).toMatchObject({ trigger: 3500, version: 1 });
    expect(result.removed).toBe(2);
    expect(ids(index.crossed(1, WETH, USDC, 3400, now))).toEqual([]);
    expect(ids(index.crossed(1, WETH, USDC, 3500, now))).toEqual(['b']);
  });

  it('catches a row committed after a poll with an updatedAt older than the watermark', async () => {
    const table = new FakeOrderTable();
    let now = NOW;
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { now: () => now });
    // A transaction stamps `late` at NOW - 300 but commits only after the poll that saw `early` at NOW - 100.
    table.write(row('late', NOW - 300), false);
    table.write(row('early', NOW - 100));
    await sync.poll();
    expect(index.get('late')).toBeUndefined();
    table.commit('late');
    now += 1000;
    await sync.poll();
    expect(index.get('late')).toBeDefined();
    expect(index.size).toBe(2);
  });

  it('would miss that late row without the overlap window (the reason for it)', async () => {
    const table = new FakeOrderTable();
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { overlapMs: 0, now: () => NOW });
    table.write(row('late', NOW - 300), false);
    table.write(row('early', NOW - 100));
    await sync.poll();
    table.commit('late');
    await sync.poll();
    expect(index.get('late')).toBeUndefined();
  });

  it('re-reads the overlap window each poll without changing the outcome', async () => {
    const table = new FakeOrderTable();
    let now = NOW;
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { overlapMs: 2000, now: () => now });
    table.write(row('a', NOW - 500));
    table.write(row('b', NOW - 400, 'cancelled'));
    await sync.poll();
    expect(sync.watermark).toBe(NOW - 400 - 2000);
    now += 1000;
    const again = await sync.poll();
    expect(again).toMatchObject({ rows: 2, upserted: 1, removed: 0 });
    expect(index.size).toBe(1);
    now += 10_000;
    // Rows older than the window are no longer re-read.
    table.write(row('c', now - 10));
    await sync.poll();
    expect(table.calls.at(-1)!.since).toBe(NOW - 400 - 2000);
    const fourth = await sync.poll();
    expect(fourth.rows).toBe(1);
    expect(index.size).toBe(2);
  });

  it('caps the watermark at its own clock so a writer with a fast clock cannot hide other rows', async () => {
    const table = new FakeOrderTable();
    const index = new OrderIndex();
    const sync = new OrderIndexSync(index, table.load, { overlapMs: 2000, now: () => NOW });
    table.write(row('future', NOW + 60_000));
    await sync.poll();
    expect(sync.watermark).toBe(NOW - 2000);
    table.write(row('normal', NOW - 1000));
    await sync.poll();
    expect(index.get('normal')).toBeDefined();
  });

  it('shares one run between overlapping poll() calls', async () => {
    const table = new FakeOrderTable();
    table.write(row('a', NOW));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowLoad = async (since: number, afterId: string, limit: number) => {
      await gate;
      return table.load(since, afterId, limit);
    };
    const sync = new OrderIndexSync(new OrderIndex(), slowLoad, { now: () => NOW });
    const first = sync.poll();
    const second = sync.poll();
    release();
    expect(await second).toBe(await first);
    expect(table.calls).toHaveLength(1);
    await sync.poll();
    expect(table.calls).toHaveLength(2);
  });

  it('leaves out a row the index cannot hold, reports it once per version, and goes on with the others', async () => {
    const table = new FakeOrderTable();
    let now = NOW;
    const index = new OrderIndex();
    const reported: string[] = [];
    const sync = new OrderIndexSync(index, table.load, {
      pageSize: 2,
      now: () => now,
      onUnreadable: (r, err) => reported.push(`${r.id}@${r.version}: ${(err as Error).message}`),
    });
    table.write(row('a', NOW - 10));
    table.write(row('bad', NOW - 9, 'pending', { expiresAt: Number.NaN }));
    table.write(row('c', NOW - 8));
    expect(await sync.poll()).toMatchObject({ upserted: 2, unreadable: 1 });
    expect(ids(index.crossed(1, WETH, USDC, 3000, now))).toEqual(['a', 'c']);
    expect(reported).toEqual(['bad@0: order bad: expiresAt is NaN']);

    // Re-read within the overlap window: not reported again. Fixed by a PATCH: indexed.
    now += 500;
    table.write(row('d', now - 5));
    await sync.poll();
    expect(reported).toHaveLength(1);
    table.write(row('bad', now - 4, 'pending', { version: 1 }));
    await sync.poll();
    expect(ids(index.crossed(1, WETH, USDC, 3000, now))).toEqual(['a', 'bad', 'c', 'd']);
    expect(reported).toHaveLength(1);
  });

  it('refuses a loader that does not advance the keyset, instead of looping forever', async () => {
    const broken = async (): Promise<ChangedOrder[]> => [row('a', NOW), row('a', NOW)];
    const sync = new OrderIndexSync(new OrderIndex(), broken, { pageSize: 2, now: () => NOW });
    await expect(sync.poll()).rejects.toThrow(/went backwards/);
    // The failed run does not block the next one.
    await expect(sync.poll()).rejects.toThrow(/went backwards/);
  });

  it('rejects bad options', () => {
    const table = new FakeOrderTable();
    expect(() => new OrderIndexSync(new OrderIndex(), table.load, { pageSize: 0 })).toThrow(RangeError);
    expect(() => new OrderIndexSync(new OrderIndex(), table.load, { overlapMs: -1 })).toThrow(RangeError);
  });
});
