import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { MASTER_KEY_FILE } from '../../shared/signing/master-key';
import { SQLITE_FILE_NAME, createKnex } from '../../shared/store/create-knex';
import { dataDirInUse } from '../../shared/store/data-dir-lock';
import { rollbackAll } from '../../shared/store/migrate';
import { MANIFEST_FILE } from '../manifest';
import { DEVNET_FOLDER } from '../start-devnet';

/**
 * `npm run devnet:reset`: starts the embedded world over, chains and store together (orders in a store that
 * outlives its chains would point at contracts that no longer exist). Refused while `npm start` runs on the folder.
 * A MySQL store named by DATABASE_URL is emptied only with --force: it may not be a throw-away database.
 */
export async function resetDevnet(
  env: Partial<Record<string, string>>,
  args: string[],
  write: (line: string) => void,
): Promise<number> {
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  const databaseUrl = env.DATABASE_URL ?? '';
  if (await dataDirInUse(dataDir)) {
    write(`DATA_DIR ${dataDir} is in use by a running service: stop it first (nothing was removed).`);
    return 3;
  }
  if (databaseUrl && !args.includes('--force')) {
    write('DATABASE_URL names a MySQL store: add --force to drop its tables too (nothing was removed).');
    return 2;
  }
  for (const name of [
    DEVNET_FOLDER,
    MANIFEST_FILE,
    SQLITE_FILE_NAME,
    `${SQLITE_FILE_NAME}-wal`,
    `${SQLITE_FILE_NAME}-shm`,
  ]) {
    const target = path.join(dataDir, name);
    if (existsSync(target)) {
      rmSync(target, { recursive: true, force: true });
      write(`removed ${target}`);
    }
  }
  if (databaseUrl) {
    const knex = createKnex({ databaseUrl, dataDir });
    try {
      await rollbackAll(knex);
      write('rolled back every migration of the MySQL store');
    } finally {
      await knex.destroy();
    }
  }
  write(`kept ${path.join(dataDir, MASTER_KEY_FILE)} (accounts created later are encrypted with it)`);
  return 0;
}

if (require.main === module) {
  resetDevnet(process.env, process.argv.slice(2), (line) => console.log(line)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      console.error(`devnet:reset failed: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
