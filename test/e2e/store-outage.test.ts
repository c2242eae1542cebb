import { devnetKeys } from '../../devnet/keys';
import { STORE_RETRY_AFTER_SECONDS } from '../../api/gateway/gateway-error';
import type { ApiResponse } from '../helpers/api-client';
import {
  createOrders,
  expectExecutedExactlyOnce,
  listOrders,
  orderBodies,
  prepareMakers,
  waitFor,
  waitForAllCompleted,
  type Order,
  type OrderMaker,
} from '../helpers/keeper-orders';
import { startKeeperProcess, type KeeperLogLine, type KeeperProcess } from '../helpers/keeper-process';
import { describeWithMariadb, startOwnMariadb, type OwnMariadb } from '../helpers/own-mariadb';
import { startService, type RunningService } from '../helpers/service-harness';

/**
 * Issue 24, item 3: the store going away. The api (in this process) and a keeper (`npm run keeper` as a process of
 * its own) run on a MariaDB server this test starts itself. Orders are created through the API, executed once, and
 * a batch is left in flight; then the server is killed with SIGKILL for OUTAGE_MS. Throughout, signed requests are
 * answered the gateway's 503 with Retry-After (never the 403 that sends integrators to their keys) within seconds,
 * both admin ports' /readyz name the store as down, and the keeper says so in one line. Once the server is started
 * again on the same data, both are ready again, every order created before is there, the batch in flight completes,
 * a new order executes, and the keeper has said "store back" once.
 */

jest.setTimeout(300_000);

const OUTAGE_MS = 12_000;
/** Claims the keeper held when the store went are taken again after this. */
const LEASE_MS = 10_000;
const EXECUTOR = devnetKeys(2).executors[0]!;
const UNAVAILABLE = '{"message":"Service Unavailable"}';
/** A request during the outage is answered within this: the pool gives up at once on a refused connection. */
const ANSWERED_WITHIN_MS = 5_000;

interface Readyz {
  status: number;
  body: { status: string; store: string };
}

async function readyz(adminUrl: string): Promise<Readyz> {
  const res = await fetch(`${adminUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz['body'] };
}

/** A metric from an admin port's /metrics, summed over its series. */
async function scraped(adminUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const samples = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))];
  if (!samples.length) throw new Error(`${adminUrl}/metrics has no ${name}`);
  return samples.reduce((sum, sample) => sum + Number(sample[1]), 0);
}

function expectStoreUnavailable(res: ApiResponse<unknown>, tookMs: number): void {
  expect({ status: res.status, text: res.text, retryAfter: res.headers.get('retry-after') }).toEqual({
    status: 503,
    text: UNAVAILABLE,
    retryAfter: String(STORE_RETRY_AFTER_SECONDS),
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(tookMs).toBeLessThan(ANSWERED_WITHIN_MS);
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const result = await work();
  return [result, Date.now() - started];
}

const said = (lines: KeeperLogLine[], msg: string): KeeperLogLine[] => lines.filter((l) => l.msg === msg);

/** The messages of the warnings and errors logged since `at` (pino's `time`, Unix ms). */
const warningsSince = (lines: KeeperLogLine[], at: number): string[] =>
  lines.filter((l) => l.level >= 40 && Number(l.time) >= at - 1_000).map((l) => l.msg);

describeWithMariadb('the store going away', (binaries) => {
  let mariadb: OwnMariadb;
  let running: RunningService;
  let keeper: KeeperProcess;
  let keeperAdmin: string;
  let makers: OrderMaker[];
  let before: Map<string, Order>;
  let inFlight: string[];
  let executedBefore: string[];
  let killedAt: number;
  let miningPaused = false;

  beforeAll(async () => {
    mariadb = await startOwnMariadb(binaries);
    running = await startService({
      target: await mariadb.target(),
      keepers: 0,
      env: { KEEPER_LEASE_MS: String(LEASE_MS) },
    });
    makers = await prepareMakers(running);
    keeper = await startKeeperProcess({
      chains: running.devnet.chains,
      dataDir: running.target.dataDir,
      databaseUrl: running.target.databaseUrl,
      executorPrivateKeys: [EXECUTOR.privateKey],
      env: { KEEPER_POLL_MS: '100', KEEPER_LEASE_MS: String(LEASE_MS) },
    });
    // Printed right after the `keeper started` line the start waited for.
    keeperAdmin = await waitFor(
      "the keeper's admin URL",
      async () => /keeper: \S+ \(admin (http:\/\/\S+)\)/.exec(keeper.stderr())?.[1],
      10_000,
      50,
    );
  }, 240_000);

  afterAll(async () => {
    if (miningPaused) await running?.chain.resumeMining().catch(() => undefined);
    await keeper?.kill();
    await running?.close();
    await mariadb?.close();
  });

  it('before: orders created through the API, two executed and a batch of three in flight', async () => {
    // The keeper publishes the pair's reference price (creation retries until it has), then executes them.
    executedBefore = (await createOrders(running.client, orderBodies(running, makers, 2))).map((o) => o.id);
    await waitForAllCompleted(running.client, executedBefore, 90_000);

    await running.chain.pauseMining();
    miningPaused = true;
    inFlight = (await createOrders(running.client, orderBodies(running, makers, 3))).map((o) => o.id);
    before = await waitFor(
      'the batch in flight sent',
      async () => {
        const now = await listOrders(running.client);
        return inFlight.every((id) => now.get(id)?.status === 'submitted') ? now : undefined;
      },
      30_000,
    );
    expect((await readyz(running.api.adminUrl)).body.store).toBe('ok');
    expect((await readyz(keeperAdmin)).body.store).toBe('ok');
  });

  it('during: signed requests answer 503 with Retry-After, never 403; both /readyz say the store is down', async () => {
    await mariadb.kill();
    killedAt = Date.now();
    // The batch is mined while nobody can record it.
    await running.chain.resumeMining();
    miningPaused = false;

    const [body] = orderBodies(running, makers, 1);
    let rounds = 0;
    while (Date.now() - killedAt < OUTAGE_MS) {
      const [list, listMs] = await timed(() => running.client.get('/limit-order'));
      expectStoreUnavailable(list, listMs);
      const [created, createMs] = await timed(() => running.client.post('/limit-order', body));
      expectStoreUnavailable(created, createMs);
      const [one, oneMs] = await timed(() => running.client.get(`/limit-order/${inFlight[0]!}`));
      expectStoreUnavailable(one, oneMs);

      for (const adminUrl of [running.api.adminUrl, keeperAdmin]) {
        const ready = await readyz(adminUrl);
        expect({ adminUrl, status: ready.status, body: ready.body }).toMatchObject({
          adminUrl,
          status: 503,
          body: { status: 'not ready', store: 'unavailable' },
        });
      }
      expect(await scraped(running.api.adminUrl, 'tas_api_store_up')).toBe(0);
      expect(await scraped(keeperAdmin, 'tas_keeper_store_up')).toBe(0);
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(rounds).toBeGreaterThan(3);

    const lines = keeper.logs();
    const down = said(lines, 'store unreachable');
    expect(down).toHaveLength(1);
    expect(down[0]!.level).toBe(40);
    // Not one line per tick or per stage: the loops wait for the store.
    expect(warningsSince(lines, killedAt)).toEqual(['store unreachable']);
  });

  it('after: ready again, nothing lost, the batch in flight and a new order completed, one "store back" line', async () => {
    await mariadb.start();
    const backAt = Date.now();
    for (const adminUrl of [running.api.adminUrl, keeperAdmin]) {
      await waitFor(
        `${adminUrl}/readyz ready`,
        async () => ((await readyz(adminUrl)).status === 200 ? true : undefined),
        15_000,
      );
    }

    // Every order created before is there, as it was or further along.
    const after = await listOrders(running.client);
    for (const [id, order] of before) {
      expect(after.get(id)).toMatchObject({ id, amount: order.amount, priceTrigger: order.priceTrigger });
    }
    const [fresh] = await createOrders(running.client, orderBodies(running, makers, 1));
    const all = [...executedBefore, ...inFlight, fresh!.id];
    const final = await waitForAllCompleted(running.client, all, LEASE_MS + 60_000);
    await expectExecutedExactlyOnce(running, final, all);
    expect(all.filter((id) => final.get(id)!.attemptNumber !== 0)).toEqual([]);
    // The executor's slots are all free again: the batch in flight, whose lease ran out while the store was away,
    // was followed by the keeper that sent it, not taken over and counted busy a second time. (The gauge is read
    // when the keeper follows a new block: one is mined each round.)
    await waitFor(
      'no transaction in flight',
      async () => {
        await running.chain.mine();
        return (await scraped(keeperAdmin, 'tas_keeper_wallet_in_flight_transactions')) === 0
          ? true
          : undefined;
      },
      10_000,
      500,
    );

    const lines = keeper.logs();
    expect(said(lines, 'store unreachable')).toHaveLength(1);
    const back = said(lines, 'store back');
    expect(back).toHaveLength(1);
    expect(back[0]!.level).toBe(30);
    const outage = back[0]!.outageSeconds as number;
    expect(outage).toBeGreaterThanOrEqual(OUTAGE_MS / 1000 - 1);
    expect(outage).toBeLessThan((backAt - killedAt) / 1000 + 5);
    expect(warningsSince(lines, killedAt)).toEqual(['store unreachable']);

    expect(await scraped(keeperAdmin, 'tas_keeper_store_up')).toBe(1);
    expect(await scraped(keeperAdmin, 'tas_keeper_store_outages_total')).toBe(1);
    expect(await scraped(keeperAdmin, 'tas_keeper_store_outage_seconds_total')).toBeGreaterThanOrEqual(
      OUTAGE_MS / 1000 - 1,
    );
    expect(await scraped(running.api.adminUrl, 'tas_api_store_up')).toBe(1);
    expect(await scraped(running.api.adminUrl, 'tas_api_store_outages_total')).toBe(1);
  });
});
