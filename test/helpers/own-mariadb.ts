import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '../../shared/net/free-port';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection } from 'mysql2/promise';
import type { StoreTarget } from './store-targets';

/** Debian's MariaDB server package installs both (`.ci/run` does on CI). */
export interface MariadbBinaries {
  server: string;
  installDb: string;
}

const SERVER = '/usr/sbin/mariadbd';
const INSTALL_DB = 'mariadb-install-db';
const START_TIMEOUT_MS = 30_000;

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The server and the data-folder initialiser, or undefined when this machine has no MariaDB server. */
export function findMariadb(env = process.env): MariadbBinaries | undefined {
  const installDb = [...(env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin']
    .map((dir) => path.join(dir, INSTALL_DB))
    .find(executable);
  return executable(SERVER) && installDb ? { server: SERVER, installDb } : undefined;
}

/**
 * A suite that starts MariaDB servers of its own: reported by jest as skipped on a machine without one (never
 * silently absent), and failing under CI=true, where its absence is a broken CI.
 */
export function describeWithMariadb(
  title: string,
  suite: (binaries: MariadbBinaries) => void,
  env = process.env,
): void {
  const binaries = findMariadb(env);
  if (!binaries && env.CI === 'true') {
    describe(title, () => {
      // eslint-disable-next-line jest/expect-expect -- fails by design: CI lacks what it needs
      it(`finds ${SERVER} and ${INSTALL_DB} (Debian package mariadb-server)`, () => {
        throw new Error('the MariaDB server is not installed: CI needs it (apt-get install mariadb-server)');
      });
    });
    return;
  }
  const run = binaries ? describe : describe.skip;
  run(title, () => suite(binaries!));
}

/**
 * A MariaDB server this test owns: its own data folder, port, socket and pid file in a temporary folder, run as the
 * current user, so the test can kill it (SIGKILL, as a crashed or lost server) and start it again on the same data
 * without touching the machine's shared server.
 */
export interface OwnMariadb {
  /** `mysql://root@127.0.0.1:PORT/` (root without a password, TCP only). */
  serverUrl: string;
  /** Kills the server with SIGKILL and waits for its exit. */
  kill(): Promise<void>;
  /** Starts the server again on the same data folder and port; resolves once it answers. */
  start(): Promise<void>;
  /** A StoreTarget on a new database of this server; its cleanup drops nothing (`close` removes everything). */
  target(): Promise<StoreTarget>;
  /** Kills the server and removes its folder. */
  close(): Promise<void>;
}

export async function startOwnMariadb(binaries: MariadbBinaries): Promise<OwnMariadb> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tas-mariadb-'));
  const dataDir = path.join(dir, 'data');
  const errorLog = path.join(dir, 'error.log');
  // mariadbd refuses to run as root unless told to: the test runs as whoever runs it.
  const asUser = `--user=${userInfo().username}`;
  const installed = spawnSync(
    binaries.installDb,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      asUser,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (installed.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `${binaries.installDb} failed (${installed.status}): ${installed.stderr || installed.stdout}`,
    );
  }
  const port = await freePort('127.0.0.1');
  const serverUrl = `mysql://root@127.0.0.1:${port}/`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const answers = async (): Promise<boolean> => {
    try {
      const conn = await createConnection({ uri: serverUrl, connectTimeout: 1_000 });
      await conn.query('select 1');
      await conn.end();
      return true;
    } catch {
      return false;
    }
  };

  const start = async (): Promise<void> => {
    const server = spawn(
      binaries.server,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${path.join(dir, 'mysqld.sock')}`,
        `--pid-file=${path.join(dir, 'mysqld.pid')}`,
        `--log-error=${errorLog}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        asUser,
      ],
      { stdio: 'ignore' },
    );
    child = server;
    let gone = false;
    exited = new Promise<void>((resolve) =>
      server.once('exit', () => {
        gone = true;
        resolve();
      }),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await answers())) {
      const log = (): string => {
        try {
          return readFileSync(errorLog, 'utf8').split('\n').slice(-20).join('\n');
        } catch {
          return '(no error log)';
        }
      };
      if (gone) throw new Error(`mariadbd exited at start:\n${log()}`);
      if (Date.now() > deadline)
        throw new Error(`mariadbd did not answer within ${START_TIMEOUT_MS} ms:\n${log()}`);
      await sleep(100);
    }
  };

  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  try {
    await start();
  } catch (err) {
    await kill();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    serverUrl,
    kill,
    start,
    async target() {
      const database = `tas_outage_${Date.now().toString(36)}`;
      const conn = await createConnection({ uri: serverUrl });
      await conn.query(`CREATE DATABASE \`${database}\``);
      await conn.end();
      const targetDir = mkdtempSync(path.join(tmpdir(), 'tas-mysql-'));
      return {
        kind: 'mysql',
        dataDir: targetDir,
        databaseUrl: `${serverUrl}${database}`,
        cleanup: async () => rmSync(targetDir, { recursive: true, force: true }),
      };
    },
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
