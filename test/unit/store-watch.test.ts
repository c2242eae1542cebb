import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { createLogger } from '../../shared/log/create-logger';
import { StoreMetrics } from '../../shared/metrics/store-metrics';
import { isStoreUnreachable } from '../../shared/store/store-unreachable';
import { StoreWatch } from '../../shared/store/store-watch';

/** A logger whose JSON lines the test reads. */
function capturedLog(): {
  log: ReturnType<typeof createLogger>;
  lines: () => Array<{ level: number; msg: string }>;
} {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    log: createLogger('info', 'test', sink),
    lines: () => lines.map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
}

const refused = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), {
    code: 'ECONNREFUSED',
    fatal: true,
  });

async function metric(registry: Registry, name: string): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) throw new Error(`no metric ${name}`);
  return (await m.get()).values.reduce((sum, v) => sum + v.value, 0);
}

describe('isStoreUnreachable', () => {
  it('knows the errors of a store that cannot be reached from those of a statement', () => {
    expect(isStoreUnreachable(refused())).toBe(true);
    expect(isStoreUnreachable(Object.assign(new Error('lost'), { code: 'PROTOCOL_CONNECTION_LOST' }))).toBe(
      true,
    );
    expect(isStoreUnreachable(Object.assign(new Error('closed state'), { fatal: true }))).toBe(true);
    const timeout = new Error('Knex: Timeout acquiring a connection. The pool is probably full.');
    timeout.name = 'KnexTimeoutError';
    expect(isStoreUnreachable(timeout)).toBe(true);
    expect(isStoreUnreachable(new AggregateError([refused(), refused()]))).toBe(true);
    expect(isStoreUnreachable(new Error('wrapped', { cause: refused() }))).toBe(true);
    expect(isStoreUnreachable(Object.assign(new Error('io'), { code: 'SQLITE_IOERR_READ' }))).toBe(true);

    expect(isStoreUnreachable(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY', fatal: false }))).toBe(
      false,
    );
    expect(isStoreUnreachable(Object.assign(new Error('deadlock'), { code: 'ER_LOCK_DEADLOCK' }))).toBe(
      false,
    );
    expect(isStoreUnreachable(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isStoreUnreachable(new Error('store unavailable'))).toBe(false);
    expect(isStoreUnreachable(undefined)).toBe(false);
    expect(isStoreUnreachable('ECONNREFUSED')).toBe(false);
  });
});

describe('StoreWatch', () => {
  let clock: number;
  let answer: 'ok' | 'refuse' | 'hang';
  let probes: number;
  let registry: Registry;
  let captured: ReturnType<typeof capturedLog>;
  let watch: StoreWatch;

  beforeEach(() => {
    clock = 1_000_000;
    answer = 'ok';
    probes = 0;
    registry = new Registry();
    captured = capturedLog();
    watch = new StoreWatch({
      probe: () =>
        ++probes && answer === 'ok'
          ? Promise.resolve([{ 1: 1 }])
          : answer === 'refuse'
            ? Promise.reject(refused())
            : new Promise(() => undefined),
      metrics: new StoreMetrics(registry, 'tas_test_'),
      log: captured.log,
      timeoutMs: 100,
      now: () => clock,
    });
  });

  afterEach(() => watch.stop());

  const messages = () => captured.lines().map((l) => l.msg);

  it('logs one line when the store goes and one when it is back, however many calls fail in between', async () => {
    expect(watch.up).toBe(true);
    expect(await metric(registry, 'tas_test_store_up')).toBe(1);
    for (let i = 0; i < 50; i++) expect(watch.failed(refused())).toBe(true);
    answer = 'refuse';
    for (let i = 0; i < 5; i++) {
      clock += 1_000;
      expect(await watch.check()).toBe(false);
    }
    expect(watch.up).toBe(false);
    expect(await metric(registry, 'tas_test_store_up')).toBe(0);
    expect(await metric(registry, 'tas_test_store_outage_seconds_total')).toBe(5);

    answer = 'ok';
    clock += 1_500;
    expect(await watch.check()).toBe(true);
    expect(watch.up).toBe(true);
    expect(await watch.check()).toBe(true);

    expect(messages()).toEqual(['store unreachable', 'store back']);
    const [down, back] = captured.lines() as Array<{ level: number; msg: string; outageSeconds?: number }>;
    expect(down!.level).toBe(40);
    expect(back).toMatchObject({ level: 30, outageSeconds: 6.5 });
    expect(await metric(registry, 'tas_test_store_up')).toBe(1);
    expect(await metric(registry, 'tas_test_store_outages_total')).toBe(1);
    expect(await metric(registry, 'tas_test_store_outage_seconds_total')).toBe(6.5);
  });

  it('leaves errors that are not an outage to the caller', () => {
    expect(watch.failed(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' }))).toBe(false);
    expect(watch.up).toBe(true);
    expect(messages()).toEqual([]);
  });

  it('counts a store that does not answer in time as gone, and callers at once share one probe', async () => {
    answer = 'hang';
    const started = Date.now();
    const results = await Promise.all([watch.check(), watch.check(), watch.check()]);
    expect(results).toEqual([false, false, false]);
    expect(probes).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(watch.up).toBe(false);
    expect(messages()).toEqual(['store unreachable']);
    expect(await metric(registry, 'tas_test_store_outages_total')).toBe(1);
  });

  it('probes on its own once started: faster while the store is away', async () => {
    const fast = new StoreWatch({
      probe: () => (answer === 'ok' ? Promise.resolve(1) : Promise.reject(refused())),
      metrics: new StoreMetrics(new Registry(), 'tas_fast_'),
      log: captured.log,
      upIntervalMs: 20,
      downIntervalMs: 10,
    });
    fast.start();
    try {
      answer = 'refuse';
      await waitUntil(() => !fast.up);
      answer = 'ok';
      await waitUntil(() => fast.up);
      expect(messages()).toEqual(['store unreachable', 'store back']);
    } finally {
      fast.stop();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
