import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { eachRow, RowGuard } from '../../keeper/row-guard';
import { SendError } from '../../keeper/outbox/send-error';
import { ChainAvailability, isOutageError } from '../../keeper/watch/chain-availability';
import { RpcTimeoutError, RpcUnavailableError } from '../../shared/chain/rpc-errors';
import { createLogger } from '../../shared/log/create-logger';
import type { ChainFreshness } from '../../shared/routing/sources/pool-state-cache';

const log = createLogger('silent', 'test');
const outage = new RpcUnavailableError(1, 'eth_call', 3, new Error('503 service unavailable'));

async function setAside(metrics: KeeperMetrics): Promise<Record<string, number>> {
  const { values } = await metrics.rowsSetAsideTotal.get();
  return Object.fromEntries(
    values.filter((v) => v.value > 0).map((v) => [`${v.labels.kind}/${v.labels.reason}`, v.value]),
  );
}

describe('eachRow', () => {
  it('handles every row on its own: a throw goes to onThrow and the loop goes on', async () => {
    const handled: number[] = [];
    const thrown: string[] = [];
    const secondThrows: string[] = [];
    await eachRow(
      [1, 2, 3, 4],
      async (n) => {
        if (n % 2 === 0) throw new Error(`row ${n}`);
        handled.push(n);
      },
      (n, err) => {
        thrown.push((err as Error).message);
        if (n === 4) throw new Error('onThrow failed too');
      },
      (n, err) => secondThrows.push(`${n}: ${(err as Error).message}`),
    );
    expect(handled).toEqual([1, 3]);
    expect(thrown).toEqual(['row 2', 'row 4']);
    expect(secondThrows).toEqual(['4: onThrow failed too']);
  });
});

describe('RowGuard', () => {
  it('sets a throwing row aside with a metric and hands it on; an outage only waits', async () => {
    const metrics = new KeeperMetrics();
    metrics.initChain(1);
    let outages = 0;
    const guard = new RowGuard(1, metrics, log, () => outages++);
    const onThrow: string[] = [];
    await guard.each(
      (row: { id: string; kind: 'limit' | 'dca' }) => row.kind,
      [
        { id: 'a', kind: 'limit' },
        { id: 'b', kind: 'dca' },
        { id: 'c', kind: 'limit' },
        { id: 'd', kind: 'limit' },
      ],
      (row) => row.id,
      (row) => {
        if (row.id === 'b') throw new RangeError('absurd');
        if (row.id === 'c') throw outage;
      },
      (row) => {
        onThrow.push(row.id);
      },
    );
    expect(onThrow).toEqual(['b']);
    expect(outages).toBe(1);
    expect(await setAside(metrics)).toEqual({ 'dca/ERROR': 1 });
    guard.setAside('dca_strategy', 's', 'INVALID_AMOUNT', 'totalAmount 1e308');
    expect(await setAside(metrics)).toEqual({ 'dca/ERROR': 1, 'dca_strategy/INVALID_AMOUNT': 1 });
  });

  it('lets rows wait while the store cannot be reached: none set aside, the outage told to the store watch', async () => {
    const metrics = new KeeperMetrics();
    metrics.initChain(1);
    const told: unknown[] = [];
    const storeFailed = (err: unknown): boolean => {
      const unreachable = (err as { code?: string }).code === 'ECONNREFUSED';
      if (unreachable) told.push(err);
      return unreachable;
    };
    const guard = new RowGuard(1, metrics, log, () => undefined, storeFailed);
    const onThrow: string[] = [];
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', fatal: true });
    await guard.each(
      'limit',
      [{ id: 'a' }, { id: 'b' }],
      (row) => row.id,
      () => {
        throw refused;
      },
      (row) => {
        onThrow.push(row.id);
      },
    );
    expect(onThrow).toEqual([]);
    expect(told).toEqual([refused, refused]);
    expect(await setAside(metrics)).toEqual({});
  });

  it('starts every series of a chain at 0', async () => {
    const metrics = new KeeperMetrics();
    metrics.initChain(7);
    const { values } = await metrics.rowsSetAsideTotal.get();
    expect(values.length).toBe(4 * 6);
    expect(values.every((v) => v.value === 0 && v.labels.chain_id === '7')).toBe(true);
    expect((await metrics.outageDelaysTotal.get()).values.map((v) => [v.labels.kind, v.value])).toEqual([
      ['limit', 0],
      ['dca', 0],
    ]);
  });
});

describe('chain availability', () => {
  it('tells outages from answers of the chain', () => {
    expect(isOutageError(outage)).toBe(true);
    expect(isOutageError(new RpcTimeoutError(10_000))).toBe(true);
    expect(isOutageError(new SendError('unavailable', -1, '', 'no node'))).toBe(true);
    expect(isOutageError(new SendError('rejected', 3, '0x', 'intrinsic gas too low'))).toBe(false);
    expect(isOutageError(Object.assign(new Error('execution reverted'), { code: 'CALL_EXCEPTION' }))).toBe(
      false,
    );
  });

  it('holds claims while the state is stale or the RPC fails, until both recover', () => {
    let freshness: ChainFreshness = { stale: false, ageMs: 0, blocksBehind: 0 };
    const availability = new ChainAvailability(1, { freshness: () => freshness });
    expect(availability.heldBy(0)).toBeUndefined();
    availability.rpcFailed();
    expect(availability.heldBy(0)).toBe('rpc-failing');
    freshness = { stale: true, reason: 'age', ageMs: 31_000, blocksBehind: 0 };
    expect(availability.heldBy(0)).toBe('stale-state');
    availability.rpcAnswered();
    expect(availability.heldBy(0)).toBe('stale-state');
    freshness = { stale: false, ageMs: 200, blocksBehind: 0 };
    expect(availability.heldBy(0)).toBeUndefined();
  });
});

describe('eachRow with concurrency', () => {
  it('handles every row once, at most `concurrency` at a time, a throwing row on its own', async () => {
    let running = 0;
    let most = 0;
    const handled: number[] = [];
    const thrown: number[] = [];
    await eachRow(
      Array.from({ length: 20 }, (_, i) => i),
      async (row) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, (row * 7) % 5));
        running -= 1;
        if (row % 6 === 0) throw new Error(`row ${row}`);
        handled.push(row);
      },
      (row) => {
        thrown.push(row);
      },
      undefined,
      4,
    );
    expect(most).toBe(4);
    expect(thrown.sort((a, b) => a - b)).toEqual([0, 6, 12, 18]);
    expect([...handled, ...thrown].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
