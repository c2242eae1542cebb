import { devnetKeys } from '../../devnet/keys';
import { buildKeeper, type KeeperInstance } from '../../keeper/build-keeper';
import { createLogger } from '../../shared/log/create-logger';
import { testConfig } from '../helpers/api-harness';
import {
  createOrders,
  expectExecutedExactlyOnce,
  expectOneSettledRowPerOrder,
  listOrders,
  metricValue,
  orderBodies,
  prepareMakers,
  transactionRows,
  waitFor,
  waitForAllCompleted,
  publishWethUsdcPrice,
} from '../helpers/keeper-orders';
import { startKeeperProcess, type KeeperProcess } from '../helpers/keeper-process';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { startService } from '../helpers/service-harness';
import { mysqlServerForTests } from '../helpers/store-targets';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * The keeper under faults, end to end on a devnet chain with real transactions: orders are created through the
 * public API by the manifest's test accounts (each approved the OrderExecutor and signed its pair authorization);
 * "exactly once" is read from the chain (one OrderExecuted event per order id) and from the API (every order
 * `completed`, with the hash of the transaction that holds its event).
 */

jest.setTimeout(180_000);

const EXECUTORS = devnetKeys(2).executors;

async function counterValue(keeper: KeeperInstance, name: string): Promise<number> {
  const value = await metricValue(keeper, name);
  if (value === undefined) throw new Error(`no metric ${name}`);
  return value;
}

function describeProcess(child: KeeperProcess, index: number): string {
  const lines = child
    .logs()
    .map(({ time: _time, hostname: _host, pid: _pid, ...rest }) => JSON.stringify(rest));
  return `keeper process ${index + 1} (pid ${child.pid}):\n  ${lines.slice(-30).join('\n  ')}\n  stderr: ${child.stderr()}`;
}

const onMysql = mysqlServerForTests() ? describe : describe.skip;

onMysql('keepers on one MySQL store', () => {
  it('two keepers execute 200 crossing orders exactly once, both doing work', async () => {
    const running = await startService({
      storeKind: 'mysql',
      keepers: 2,
      executorsPerKeeper: [[0], [1]],
      // Small batches: 200 orders need many batches, so both keepers claim from the same open orders.
      env: { KEEPER_MAX_BATCH_ORDERS: '10' },
    });
    try {
      const makers = await prepareMakers(running);
      const orders = await createOrders(running.client, orderBodies(running, makers, 200));
      const ids = orders.map((o) => o.id);
      expect(new Set(ids).size).toBe(200);

      const final = await waitForAllCompleted(running.client, ids, 150_000);
      await expectExecutedExactlyOnce(running, final, ids);

      const rows = await transactionRows(running.api.store);
      expectOneSettledRowPerOrder(rows, ids);
      const ordersPerExecutor = new Map<string, number>();
      for (const row of rows.filter((r) => r.status === 'settled'))
        ordersPerExecutor.set(
          row.executor,
          (ordersPerExecutor.get(row.executor) ?? 0) + row.limitOrderIds.length,
        );
      for (const executor of [EXECUTORS[0]!.address, EXECUTORS[1]!.address])
        expect({ executor, did: (ordersPerExecutor.get(executor) ?? 0) > 0 }).toEqual({
          executor,
          did: true,
        });
      // The batch cap held.
      for (const row of rows) expect(row.limitOrderIds.length).toBeLessThanOrEqual(10);
    } finally {
      await running.close();
    }
  });

  it('keeper processes killed mid-batch and restarted settle every order exactly once', async () => {
    // Three real keeper processes on one executor wallet are SIGKILLed in turn: (1) its batch broadcast but not
    // mined, (2) its batch broadcast and mined but not settled, (3) orders claimed but no transaction recorded.
    // A fourth must finish everything from the store alone (leases of 3 s let it take over quickly). One
    // transaction in flight: each kill lands on exactly one batch.
    const leaseEnv = {
      KEEPER_LEASE_MS: '3000',
      KEEPER_POLL_MS: '100',
      KEEPER_MAX_BATCH_ORDERS: '8',
      KEEPER_MAX_IN_FLIGHT: '1',
    };
    const running = await startService({ storeKind: 'mysql', keepers: 0, env: leaseEnv });
    const children: KeeperProcess[] = [];
    const startChild = async (killAfterFirstBatch: boolean): Promise<KeeperProcess> => {
      const child = await startKeeperProcess({
        chains: running.devnet.chains,
        dataDir: running.target.dataDir,
        databaseUrl: running.target.databaseUrl,
        executorPrivateKeys: [EXECUTORS[0]!.privateKey],
        env: leaseEnv,
        killWhen: killAfterFirstBatch ? (line) => line.msg === 'batch submitted' : undefined,
      });
      children.push(child);
      return child;
    };
    try {
      const { provider, chain } = running;
      const makers = await prepareMakers(running);
      // No keeper runs yet to publish the reference price the API requires: the test publishes it, so every
      // order exists before the first keeper starts and its first batch is a full one.
      await publishWethUsdcPrice(running);
      const orders = await createOrders(running.client, orderBodies(running, makers, 30));
      const ids = orders.map((o) => o.id);

      // Kill 1: the batch is signed, recorded and broadcast, but not mined (the miner is stopped).
      await chain.pauseMining();
      const first = await startChild(true);
      const firstBatch = await first.waitForLog((l) => l.msg === 'batch submitted', 60_000);
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(first.killedOn()).toBe(firstBatch);
      const firstTx = String(firstBatch.txHash);
      expect(await provider.getTransactionReceipt(firstTx)).toBeNull();
      expect(await provider.getTransaction(firstTx)).not.toBeNull();
      const afterKill = await listOrders(running.client);
      const inFlight = ids.filter((i) => afterKill.get(i)?.status === 'submitted');
      expect(inFlight.length).toBe(Number(firstBatch.orders));
      expect(inFlight.every((i) => afterKill.get(i)!.txHash === firstTx)).toBe(true);
      // The dead keeper's transaction is mined while no keeper runs.
      await chain.resumeMining();
      expect((await waitForReceipt(provider, firstTx, 10_000)).status).toBe(1);

      // Kill 2: a restarted keeper (same executor wallet) dies right after broadcasting its first batch.
      const second = await startChild(true);
      const secondBatch = await second.waitForLog((l) => l.msg === 'batch submitted', 60_000);
      expect((await second.exited).signal).toBe('SIGKILL');
      expect(String(secondBatch.txHash)).not.toBe(firstTx);

      // Kill 3: another restart dies between claim and submission: its orders are `executing` under its lease,
      // with no transaction recorded. The test watches the store and kills it as soon as it sees that state.
      const third = await startChild(false);
      const claimedUnsent = () =>
        running.api.store
          .knex('limit_orders')
          .where({ status: 'executing' })
          .whereNull('keeper_tx_id')
          .select('id');
      await waitFor(
        'orders claimed by the third keeper',
        async () => ((await claimedUnsent()).length > 0 ? true : undefined),
        60_000,
        5,
      );
      await third.kill();
      const stranded = (await claimedUnsent()).map((r: { id: string }) => r.id);
      expect(stranded.length).toBeGreaterThan(0);

      // The last keeper takes over what the dead ones held once their leases ran out and finishes the rest.
      const last = await startChild(false);
      const final = await waitForAllCompleted(running.client, ids, 90_000);
      await expectExecutedExactlyOnce(running, final, ids);
      expect(final.get(inFlight[0]!)!.txHash).toBe(firstTx);
      expectOneSettledRowPerOrder(await transactionRows(running.api.store), ids);
      // Every keeper that started sent from the same wallet: its nonces are contiguous, none used twice.
      const nonces = (await transactionRows(running.api.store)).map((r) => r.nonce).sort((a, b) => a - b);
      expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
      expect(last.logs().filter((l) => l.level >= 50)).toEqual([]);
      // The first batch's row was open when its keeper died: a later one took it over rather than re-executing.
      const takeovers = children.flatMap((c) =>
        c.logs().filter((l) => l.msg === 'took over a transaction of an expired keeper'),
      );
      expect(takeovers.map((l) => l.txHash)).toContain(firstTx);
    } catch (err) {
      // The keepers ran in other processes: their logs are the diagnosis.
      if (err instanceof Error) err.message += `\n${children.map(describeProcess).join('\n')}`;
      throw err;
    } finally {
      await Promise.all(children.map((c) => c.kill()));
      await running.close();
    }
  });
});

describe('keeper transactions and RPC faults', () => {
  it('replaces a transaction dropped from the pool, and the order completes once with the replacement', async () => {
    // Setup: with mining paused, the chain forgets its pending pool after the keeper submits (no block was
    // mined in between, so the chain state is unchanged), as a node that lost the transaction would. An empty
    // block (nothing left to include) then makes the keeper track again: its nonce is still unused and the node no longer knows the hash, so it must send a
    // replacement with bumped fees. KEEPER_REPLACE_AFTER_BLOCKS stays above the blocks mined meanwhile, so the
    // replacement can only come from the drop detection.
    const running = await startService({ env: { KEEPER_REPLACE_AFTER_BLOCKS: '5' } });
    const { provider, chain } = running;
    let minerStopped = false;
    try {
      const keeper = running.keepers[0]!;
      const makers = await prepareMakers(running);
      // The keeper publishes the reference price; wait for it with a first order that just executes.
      const [warmUp] = await createOrders(running.client, orderBodies(running, makers, 1));
      await waitForAllCompleted(running.client, [warmUp!.id], 30_000);

      await chain.pauseMining();
      minerStopped = true;
      const [order] = await createOrders(running.client, orderBodies(running, makers.slice(1), 1));
      const submitted = await waitFor(
        'the order submitted',
        async () => {
          const o = (await listOrders(running.client)).get(order!.id)!;
          return o.status === 'submitted' ? o : undefined;
        },
        30_000,
      );
      const original = submitted.txHash;
      expect(await provider.getTransaction(original)).not.toBeNull();
      const head = await provider.getBlockNumber();

      await chain.dropPending();
      expect(await provider.getTransaction(original)).toBeNull();
      expect(await provider.getBlockNumber()).toBe(head);
      await chain.mine();
      const replacedRow = await waitFor(
        'a replacement recorded',
        async () => {
          const row = (await transactionRows(running.api.store)).find((r) =>
            r.limitOrderIds.includes(order!.id),
          );
          return row && row.txHashes.length > 1 ? row : undefined;
        },
        30_000,
      );
      const replacement = replacedRow.txHash;
      expect(replacedRow.txHashes).toEqual([original, replacement]);
      // Broadcast, not mined yet: the miner is still stopped.
      await waitFor(
        'the replacement in the pool',
        async () => ((await provider.getTransaction(replacement)) ? true : undefined),
        10_000,
      );

      await chain.resumeMining();
      minerStopped = false;
      const final = await waitForAllCompleted(running.client, [warmUp!.id, order!.id], 30_000);
      expect(final.get(order!.id)!.txHash).toBe(replacement);
      expect(replacement).not.toBe(original);
      expect((await provider.getTransactionReceipt(replacement))?.status).toBe(1);
      expect(await provider.getTransactionReceipt(original)).toBeNull();
      await expectExecutedExactlyOnce(running, final, [warmUp!.id, order!.id]);
      expect(await counterValue(keeper, 'tas_keeper_transaction_replacements_total')).toBe(1);
      expect(await counterValue(keeper, 'tas_keeper_transactions_dropped_total')).toBe(0);
    } finally {
      if (minerStopped) await chain.resumeMining().catch(() => undefined);
      await running.close();
    }
  });

  it('executes every order through an RPC endpoint that fails one call in five', async () => {
    const running = await startService({ keepers: 0 });
    let proxy: RpcProxy | undefined;
    let keeper: KeeperInstance | undefined;
    try {
      proxy = await startRpcProxy(running.manifest.rpcUrl, { failEvery: 5, failure: '503' });
      const proxied = running.devnet.chains.map((c) => ({ ...c, rpcUrls: [proxy!.url] }));
      // The keeper alone talks to the chain through the proxy (the api keeps the direct URL). On SQLite a keeper
      // shares the api's store, as in embedded mode.
      const config = testConfig(
        running.target,
        // Batches of two: five transactions, so sends, receipts and settlements all run through the faults too.
        {
          KEEPER_POLL_MS: '100',
          KEEPER_LEASE_MS: '10000',
          KEEPER_ADMIN_PORT: '0',
          KEEPER_MAX_BATCH_ORDERS: '2',
        },
        { chains: proxied },
      );
      keeper = await buildKeeper(config, {
        store: running.api.store,
        // TAS_TEST_KEEPER_LOG=info shows this keeper's log when the test needs a diagnosis.
        log: createLogger(process.env.TAS_TEST_KEEPER_LOG ?? 'silent', 'keeper'),
        executorKeys: [EXECUTORS[0]!.privateKey],
      });
      await keeper.start();
      const makers = await prepareMakers(running);
      const orders = await createOrders(running.client, orderBodies(running, makers, 10));
      const ids = orders.map((o) => o.id);
      const final = await waitForAllCompleted(running.client, ids, 120_000);
      await expectExecutedExactlyOnce(running, final, ids);
      expectOneSettledRowPerOrder(await transactionRows(running.api.store), ids);
      // Faults really were injected on the keeper's path, and not only into its block polling.
      expect(proxy.failed()).toBe(Math.floor(proxy.received() / 5));
      const failedMethods = new Set(
        proxy
          .bodies()
          .filter((_, i) => (i + 1) % 5 === 0)
          .map((b) => b.method),
      );
      expect([...failedMethods].filter((m) => m !== 'eth_blockNumber').length).toBeGreaterThan(0);
      expect(await counterValue(keeper, 'tas_keeper_unhandled_errors_total')).toBe(0);
    } finally {
      await keeper?.stop();
      await proxy?.close();
      await running.close();
    }
  });
});
