import { mysqlExpected, mysqlReachable, mysqlServerUrl } from './helpers/mysql-probe';
import { redisExpected, redisReachable, redisServerUrl } from './helpers/redis-probe';

/**
 * Decides once per run whether the MySQL side of the store tests and the Redis suites run; workers read the result
 * from the env.
 */
export default async function globalSetup(): Promise<void> {
  await decideRedis();
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

async function decideRedis(): Promise<void> {
  const url = redisServerUrl();
  const problem = await redisReachable(url);
  // A Redis URL may carry a password: only its host part is printed.
  const shown = url.replace(/\/\/[^@/]*@/, '//');
  if (!problem) {
    process.env.TAS_TEST_REDIS_URL = url;
    return;
  }
  if (redisExpected()) {
    throw new Error(`Redis is expected (CI=true or REDIS_URL set) but ${shown} is unreachable: ${problem}`);
  }
  process.env.TAS_TEST_REDIS_URL = '';
  console.warn(
    `\n[tests] Redis at ${shown} is unreachable (${problem}); the suites that need it are reported as skipped.\n`,
  );
}
