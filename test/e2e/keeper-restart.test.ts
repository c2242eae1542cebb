import { devnetKeys } from '../../devnet/keys';
import type { ChainConfig } from '../../shared/config/config-schema';
import {
  createOrders,
  expectExecutedExactlyOnce,
  orderBodies,
  prepareMakers,
  waitFor,
  waitForAllCompleted,
  type OrderMaker,
  publishWethUsdcPrice,
} from '../helpers/keeper-orders';
import { startKeeperProcess, type KeeperProcess } from '../helpers/keeper-process';
import { startJsonRpcProxy, type JsonRpcProxy } from '../helpers/json-rpc-proxy';
import { startService, type RunningService } from '../helpers/service-harness';
import { mysqlServerForTests } from '../helpers/store-targets';

/**
 * A keeper killed while it holds claims (orders `executing` under its lease, nothing sent: the test holds its
 * eth_gasPrice call), then restarted as a real `npm run keeper` process on the same MySQL store. Under the same
 * KEEPER_ID it knows the claims are its own and takes them back at once; under another id it waits out the lease.
 * Either way every order executes exactly once on-chain.
 */

jest.setTimeout(420_000);

const LEASE_MS = 60_000;
/** The lease of the claims another keeper must wait out: shorter, so the wait costs the suite less. */
const WAITED_LEASE_MS = 20_000;
const ORDERS = 6;
const KEEPER_ID = 'keeper-restart-test';
const EXECUTOR = devnetKeys(1).executors[0]!;
const ENV = { KEEPER_LEASE_MS: String(LEASE_MS), KEEPER_POLL_MS: '100' };
/** From the restart (process spawn, pool state loading included) to every order completed. */
const SAME_ID_WITHIN_MS = 15_000;

interface ClaimRow {
  id: string;
  status: string;
  lease_owner: string | null;
  lease_expires_at: number | string | null;
  keeper_tx_id: string | null;
}

const onMysql = mysqlServerForTests() ? describe : describe.skip;

onMysql('a keeper restarted while it holds claims', () => {
  let running: RunningService;
  let holdingProxy: JsonRpcProxy;
  let makers: OrderMaker[];
  const children: KeeperProcess[] = [];

  const claims = async (ids: string[]): Promise<ClaimRow[]> =>
    (await running.api.store
      .knex('limit_orders')
      .whereIn('id', ids)
      .select('id', 'status', 'lease_owner', 'lease_expires_at', 'keeper_tx_id')) as ClaimRow[];

  const startKeeper = async (
    id: string,
    chains: readonly ChainConfig[],
    leaseMs = LEASE_MS,
  ): Promise<KeeperProcess> => {
    const child = await startKeeperProcess({
      chains,
      dataDir: running.target.dataDir,
      databaseUrl: running.target.databaseUrl,
      executorPrivateKeys: [EXECUTOR.privateKey],
      env: { ...ENV, KEEPER_ID: id, KEEPER_LEASE_MS: String(leaseMs) },
    });
    children.push(child);
    return child;
  };

  /**
   * Creates crossed orders and has a keeper under KEEPER_ID claim them all, then kills it (SIGKILL) before it can
   * send or release anything: its eth_gasPrice never answers. Resolves with the orders' ids and the claims' expiry.
   */
  const claimedByKilledKeeper = async (
    leaseMs = LEASE_MS,
  ): Promise<{ ids: string[]; leaseExpiresAt: number }> => {
    const ids = (await createOrders(running.client, orderBodies(running, makers, ORDERS))).map((o) => o.id);
    const held = running.devnet.chains.map((c) => ({ ...c, rpcUrls: [holdingProxy.url] }));
    const doomed = await startKeeper(KEEPER_ID, held, leaseMs);
    const rows = await waitFor(
      'every order claimed by the keeper to be killed',
      async () => {
        const now = await claims(ids);
        const mine = now.filter(
          (r) => r.status === 'executing' && r.lease_owner === KEEPER_ID && !r.keeper_tx_id,
        );
        return mine.length === ids.length ? now : undefined;
      },
      90_000,
      50,
    );
    await doomed.kill('SIGKILL');
    return { ids, leaseExpiresAt: Math.min(...rows.map((r) => Number(r.lease_expires_at))) };
  };

  beforeAll(async () => {
    running = await startService({ storeKind: 'mysql', keepers: 0, env: ENV });
    holdingProxy = await startJsonRpcProxy(running.manifest.rpcUrl, (body, forward) =>
      (JSON.parse(body) as { method?: string }).method === 'eth_gasPrice' ? 'hang' : forward(),
    );
    makers = await prepareMakers(running);
    // No keeper runs yet to publish the reference price the api requires: the test publishes it.
    await publishWethUsdcPrice(running);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await holdingProxy?.close();
    await running?.close();
  });

  it('under the same KEEPER_ID takes its claims back at once; under another waits out the lease; each order runs once', async () => {
    // Same id: the restarted keeper completes the orders well within the 60 s lease.
    const first = await claimedByKilledKeeper();
    const restartedAt = Date.now();
    const same = await startKeeper(KEEPER_ID, running.devnet.chains);
    await waitForAllCompleted(running.client, first.ids, 40_000);
    const sameIdTook = Date.now() - restartedAt;
    expect(sameIdTook).toBeLessThan(SAME_ID_WITHIN_MS);
    expect(Date.now()).toBeLessThan(first.leaseExpiresAt - 15_000);
    expect(
      same.logs().find((l) => l.msg === 'took back the claims of a previous run of this keeper'),
    ).toMatchObject({
      limit: ORDERS,
      dca: 0,
    });
    await same.kill('SIGTERM');

    // Another id: the claims stay the dead keeper's until their lease runs out, then the new keeper runs them.
    const second = await claimedByKilledKeeper(WAITED_LEASE_MS);
    const other = await startKeeper('another-keeper', running.devnet.chains);
    while (Date.now() < second.leaseExpiresAt - 5_000) {
      const rows = await claims(second.ids);
      expect(rows.filter((r) => r.status !== 'executing' || r.lease_owner !== KEEPER_ID)).toEqual([]);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const final = await waitForAllCompleted(running.client, [...first.ids, ...second.ids], 60_000);
    expect(Date.now()).toBeGreaterThan(second.leaseExpiresAt);
    expect(other.logs().some((l) => l.msg === 'took back the claims of a previous run of this keeper')).toBe(
      false,
    );
    await expectExecutedExactlyOnce(running, final, [...first.ids, ...second.ids]);
  });
});
