import { createConnection } from 'mysql2/promise';

/**
 * A fresh MySQL database `<prefix>_<pid>` for a benchmark server process, dropped when the load generator stops
 * the server with SIGTERM, so no benchmark leaves a database behind. Returns its URL.
 */
export async function benchMysqlDatabase(serverUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${process.pid}`;
  const conn = await createConnection({ uri: serverUrl });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.query(`CREATE DATABASE \`${name}\``);
  await conn.end();
  process.once('SIGTERM', () => {
    createConnection({ uri: serverUrl })
      .then(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      })
      .finally(() => process.exit(0));
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
