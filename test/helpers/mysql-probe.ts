import { createConnection } from 'mysql2/promise';

/** The MySQL server the tests use: DATABASE_URL when it names one, else the local default. */
export function mysqlServerUrl(env = process.env): string {
  const url =
    env.DATABASE_URL && /^mysql2?:\/\//.test(env.DATABASE_URL)
      ? env.DATABASE_URL
      : 'mysql://root@127.0.0.1:3306';
  const parsed = new URL(url.replace(/^mysql2:/, 'mysql:'));
  parsed.pathname = '/';
  return parsed.toString();
}

/** MySQL is expected on CI and whenever DATABASE_URL names it; then its absence fails the run. */
export function mysqlExpected(env = process.env): boolean {
  return env.CI === 'true' || /^mysql2?:\/\//.test(env.DATABASE_URL ?? '');
}

export async function mysqlReachable(serverUrl: string): Promise<string | undefined> {
  try {
    const conn = await createConnection({ uri: serverUrl, connectTimeout: 3000 });
    await conn.query('select 1');
    await conn.end();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
