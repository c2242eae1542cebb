/**
 * The api for the fairness benchmark, in its own process: a fresh store (SQLite in a temp folder, or a fresh
 * MySQL database), key A with ORDERS limit orders, key B with none. Prints one JSON line with both keys'
 * credentials, then serves until killed.
 */
import type { Credentials } from '../../shared/signing/request-signature';
import { createAccount } from '../../test/factories/accounts';
import { createBenchOrder, startBenchApi } from '../bench-api';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 3000);
const CREATE_CONCURRENCY = 20;

async function createOrders(baseUrl: string, credentials: Credentials, count: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await createBenchOrder(baseUrl, credentials);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

async function serve(store: string, mysqlUrl: string): Promise<void> {
  const baseUrl = await startBenchApi(store, mysqlUrl, 'tas_fair');
  const lister = await createAccount(baseUrl, { name: 'bench-lister' });
  const other = await createAccount(baseUrl, { name: 'bench-other' });
  await createOrders(baseUrl, lister, ORDERS);
  console.log(JSON.stringify({ baseUrl, lister, other, orders: ORDERS }));
}

const [store = 'sqlite', mysqlUrl = 'mysql://root@127.0.0.1:3306/'] = process.argv.slice(2);
serve(store, mysqlUrl).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
