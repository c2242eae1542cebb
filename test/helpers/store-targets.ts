import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';

export type StoreKind = 'sqlite' | 'mysql';

/** A store for one test file: its own data folder and, on MySQL, its own database, dropped afterwards. */
export interface StoreTarget {
  kind: StoreKind;
  dataDir: string;
  /** DATABASE_URL for this target ('' for SQLite). */
  databaseUrl: string;
  cleanup(): Promise<void>;
}

export function mysqlServerForTests(): string | undefined {
  return process.env.TAS_TEST_MYSQL_URL || undefined;
}

export async function createStoreTarget(kind: StoreKind): Promise<StoreTarget> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `tas-${kind}-`));
  if (kind === 'sqlite') {
    return {
      kind,
      dataDir,
      databaseUrl: '',
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const server = mysqlServerForTests();
  if (!server) throw new Error('MySQL is not available for this run');
  const database = `tas_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const conn = await createConnection({ uri: server });
  await conn.query(`CREATE DATABASE \`${database}\``);
  await conn.end();
  const url = new URL(server);
  url.pathname = `/${database}`;
  return {
    kind,
    dataDir,
    databaseUrl: url.toString(),
    async cleanup() {
      const c = await createConnection({ uri: server });
      await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a suite once per store: SQLite always, MySQL when the run has it. A MySQL side that cannot run is
 * reported by jest as skipped (never silently absent); on CI its absence already failed the global setup.
 */
export function describeEachStore(name: string, suite: (kind: StoreKind) => void): void {
  describe(`${name} [sqlite]`, () => suite('sqlite'));
  const run = mysqlServerForTests() ? describe : describe.skip;
  run(`${name} [mysql]`, () => suite('mysql'));
}
