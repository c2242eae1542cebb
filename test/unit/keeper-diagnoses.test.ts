import { DiagnosisWriter, type DiagnosisStore } from '../../keeper/diagnose/diagnosis-writer';
import { OrderDiagnoses, diagnosisOfRetry } from '../../keeper/diagnose/order-diagnoses';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { LimitOrderWork } from '../../keeper/select/limit-order-work';
import { OrderIndex, type IndexedOrder } from '../../keeper/select/order-index';
import { diagnosisJson, nextDiagnosis, type DiagnosisInput } from '../../shared/domain/diagnosis';
import { createLogger } from '../../shared/log/create-logger';
import type { Prices, PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { DiagnosisEntry } from '../../shared/store/repositories/diagnoses-repository';
import type { KeeperLimitOrdersRepository } from '../../shared/store/repositories/keeper-limit-orders-repository';
import type { KeeperOrderKind } from '../../shared/store/repositories/keeper-order-repository';

const log = createLogger('silent', 'test');
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

/** Judgments handed to the writer, in order, as `kind:id:code`. */
class RecordingWriter {
  readonly submitted: Array<{ kind: KeeperOrderKind; id: string; diagnosis: DiagnosisInput }> = [];
  submit(kind: KeeperOrderKind, id: string, diagnosis: DiagnosisInput): void {
    this.submitted.push({ kind, id, diagnosis });
  }
  codes(): string[] {
    return this.submitted.splice(0).map((s) => `${s.id}:${s.diagnosis.code}`);
  }
}

describe('a diagnosis judged again (nextDiagnosis)', () => {
  const stored = { code: 'PRICE_NOT_REACHED', marketPrice: 3000, priceTrigger: 3500, since: 1 } as const;

  it('starts `since` with a new code, keeps it when only the detail changes, and writes nothing when equal', () => {
    expect(nextDiagnosis(null, { code: 'WAITING_FOR_BLOCK' }, 5)).toEqual({
      code: 'WAITING_FOR_BLOCK',
      since: 5,
    });
    expect(nextDiagnosis(stored, { code: 'ALLOWANCE_SHORT', required: '2', available: '1' }, 5)).toEqual({
      code: 'ALLOWANCE_SHORT',
      required: '2',
      available: '1',
      since: 5,
    });
    expect(nextDiagnosis(stored, { ...stored, priceTrigger: 3400 }, 5)).toEqual({
      ...stored,
      priceTrigger: 3400,
      since: 1,
    });
    expect(
      nextDiagnosis(stored, { code: 'PRICE_NOT_REACHED', marketPrice: 3000, priceTrigger: 3500 }, 5),
    ).toBe(undefined);
  });

  it('rewrites a market price only once it moved by 1% or more', () => {
    const judged = (marketPrice: number) => ({
      code: 'PRICE_NOT_REACHED' as const,
      marketPrice,
      priceTrigger: 3500,
    });
    expect(nextDiagnosis(stored, judged(3029), 5)).toBe(undefined);
    expect(nextDiagnosis(stored, judged(2971), 5)).toBe(undefined);
    expect(nextDiagnosis(stored, judged(3031), 5)).toEqual({ ...judged(3031), since: 1 });
    expect(nextDiagnosis(stored, { code: 'PRICE_NOT_REACHED', priceTrigger: 3500 }, 5)).toEqual({
      code: 'PRICE_NOT_REACHED',
      priceTrigger: 3500,
      since: 1,
    });
  });

  it('answers a sentence and ISO times', () => {
    expect(
      diagnosisJson({ code: 'BACKING_OFF', reason: 'SWAP_FAILED', nextAttemptAt: NOW + 5000, since: NOW }),
    ).toEqual({
      code: 'BACKING_OFF',
      message: `The last attempt failed (SWAP_FAILED); the next attempt is at ${new Date(NOW + 5000).toISOString()}`,
      since: new Date(NOW).toISOString(),
      reason: 'SWAP_FAILED',
      nextAttemptAt: new Date(NOW + 5000).toISOString(),
    });
  });
});

describe('what a retryable failure leaves an order waiting for', () => {
  it('names the chain, the route, a fee cap, the next block or a back-off', () => {
    expect(diagnosisOfRetry('RPC_ERROR', NOW + 3000, NOW)).toEqual({
      code: 'CHAIN_STALE',
      reason: 'RPC_ERROR',
      nextAttemptAt: NOW + 3000,
    });
    expect(diagnosisOfRetry('NO_ROUTE', NOW + 5000, NOW).code).toBe('NO_ROUTE');
    expect(diagnosisOfRetry('FEE_TOO_HIGH', NOW + 5000, NOW).code).toBe('FEE_ABOVE_CAP');
    expect(diagnosisOfRetry('GAS_TOO_EXPENSIVE', NOW + 5000, NOW).code).toBe('FEE_ABOVE_CAP');
    expect(diagnosisOfRetry('INSUFFICIENT_OUTPUT', NOW, NOW)).toEqual({
      code: 'WAITING_FOR_BLOCK',
      reason: 'INSUFFICIENT_OUTPUT',
    });
    expect(diagnosisOfRetry('SWAP_FAILED', NOW + 10_000, NOW)).toEqual({
      code: 'BACKING_OFF',
      reason: 'SWAP_FAILED',
      nextAttemptAt: NOW + 10_000,
    });
  });
});

describe("a chain keeper's memory of its diagnoses (OrderDiagnoses)", () => {
  it('hands a judgment to the writer only when it differs from the last one', () => {
    const writer = new RecordingWriter();
    const diagnoses = new OrderDiagnoses(writer, () => NOW);
    expect(diagnoses.note('limit', 'a', { code: 'WAITING_FOR_BLOCK' })).toBe(true);
    expect(diagnoses.note('limit', 'a', { code: 'WAITING_FOR_BLOCK' })).toBe(false);
    expect(diagnoses.note('dca', 'a', { code: 'WAITING_FOR_BLOCK' })).toBe(true);
    expect(diagnoses.note('limit', 'a', { code: 'BALANCE_SHORT', required: '2', available: '1' })).toBe(true);
    expect(writer.codes()).toEqual(['a:WAITING_FOR_BLOCK', 'a:WAITING_FOR_BLOCK', 'a:BALANCE_SHORT']);
    expect(diagnoses.of('limit', 'a')).toMatchObject({ code: 'BALANCE_SHORT', since: NOW });
  });

  it("keeps a judgment of the order itself against the index's until the order is claimed again", () => {
    const writer = new RecordingWriter();
    const diagnoses = new OrderDiagnoses(writer, () => NOW);
    diagnoses.note('limit', 'a', { code: 'ALLOWANCE_SHORT', required: '2', available: '1' }, true);
    expect(diagnoses.noteUnlessHeld('limit', 'a', { code: 'WAITING_FOR_BLOCK' })).toBe(false);
    diagnoses.claimed('limit', ['a']);
    expect(diagnoses.noteUnlessHeld('limit', 'a', { code: 'WAITING_FOR_BLOCK' })).toBe(true);
    expect(writer.codes()).toEqual(['a:ALLOWANCE_SHORT', 'a:WAITING_FOR_BLOCK']);
  });
});

describe('limit orders judged from the trigger index', () => {
  const token = (address: string): PriceListToken | undefined =>
    [WETH, USDC].includes(address.toLowerCase())
      ? { address, decimals: address.toLowerCase() === WETH ? 18 : 6, symbol: 'X' }
      : undefined;

  function harness() {
    let price: number | undefined = 3000;
    const index = new OrderIndex();
    const writer = new RecordingWriter();
    const diagnoses = new OrderDiagnoses(writer, () => NOW);
    const work = new LimitOrderWork({
      chainId: 1,
      repository: { expire: async () => [] } as unknown as KeeperLimitOrdersRepository,
      index,
      prices: { rate: () => (price === undefined ? undefined : { price }) } as unknown as Prices,
      token,
      metrics: new KeeperMetrics(),
      diagnoses,
    });
    const add = (id: string, trigger: number, extra: Partial<IndexedOrder> = {}) =>
      index.upsert({
        id,
        chainId: 1,
        tokenIn: WETH,
        tokenOut: USDC,
        trigger,
        expiresAt: NOW + DAY,
        nextAttemptAt: 0,
        version: 0,
        ...extra,
      });
    return {
      index,
      writer,
      diagnoses,
      work,
      add,
      setPrice: (p: number | undefined) => (price = p),
    };
  }

  it('diagnoses an order the price does not reach once, with the market price beside the trigger', async () => {
    const h = harness();
    h.add('above', 3500);
    h.add('below', 2500);
    await h.work.prepare(NOW);
    expect(h.writer.submitted.splice(0)).toEqual([
      {
        kind: 'limit',
        id: 'above',
        diagnosis: { code: 'PRICE_NOT_REACHED', marketPrice: 3000, priceTrigger: 3500 },
      },
    ]);
    // Later ticks judge it again only if it changes, whatever the market does below its trigger.
    h.setPrice(2600);
    for (let i = 0; i < 5; i++) await h.work.prepare(NOW + i);
    expect(h.writer.codes()).toEqual([]);
    // A PATCH (a new version) is judged again.
    h.add('above', 3600, { version: 1 });
    await h.work.prepare(NOW);
    expect(h.writer.codes()).toEqual(['above:PRICE_NOT_REACHED']);
  });

  it('waits for a price before judging, and leaves an order backing off as it is until its next attempt', async () => {
    const h = harness();
    h.setPrice(undefined);
    h.add('a', 3500);
    h.add('b', 3500, { nextAttemptAt: NOW + 10_000 });
    await h.work.prepare(NOW);
    expect(h.writer.codes()).toEqual([]);
    h.setPrice(3000);
    await h.work.prepare(NOW);
    expect(h.writer.codes()).toEqual(['a:PRICE_NOT_REACHED']);
    await h.work.prepare(NOW + 10_000);
    expect(h.writer.codes()).toEqual(['b:PRICE_NOT_REACHED']);
  });

  it('diagnoses crossed orders left in the index after the batches as waiting, and as chain-stale while claims are held', async () => {
    const h = harness();
    h.add('crossed', 2500);
    h.add('above', 3500);
    await h.work.prepare(NOW);
    h.writer.codes();
    h.work.afterBatches(NOW, false);
    expect(h.writer.codes()).toEqual(['crossed:WAITING_FOR_BLOCK']);
    h.work.afterBatches(NOW, false);
    expect(h.writer.codes()).toEqual([]);
    h.work.afterBatches(NOW, true);
    expect(h.writer.codes()).toEqual(['crossed:CHAIN_STALE']);
    // The market falls back under its trigger: it leaves the crossed set, and says so.
    h.setPrice(2000);
    await h.work.prepare(NOW);
    expect(h.writer.submitted.splice(0)).toEqual([
      {
        kind: 'limit',
        id: 'crossed',
        diagnosis: { code: 'PRICE_NOT_REACHED', marketPrice: 2000, priceTrigger: 2500 },
      },
    ]);
  });

  it('keeps a judgment of the order itself (its funds) while it sits crossed in the index, until it is claimed', async () => {
    const h = harness();
    h.add('short', 2500);
    h.diagnoses.note('limit', 'short', { code: 'ALLOWANCE_SHORT', required: '2', available: '1' }, true);
    h.writer.codes();
    await h.work.prepare(NOW);
    h.work.afterBatches(NOW, false);
    expect(h.writer.codes()).toEqual([]);
    h.diagnoses.claimed('limit', ['short']);
    h.work.afterBatches(NOW, false);
    expect(h.writer.codes()).toEqual(['short:WAITING_FOR_BLOCK']);
  });
});

describe('the diagnosis writer', () => {
  function store(fail: () => boolean = () => false) {
    const calls: Array<[string, DiagnosisEntry[]]> = [];
    const record =
      (kind: string) =>
      async (entries: readonly DiagnosisEntry[]): Promise<string[]> => {
        if (fail()) throw new Error('store away');
        calls.push([kind, [...entries]]);
        return entries.map((e) => e.id);
      };
    const s: DiagnosisStore = {
      setLimitOrderDiagnoses: record('limit'),
      setDcaOrderDiagnoses: record('dca'),
    };
    return { s, calls };
  }

  it('writes each kind in one call per flush, the last judgment of an order only, a bounded batch at a time', async () => {
    const { s, calls } = store();
    const writer = new DiagnosisWriter({ store: s, log, now: () => NOW, maxPerFlush: 2 });
    writer.submit('limit', 'a', { code: 'WAITING_FOR_BLOCK' });
    writer.submit('dca', 'd', { code: 'WAITING_FOR_BLOCK' });
    writer.submit('limit', 'a', { code: 'CHAIN_STALE' });
    writer.submit('limit', 'b', { code: 'CHAIN_STALE' });
    await writer.flush();
    expect(calls.splice(0)).toEqual([
      ['limit', [{ id: 'a', diagnosis: { code: 'CHAIN_STALE' } }]],
      ['dca', [{ id: 'd', diagnosis: { code: 'WAITING_FOR_BLOCK' } }]],
    ]);
    await writer.flush();
    expect(calls.splice(0)).toEqual([['limit', [{ id: 'b', diagnosis: { code: 'CHAIN_STALE' } }]]]);
    await writer.flush();
    expect(calls).toEqual([]);
  });

  it('never rejects: a failed write is told, and queued again behind any newer judgment of the same order', async () => {
    let failing = true;
    const { s, calls } = store(() => failing);
    const errors: unknown[] = [];
    const writer = new DiagnosisWriter({ store: s, log, now: () => NOW, onError: (err) => errors.push(err) });
    writer.submit('limit', 'a', { code: 'WAITING_FOR_BLOCK' });
    writer.submit('limit', 'b', { code: 'WAITING_FOR_BLOCK' });
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    writer.submit('limit', 'a', { code: 'CHAIN_STALE' });
    failing = false;
    await writer.flush();
    expect(calls).toEqual([
      [
        'limit',
        [
          { id: 'b', diagnosis: { code: 'WAITING_FOR_BLOCK' } },
          { id: 'a', diagnosis: { code: 'CHAIN_STALE' } },
        ],
      ],
    ]);
    expect(writer.size).toBe(0);
  });
});
