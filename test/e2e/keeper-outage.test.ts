import { setTimeout as sleep } from 'node:timers/promises';
import { devnetKeys } from '../../devnet/keys';
import { buildKeeper, type KeeperInstance } from '../../keeper/build-keeper';
import { createLogger } from '../../shared/log/create-logger';
import { testConfig } from '../helpers/api-harness';
import {
  createOrders,
  expectExecutedExactlyOnce,
  expectOneSettledRowPerOrder,
  failedAmong,
  listOrders,
  metricValue,
  orderBodies,
  prepareMakers,
  transactionRows,
  waitFor,
  waitForAllCompleted,
} from '../helpers/keeper-orders';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { startService, type RunningService } from '../helpers/service-harness';

/**
 * Outages delay, never fail: the keeper reaches its devnet chain through a proxy that is cut for 45 s (four leases and more) while 40
 * crossed limit orders wait (created through the api, which reads the chain directly) and a batch the keeper sent
 * just before is mined. None may end failed or lose an attempt to the outage; the keeper claims nothing while the
 * chain is unreachable, and settles the batch and executes every order exactly once after it comes back.
 */

jest.setTimeout(480_000);

const OUTAGE_MS = 45_000;
const ORDERS = 40;
const IN_FLIGHT = 3;
/** Two wallets: one carries the batch in flight, the other stays free to claim during the outage. */
const EXECUTORS = devnetKeys(2).executors;

describe('an RPC outage of the keeper', () => {
  let running: RunningService;
  let proxy: RpcProxy;
  let keeper: KeeperInstance;
  let minerStopped = false;

  afterAll(async () => {
    if (minerStopped) await running.chain.resumeMining().catch(() => undefined);
    await keeper?.stop();
    await proxy?.close();
    await running?.close();
  });

  it('delays 40 crossed orders and a batch in flight through a 45 s outage: all complete after it, none failed, no attempt counted', async () => {
    running = await startService({ keepers: 0 });
    proxy = await startRpcProxy(running.manifest.rpcUrl);
    const chainId = String(running.manifest.chainId);
    // The keeper alone reaches the chain through the proxy, pool state included (its own quoting); on SQLite it
    // shares the api's store, as in embedded mode.
    const config = testConfig(
      running.target,
      {
        KEEPER_POLL_MS: '100',
        KEEPER_LEASE_MS: '10000',
        KEEPER_ADMIN_PORT: '0',
        KEEPER_MAX_BATCH_ORDERS: '10',
      },
      { chains: running.devnet.chains.map((c) => ({ ...c, rpcUrls: [proxy.url] })) },
    );
    keeper = await buildKeeper(config, {
      store: running.api.store,
      // TAS_TEST_KEEPER_LOG=info shows this keeper's log when the test needs a diagnosis.
      log: createLogger(process.env.TAS_TEST_KEEPER_LOG ?? 'silent', 'keeper'),
      executorKeys: EXECUTORS.map((e) => e.privateKey),
    });
    await keeper.start();
    const makers = await prepareMakers(running);
    // The keeper publishes the pair's reference price, then executes a first order: it is up to speed.
    const [warmUp] = await createOrders(running.client, orderBodies(running, makers, 1));
    await waitForAllCompleted(running.client, [warmUp!.id], 90_000);

    // A batch in flight when the chain goes away: sent (the miner is stopped), then mined during the outage.
    await running.chain.pauseMining();
    minerStopped = true;
    const inFlight = (await createOrders(running.client, orderBodies(running, makers, IN_FLIGHT))).map(
      (o) => o.id,
    );
    await waitFor(
      'the in-flight batch sent',
      async () => {
        const now = await listOrders(running.client);
        return inFlight.every((i) => now.get(i)?.status === 'submitted') ? true : undefined;
      },
      30_000,
    );

    proxy.setFailure({ failEvery: 1, failure: '503' });
    const cutAt = Date.now();
    await running.chain.resumeMining();
    minerStopped = false;
    const orders = await createOrders(running.client, orderBodies(running, makers, ORDERS));
    const ids = orders.map((o) => o.id);
    expect(new Set(ids).size).toBe(ORDERS);
    const all = [warmUp!.id, ...inFlight, ...ids];

    // Throughout the outage: no order failed or charged an attempt; once the keeper has noticed (a few seconds),
    // none is even claimed, and the keeper says it holds its claims.
    const noticed = cutAt + 10_000;
    const held: (number | undefined)[] = [];
    while (Date.now() - cutAt < OUTAGE_MS) {
      const sampledAt = Date.now();
      const now = await listOrders(running.client);
      expect(failedAmong(now, all)).toEqual([]);
      expect(all.filter((i) => now.get(i)?.attemptNumber !== 0)).toEqual([]);
      // Mined on the chain, but the keeper cannot see it: still submitted.
      expect(inFlight.filter((i) => now.get(i)?.status !== 'submitted')).toEqual([]);
      const open = sampledAt > noticed ? ['pending'] : ['pending', 'executing'];
      expect(ids.filter((i) => !open.includes(now.get(i)?.status ?? 'missing'))).toEqual([]);
      if (sampledAt > noticed)
        held.push(await metricValue(keeper, 'tas_keeper_claims_held', { chain_id: chainId }));
      await sleep(5_000);
    }
    // Requests did reach the proxy all along and none went through.
    const failedDuringOutage = proxy.failed();
    expect(failedDuringOutage).toBeGreaterThan(100);

    proxy.setFailure({});
    const final = await waitForAllCompleted(running.client, all, 120_000);
    expect(all.filter((i) => final.get(i)!.attemptNumber !== 0)).toEqual([]);
    expect(all.filter((i) => final.get(i)!.reasonFail.length !== 0)).toEqual([]);
    await expectExecutedExactlyOnce(running, final, all);
    expectOneSettledRowPerOrder(await transactionRows(running.api.store), all);

    // The keeper said why it waited, and stopped waiting.
    expect(held.length).toBeGreaterThan(5);
    expect(held.every((v) => v === 1)).toBe(true);
    expect(await metricValue(keeper, 'tas_keeper_claims_held', { chain_id: chainId })).toBe(0);
    expect(
      await metricValue(keeper, 'tas_keeper_order_failures_total', {
        chain_id: chainId,
        disposition: 'final',
      }),
    ).toBe(0);
  });
});
