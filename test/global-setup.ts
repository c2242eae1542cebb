import { mysqlExpected, mysqlReachable, mysqlServerUrl } from './helpers/mysql-probe';

/** Decides once per run whether the MySQL side of the store tests runs; workers read the result from the env. */
export default async function globalSetup(): Promise<void> {
  const url = mysqlServerUrl();
  const problem = await mysqlReachable(url);
  if (!problem) {
    process.env.TAS_TEST_MYSQL_URL = url;
    return;
  }
  if (mysqlExpected()) {
    throw new Error(`MySQL is expected (CI=true or DATABASE_URL set) but ${url} is unreachable: ${problem}`);
  }
  process.env.TAS_TEST_MYSQL_URL = '';
  console.warn(
    `\n[tests] MySQL at ${url} is unreachable (${problem}); store tests run on SQLite only and the MySQL side is reported as skipped.\n`,
  );
}
